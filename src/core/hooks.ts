import { Hook, type HookEvent } from '../tools/hook.js'
import type { Collection } from './collections/model.js'
import type { App } from './app.js'
import type { BootstrapEvent, ServeEvent, TerminateEvent } from './lifecycle.js'
import type {
  RecordAuthFlowRequestEvent,
  RecordAuthRequestEvent,
  RecordAuthWithOTPRequestEvent,
  RecordAuthWithPasswordRequestEvent,
  RecordEmailChangeRequestEvent,
} from './hooks-auth.js'
import type {
  CollectionErrorEvent,
  CollectionEvent,
  CollectionRequestEvent,
  CollectionsImportRequestEvent,
  CollectionsListRequestEvent,
  CollectionSuccessEvent,
  CollectionWriteRequestEvent,
} from './hooks-collection.js'
import type { MailerEvent, MailerRecordEvent } from './hooks-mail.js'
import type { RecordRequestEvent, RecordsListRequestEvent } from './hooks-record-request.js'
import type { RecordData, RequestInfo } from './request-info.js'

/** The event of a record create/update/delete hook. */
export interface RecordHookEvent extends HookEvent {
  app: App
  collection: Collection
  record: RecordData
  /** The stored record before an update. */
  original?: RecordData
  request: RequestInfo
}

/** The event of an after-success record hook. */
export interface RecordSuccessEvent extends HookEvent {
  app: App
  collection: Collection
  record: RecordData
}

/**
 * The event of `onRecordAfter{Create,Update,Delete}Error`: a write that failed once its record
 * was built (a validation error, a handler's or the database's), after the rollback; `error` is
 * what the write throws (the hook cannot change it).
 */
export interface RecordErrorEvent extends RecordSuccessEvent {
  error: unknown
}

/**
 * The event of `onRecordEnrich`: a record about to be answered (the records API's answers, an
 * expanded relation, an auth answer's record, a realtime message), once per record; fired only
 * when a handler is bound. `record` is the record as it will be sent (hidden fields and an
 * invisible email already left out): change it in place; `stored` holds every stored value.
 */
export interface RecordEnrichEvent extends HookEvent {
  app: App
  collection: Collection
  record: Record<string, unknown>
  stored: RecordData
  requestInfo: RequestInfo
}

/**
 * The event of `onPaymentEvent`: one verified incoming payment event (Stripe's shape), stored
 * in `_payment_events` just before the handlers run, in the same transaction: `app` is that
 * transaction, so a handler's writes commit with the row, and a handler that throws rolls both
 * back (the webhook answers an error, so the provider delivers the event again). A replayed
 * event id never reaches the handlers.
 */
export interface PaymentHookEvent extends HookEvent {
  app: App
  /** The provider's event id (`evt_…`), unique in `_payment_events`. */
  eventId: string
  /** The event type, e.g. `invoice.paid`. */
  type: string
  /** The whole event, parsed from the signed body. */
  payload: Record<string, unknown>
}

/**
 * The hook families of an app, with PocketBase's names and event fields. Handlers are tagged
 * with collection names or ids (or untagged for all); the record, request, auth and mail hooks
 * are triggered with the collection's id and name.
 * - record: `onRecordCreate`/`onRecordUpdate`/`onRecordDelete` run **inside** the transaction,
 *   around the built-in write (call `e.next()` to perform it); throwing rolls everything back.
 *   `onRecordAfter*Success` run **after commit** and cannot undo the change;
 *   `onRecordAfter*Error` run after a failed write rolled back (the whole transaction's, when
 *   the write is part of one), with `e.error`.
 * - `onRecordEnrich`: each record an answer carries, as it will be sent (`records/present.ts`).
 * - record request (`onRecords{List,…}Request`, hooks-record-request.ts): around the records
 *   API's call of the record service, **outside** its transaction (inside the batch's for batch
 *   items); a handler may change the input before `e.next()` or answer itself instead.
 * - collection (hooks-collection.ts): `onCollectionCreate/Update/Delete` **inside** the
 *   transaction around the write; `onCollectionAfter*Success` **after commit**,
 *   `onCollectionAfter*Error` after a failed write's rollback; the
 *   `onCollection*Request` hooks around the collections API's service call, outside it.
 * - auth (hooks-auth.ts): `onRecordAuthRequest` around every successful sign-in answer, the
 *   others around each auth endpoint's flow; all **outside** a transaction (each write of a flow
 *   commits on its own).
 * - mail (hooks-mail.ts): `onMailerRecord*Send` around the send of each auth mail, then
 *   `onMailerSend` around every mail's hand-over to the backend; outside any transaction.
 * - sms (hooks-sms.ts, declared there): `onSmsSend` around every SMS's hand-over to the backend
 *   `settings.sms` selects; outside any transaction.
 * - lifecycle (lifecycle.ts): the app opens, starts serving, stops.
 */
