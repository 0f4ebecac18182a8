/**
 * PocketBase's `on…` hook registrations a `*.pb.js` file may call, each bound to svcbase's hook
 * family of the same name (`core/hooks*.ts`) with the event facade its handlers receive; the
 * optional tags after the handler are collection names or ids, as PocketBase's.
 *
 * Two families svcbase has no hook of its own for are placed inside the record model hooks:
 * svcbase validates a record before `onRecordCreate`/`onRecordUpdate` run, so
 * - `onRecord{Create,Update,Delete}Execute` handlers run as the last handlers of
 *   `onRecordCreate`/`Update`/`Delete` (after every other handler called `e.next()`), around the
 *   write itself: not calling `e.next()` skips the write, as PocketBase's;
 * - `onRecordValidate` handlers run just before them, as a chain of their own per file: not
 *   calling `e.next()` ends that chain, and the save goes on (svcbase's built-in validation has
 *   already run by then, as PocketBase's field validation does whatever the hook does).
 */
import type { App } from '../../../core/app.js'
import type { AppHooks } from '../../../core/hooks.js'
import { Hook, type HookEvent } from '../../../tools/hook.js'
import {
  authFlowEventOf,
  authWithOTPEventOf,
  authWithPasswordEventOf,
  collectionEventOf,
  collectionRequestEventOf,
  collectionWriteRequestEventOf,
  collectionsImportEventOf,
  collectionsListEventOf,
  emailChangeEventOf,
  mailerEventOf,
  mailerRecordEventOf,
  recordAuthEventOf,
} from './auth-events.js'
import {
  recordEventOf,
  recordRequestEventOf,
  recordSuccessEventOf,
  recordsListEventOf,
  recordUpdateRequestEventOf,
} from './events.js'

type Facade = (e: never) => object

/** The hooks bound directly to svcbase's family of the same name. */
const DIRECT = {
  onRecordCreate: recordEventOf,
  onRecordUpdate: recordEventOf,
  onRecordDelete: recordEventOf,
  onRecordAfterCreateSuccess: recordSuccessEventOf,
  onRecordAfterUpdateSuccess: recordSuccessEventOf,
  onRecordAfterDeleteSuccess: recordSuccessEventOf,
  onRecordsListRequest: recordsListEventOf,
  onRecordViewRequest: recordRequestEventOf,
  onRecordCreateRequest: recordRequestEventOf,
  onRecordUpdateRequest: recordUpdateRequestEventOf,
  onRecordDeleteRequest: recordRequestEventOf,
  onRecordAuthRequest: recordAuthEventOf,
  onRecordAuthWithPasswordRequest: authWithPasswordEventOf,
  onRecordAuthWithOTPRequest: authWithOTPEventOf,
  onRecordAuthRefreshRequest: authFlowEventOf,
  onRecordRequestOTPRequest: authFlowEventOf,
  onRecordRequestPasswordResetRequest: authFlowEventOf,
  onRecordConfirmPasswordResetRequest: authFlowEventOf,
  onRecordRequestVerificationRequest: authFlowEventOf,
  onRecordConfirmVerificationRequest: authFlowEventOf,
  onRecordRequestEmailChangeRequest: emailChangeEventOf,
  onRecordConfirmEmailChangeRequest: emailChangeEventOf,
  onCollectionCreate: collectionEventOf,
  onCollectionUpdate: collectionEventOf,
  onCollectionDelete: collectionEventOf,
  onCollectionAfterCreateSuccess: collectionEventOf,
  onCollectionAfterUpdateSuccess: collectionEventOf,
  onCollectionAfterDeleteSuccess: collectionEventOf,
  onCollectionsListRequest: collectionsListEventOf,
  onCollectionViewRequest: collectionRequestEventOf,
  onCollectionDeleteRequest: collectionRequestEventOf,
  onCollectionCreateRequest: collectionWriteRequestEventOf,
  onCollectionUpdateRequest: collectionWriteRequestEventOf,
  onCollectionsImportRequest: collectionsImportEventOf,
  onMailerSend: mailerEventOf,
  onMailerRecordPasswordResetSend: mailerRecordEventOf,
  onMailerRecordVerificationSend: mailerRecordEventOf,
  onMailerRecordEmailChangeSend: mailerRecordEventOf,
  onMailerRecordOTPSend: mailerRecordEventOf,
  onMailerRecordAuthAlertSend: mailerRecordEventOf,
} as const satisfies Partial<Record<keyof AppHooks, Facade>>

/** Where the execute hooks run: after every other handler of the model hook. */
const EXECUTE_PRIORITY = 2_000_000_000
/** Where `onRecordValidate` runs: just before the execute hooks. */
const VALIDATE_PRIORITY = EXECUTE_PRIORITY - 1

/** The execute hooks, each the last handlers of svcbase's model hook. */
const EXECUTE = {
  onRecordCreateExecute: 'onRecordCreate',
  onRecordUpdateExecute: 'onRecordUpdate',
  onRecordDeleteExecute: 'onRecordDelete',
} as const satisfies Record<string, keyof AppHooks>

/** Every hook registration a `*.pb.js` file has. */
export const HOOK_NAMES: readonly string[] = [
  ...Object.keys(DIRECT),
  ...Object.keys(EXECUTE),
  'onRecordValidate',
]

/** A handler a script passed, run as one invocation on the event's facade. */
export type Runner = (app: App, facade: object) => Promise<void>

interface Bindable {
  bind(
    h: { func: (e: HookEvent & { app: App }) => Promise<void>; priority?: number },
    tags?: string[],
  ): string
}

const family = (hooks: AppHooks, name: keyof AppHooks): Bindable => hooks[name]

/**
 * The registration functions of one file, by PocketBase's name: `register(name)(run, tags)`
 * binds `run` (the script's handler, run on the facade) to the family.
 */
export function hookRegistrations(
  hooks: AppHooks,
): Record<string, (run: Runner, tags: string[]) => void> {
  const out: Record<string, (run: Runner, tags: string[]) => void> = {}
  for (const [name, facade] of Object.entries(DIRECT) as [keyof AppHooks, Facade][])
    out[name] = (run, tags) =>
      void family(hooks, name).bind({ func: (e) => run(e.app, facade(e as never)) }, tags)
  for (const [name, model] of Object.entries(EXECUTE))
    out[name] = (run, tags) =>
      void family(hooks, model).bind(
        { func: (e) => run(e.app, recordEventOf(e as never)), priority: EXECUTE_PRIORITY },
        tags,
      )
  // One chain of this file's validate handlers, run inside the create and update hooks.
  let validate: Hook<HookEvent & { app: App }> | null = null
  out.onRecordValidate = (run, tags) => {
    if (!validate) {
      const chain = (validate = new Hook())
      for (const model of ['onRecordCreate', 'onRecordUpdate'] as const)
        family(hooks, model).bind({
          priority: VALIDATE_PRIORITY,
          func: async (e) => {
            const ev = e as unknown as { collection: { id: string; name: string } }
            // The event without its `next` (the inner chain's end must not replace the outer's).
            const payload: Record<string, unknown> = { ...e }
            delete payload.next
            await chain.trigger(payload as Omit<typeof e, 'next'>, () => undefined, [
              ev.collection.id,
              ev.collection.name,
            ])
            await e.next()
          },
        })
    }
    validate.bind((inner) => run(inner.app, recordEventOf(inner as never)), tags)
  }
  return out
}