export interface AppHooks {
  onRecordCreate: Hook<RecordHookEvent>
  onRecordUpdate: Hook<RecordHookEvent>
  onRecordDelete: Hook<RecordHookEvent>
  onRecordAfterCreateSuccess: Hook<RecordSuccessEvent>
  onRecordAfterUpdateSuccess: Hook<RecordSuccessEvent>
  onRecordAfterDeleteSuccess: Hook<RecordSuccessEvent>
  onRecordAfterCreateError: Hook<RecordErrorEvent>
  onRecordAfterUpdateError: Hook<RecordErrorEvent>
  onRecordAfterDeleteError: Hook<RecordErrorEvent>
  onRecordEnrich: Hook<RecordEnrichEvent>
  onRecordsListRequest: Hook<RecordsListRequestEvent>
  onRecordViewRequest: Hook<RecordRequestEvent>
  onRecordCreateRequest: Hook<RecordRequestEvent>
  onRecordUpdateRequest: Hook<RecordRequestEvent>
  onRecordDeleteRequest: Hook<RecordRequestEvent>
  onCollectionCreate: Hook<CollectionEvent>
  onCollectionUpdate: Hook<CollectionEvent>
  onCollectionDelete: Hook<CollectionEvent>
  onCollectionAfterCreateSuccess: Hook<CollectionSuccessEvent>
  onCollectionAfterUpdateSuccess: Hook<CollectionSuccessEvent>
  onCollectionAfterDeleteSuccess: Hook<CollectionSuccessEvent>
  onCollectionAfterCreateError: Hook<CollectionErrorEvent>
  onCollectionAfterUpdateError: Hook<CollectionErrorEvent>
  onCollectionAfterDeleteError: Hook<CollectionErrorEvent>
  onCollectionsListRequest: Hook<CollectionsListRequestEvent>
  onCollectionViewRequest: Hook<CollectionRequestEvent>
  onCollectionCreateRequest: Hook<CollectionWriteRequestEvent>
  onCollectionUpdateRequest: Hook<CollectionWriteRequestEvent>
  onCollectionDeleteRequest: Hook<CollectionRequestEvent>
  onCollectionsImportRequest: Hook<CollectionsImportRequestEvent>
  onRecordAuthRequest: Hook<RecordAuthRequestEvent>
  onRecordAuthWithPasswordRequest: Hook<RecordAuthWithPasswordRequestEvent>
  onRecordAuthWithOTPRequest: Hook<RecordAuthWithOTPRequestEvent>
  onRecordAuthRefreshRequest: Hook<RecordAuthFlowRequestEvent>
  onRecordRequestOTPRequest: Hook<RecordAuthFlowRequestEvent>
  onRecordRequestPasswordResetRequest: Hook<RecordAuthFlowRequestEvent>
  onRecordConfirmPasswordResetRequest: Hook<RecordAuthFlowRequestEvent>
  onRecordRequestVerificationRequest: Hook<RecordAuthFlowRequestEvent>
  onRecordConfirmVerificationRequest: Hook<RecordAuthFlowRequestEvent>
  onRecordRequestEmailChangeRequest: Hook<RecordEmailChangeRequestEvent>
  onRecordConfirmEmailChangeRequest: Hook<RecordEmailChangeRequestEvent>
  onMailerSend: Hook<MailerEvent>
  onMailerRecordPasswordResetSend: Hook<MailerRecordEvent>
  onMailerRecordVerificationSend: Hook<MailerRecordEvent>
  onMailerRecordEmailChangeSend: Hook<MailerRecordEvent>
  onMailerRecordOTPSend: Hook<MailerRecordEvent>
  onMailerRecordAuthAlertSend: Hook<MailerRecordEvent>
  /** Each verified payment event, inside the transaction that stores it (features/payments). */
  onPaymentEvent: Hook<PaymentHookEvent>
  // Lifecycle (see lifecycle.ts): the app opens, starts serving, stops.
  onBootstrap: Hook<BootstrapEvent>
  onServe: Hook<ServeEvent>
  onTerminate: Hook<TerminateEvent>
}

/** Creates the empty hook families. */
export function createHooks(): AppHooks {
  return {
    onRecordCreate: new Hook(),
    onRecordUpdate: new Hook(),
    onRecordDelete: new Hook(),
    onRecordAfterCreateSuccess: new Hook(),
    onRecordAfterUpdateSuccess: new Hook(),
    onRecordAfterDeleteSuccess: new Hook(),
    onRecordAfterCreateError: new Hook(),
    onRecordAfterUpdateError: new Hook(),
    onRecordAfterDeleteError: new Hook(),
    onRecordEnrich: new Hook(),
    onRecordsListRequest: new Hook(),
    onRecordViewRequest: new Hook(),
    onRecordCreateRequest: new Hook(),
    onRecordUpdateRequest: new Hook(),
    onRecordDeleteRequest: new Hook(),
    onCollectionCreate: new Hook(),
    onCollectionUpdate: new Hook(),
    onCollectionDelete: new Hook(),
    onCollectionAfterCreateSuccess: new Hook(),
    onCollectionAfterUpdateSuccess: new Hook(),
    onCollectionAfterDeleteSuccess: new Hook(),
    onCollectionAfterCreateError: new Hook(),
    onCollectionAfterUpdateError: new Hook(),
    onCollectionAfterDeleteError: new Hook(),
    onCollectionsListRequest: new Hook(),
    onCollectionViewRequest: new Hook(),
    onCollectionCreateRequest: new Hook(),
    onCollectionUpdateRequest: new Hook(),
    onCollectionDeleteRequest: new Hook(),
    onCollectionsImportRequest: new Hook(),
    onRecordAuthRequest: new Hook(),
    onRecordAuthWithPasswordRequest: new Hook(),
    onRecordAuthWithOTPRequest: new Hook(),
    onRecordAuthRefreshRequest: new Hook(),
    onRecordRequestOTPRequest: new Hook(),
    onRecordRequestPasswordResetRequest: new Hook(),
    onRecordConfirmPasswordResetRequest: new Hook(),
    onRecordRequestVerificationRequest: new Hook(),
    onRecordConfirmVerificationRequest: new Hook(),
    onRecordRequestEmailChangeRequest: new Hook(),
    onRecordConfirmEmailChangeRequest: new Hook(),
    onMailerSend: new Hook(),
    onMailerRecordPasswordResetSend: new Hook(),
    onMailerRecordVerificationSend: new Hook(),
    onMailerRecordEmailChangeSend: new Hook(),
    onMailerRecordOTPSend: new Hook(),
    onMailerRecordAuthAlertSend: new Hook(),
    onSmsSend: new Hook(), // declared in hooks-sms.ts
    onPaymentEvent: new Hook(),
    onBootstrap: new Hook(),
    onServe: new Hook(),
    onTerminate: new Hook(),
  }
}

/**
 * Runs an after-error hook (`fire`) once a failed write is rolled back: at once outside a
 * transaction, after the enclosing transaction's rollback inside one (a batch). An error of its
 * handlers is logged: the caller gets the write's own error.
 */
export async function afterWriteError(app: App, fire: () => Promise<void>): Promise<void> {
  const run = () =>
    fire().catch((err: unknown) => {
      app.logger.error('after-error hook failed', { error: String(err) })
    })
  if (app.isTransactional) app.onAfterRollback(run)
  else await run()
}
