/**
 * PocketBase's `on…` hook registrations a `*.pb.js` file may call, each bound to svcbase's hook
 * family of the same name (`core/hooks*.ts`) with the event facade its handlers receive; the
 * optional tags after the handler are collection names or ids, as PocketBase's.
 *
 * The families svcbase has no hook of its own for are placed inside the model hooks, in
 * PocketBase's order (`onRecordCreate` → `onModelCreate` → `onRecordValidate` → `onModelValidate`
 * → `onRecordCreateExecute` → `onModelCreateExecute` → the write; the same for collections):
 * svcbase validates a record (a collection) before `onRecordCreate`/`onRecordUpdate` run, so
 * - `onModel{Create,Update,Delete}` handlers run after every other handler of the record or
 *   collection hook (`MODEL_PRIORITY`), `onModelAfter…` after the other after-hook handlers;
 * - `on{Record,Collection}{Create,Update,Delete}Execute` (then `onModel…Execute`) handlers run
 *   as the last handlers of the model hook, around the write itself: not calling `e.next()`
 *   skips the write, as PocketBase's;
 * - `on{Record,Collection,Model}Validate` handlers run just before them, as a chain of their own
 *   per file: not calling `e.next()` ends that chain, and the save goes on (svcbase's built-in
 *   validation has already run by then).
 * `onModel…` fire for records and collections only (svcbase's other tables have no model hooks);
 * a tag `_collections` selects the collections, as PocketBase's table name does.
 * `onBootstrap` handlers run once the files have loaded (`lifecycle.ts`); `onTerminate` and
 * `onBootstrapClear` (after the other handlers' code before `e.next()`) around the app's stop.
 */
import type { App } from '../../../core/app.js'
import { ApiError, badRequest, messages } from '../../../core/errors.js'
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
import { FEATURE_HOOK_NAMES, featureHookRegistrations } from './bindings-features.js'
import { recordEnrichEventOf } from './enrich.js'
import { bindPbBootstrap } from './lifecycle.js'
import {
  bootstrapEventOf,
  collectionErrorEventOf,
  collectionModelEventOf,
  recordErrorEventOf,
  recordModelEventOf,
  terminateEventOf,
  type ModelAction,
} from './model-events.js'

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
  onRecordAfterCreateError: recordErrorEventOf,
  onRecordAfterUpdateError: recordErrorEventOf,
  onRecordAfterDeleteError: recordErrorEventOf,
  onCollectionAfterCreateError: collectionErrorEventOf,
  onCollectionAfterUpdateError: collectionErrorEventOf,
  onCollectionAfterDeleteError: collectionErrorEventOf,
  onTerminate: terminateEventOf,
  onRecordEnrich: recordEnrichEventOf,
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

/** Where `onModel{Create,Update,Delete}` and `onModelAfter…` run: after the other handlers. */
const MODEL_PRIORITY = 1_000_000_000
/** Where the execute hooks run: after every other handler of the model hook. */
const EXECUTE_PRIORITY = 2_000_000_000
/** Where `onBootstrapClear` runs: after the other `onTerminate` handlers. */
const CLEAR_PRIORITY = EXECUTE_PRIORITY

type RecordFamily = 'onRecordCreate' | 'onRecordUpdate' | 'onRecordDelete'
type CollectionFamily = 'onCollectionCreate' | 'onCollectionUpdate' | 'onCollectionDelete'

/** The execute hooks: the last handlers of svcbase's model hook (then the model's). */
const EXECUTE: Record<string, { family: keyof AppHooks; facade: Facade }> = {
  onRecordCreateExecute: { family: 'onRecordCreate', facade: recordEventOf },
  onRecordUpdateExecute: { family: 'onRecordUpdate', facade: recordEventOf },
  onRecordDeleteExecute: { family: 'onRecordDelete', facade: recordEventOf },
  onCollectionCreateExecute: { family: 'onCollectionCreate', facade: collectionEventOf },
  onCollectionUpdateExecute: { family: 'onCollectionUpdate', facade: collectionEventOf },
  onCollectionDeleteExecute: { family: 'onCollectionDelete', facade: collectionEventOf },
}

/** The validate hooks: a chain per file inside the create and update hooks, before execute. */
const VALIDATE: Record<string, { families: (keyof AppHooks)[]; facade: Facade; at: number }> = {
  onRecordValidate: {
    families: ['onRecordCreate', 'onRecordUpdate'],
    facade: recordEventOf,
    at: EXECUTE_PRIORITY - 2,
  },
  onCollectionValidate: {
    families: ['onCollectionCreate', 'onCollectionUpdate'],
    facade: collectionEventOf,
    at: EXECUTE_PRIORITY - 2,
  },
}

/** A model hook: the record family and the collection family it fires in, and where. */
interface ModelHook {
  record: keyof AppHooks
  collection: keyof AppHooks
  type: ModelAction
  at: number
}

const ACTIONS = { Create: 'create', Update: 'update', Delete: 'delete' } as const

/** The `onModel…` hooks (but `onModelValidate`), each on a record and a collection family. */
const MODEL: Record<string, ModelHook> = {}
for (const [A, type] of Object.entries(ACTIONS)) {
  const rec = `onRecord${A}` as RecordFamily
  const col = `onCollection${A}` as CollectionFamily
  MODEL[`onModel${A}`] = { record: rec, collection: col, type, at: MODEL_PRIORITY }
  MODEL[`onModel${A}Execute`] = { record: rec, collection: col, type, at: EXECUTE_PRIORITY + 1 }
  for (const end of ['Success', 'Error'])
    MODEL[`onModelAfter${A}${end}`] = {
      record: `onRecordAfter${A}${end}` as keyof AppHooks,
      collection: `onCollectionAfter${A}${end}` as keyof AppHooks,
      type,
      at: MODEL_PRIORITY,
    }
}

/** The table name a model hook's tag gives for collections (PocketBase's). */
const COLLECTIONS_TABLE = '_collections'

/** Every hook registration a `*.pb.js` file has. */
export const HOOK_NAMES: readonly string[] = [
  ...Object.keys(DIRECT),
  ...Object.keys(EXECUTE),
  ...Object.keys(VALIDATE),
  ...Object.keys(MODEL),
  'onModelValidate',
  'onBootstrap',
  'onBootstrapClear',
  ...FEATURE_HOOK_NAMES,
]

/** A handler a script passed, run as one invocation on the event's facade. */
export type Runner = (app: App, facade: object) => Promise<void>

type AnyEvent = HookEvent & { app: App }

interface Bindable {
  bind(h: { func: (e: AnyEvent) => Promise<void>; priority?: number }, tags?: string[]): string
}

const family = (hooks: AppHooks, name: keyof AppHooks): Bindable => hooks[name]

/** The message the records and collections API answers a script error in a write's hooks with. */
const WRITE_FAILED: Partial<Record<keyof AppHooks, string>> = {
  onRecordCreate: messages.recordCreateFailed,
  onRecordUpdate: messages.recordUpdateFailed,
  onRecordDelete: messages.recordDeleteBlocked,
  onCollectionCreate: messages.collectionCreateFailed,
  onCollectionUpdate: messages.collectionUpdateFailed,
  onCollectionDelete: messages.collectionDeleteFailed,
}

const GENERIC = badRequest().message

/**
 * `run` for a handler of `name`: inside a write's model hooks, an error the script threw itself
 * (not an `ApiError`: `invoke` made it the generic 400) answers with the write's message, as
 * PocketBase's records and collections API does (`Failed to create record.`).
 */
function failingAs(name: keyof AppHooks, run: Runner): Runner {
  const message = WRITE_FAILED[name]
  if (!message) return run
  return async (app, facade) => {
    try {
      await run(app, facade)
    } catch (err) {
      const own =
        err instanceof ApiError &&
        err.status === 400 &&
        err.message === GENERIC &&
        Object.keys(err.data).length === 0 &&
        err.cause !== undefined &&
        !(err.cause instanceof ApiError)
      throw own ? badRequest(message, {}, err.cause) : err
    }
  }
}

/** The tags of a model hook for the record families (its own) and whether collections fire. */
function modelTags(tags: string[]): { records: string[] | null; collections: boolean } {
  if (tags.length === 0) return { records: [], collections: true }
  const records = tags.filter((t) => t !== COLLECTIONS_TABLE)
  return { records: records.length > 0 ? records : null, collections: records.length < tags.length }
}

/**
 * The registration functions of one file, by PocketBase's name: `register(name)(run, tags)`
 * binds `run` (the script's handler, run on the facade) to the family. The ids of the file's
 * `onBootstrap` handlers go to `bootstrapIds` (to remove them when the file fails to load).
 */
export function hookRegistrations(
  hooks: AppHooks,
  app?: App,
  bootstrapIds: string[] = [],
): Record<string, (run: Runner, tags: string[]) => void> {
  const out: Record<string, (run: Runner, tags: string[]) => void> = {}
  const bindAt = (
    name: keyof AppHooks,
    run: Runner,
    facade: Facade,
    at: number,
    tags: string[],
  ) => {
    const runs = failingAs(name, run)
    family(hooks, name).bind({ func: (e) => runs(e.app, facade(e as never)), priority: at }, tags)
  }
  for (const [name, facade] of Object.entries(DIRECT) as [keyof AppHooks, Facade][])
    out[name] = (run, tags) => bindAt(name, run, facade, 0, tags)
  for (const [name, { family: model, facade }] of Object.entries(EXECUTE))
    out[name] = (run, tags) => bindAt(model, run, facade, EXECUTE_PRIORITY, tags)
  for (const [name, m] of Object.entries(MODEL))
    out[name] = (run, tags) => {
      const { records, collections } = modelTags(tags)
      if (records) bindAt(m.record, run, recordModelEventOf(m.type), m.at, records)
      if (collections) bindAt(m.collection, run, collectionModelEventOf(m.type), m.at, [])
    }
  // One chain per file and validate hook, run inside the create and update hooks.
  const chains = new Map<string, Hook<AnyEvent>>()
  const chainOf = (key: string, families: (keyof AppHooks)[], at: number): Hook<AnyEvent> => {
    let chain = chains.get(key)
    if (!chain) {
      const inner = new Hook<AnyEvent>()
      chains.set(key, (chain = inner))
      for (const name of families)
        family(hooks, name).bind({
          priority: at,
          func: async (e) => {
            const ev = e as unknown as { collection: { id: string; name: string } }
            // The event without its `next` (the inner chain's end must not replace the outer's).
            const payload: Record<string, unknown> = { ...e }
            delete payload.next
            await failingAs(name, () =>
              inner.trigger(payload as Omit<typeof e, 'next'>, () => undefined, [
                ev.collection.id,
                ev.collection.name,
                // A model hook's tag for collections: their table (no record collection has it).
                ...(name.startsWith('onCollection') ? [COLLECTIONS_TABLE] : []),
              ]),
            )(e.app, {})
            await e.next()
          },
        })
    }
    return chain
  }
  for (const [name, v] of Object.entries(VALIDATE))
    out[name] = (run, tags) =>
      void chainOf(name, v.families, v.at).bind(
        (inner) => run(inner.app, v.facade(inner as never)),
        tags,
      )
  out.onModelValidate = (run, tags) => {
    const { records, collections } = modelTags(tags)
    const at = EXECUTE_PRIORITY - 1
    if (records)
      chainOf('onModelValidate:records', ['onRecordCreate', 'onRecordUpdate'], at).bind(
        (inner) => run(inner.app, recordModelEventOf('validate')(inner as never)),
        records,
      )
    if (collections)
      chainOf('onModelValidate:collections', ['onCollectionCreate', 'onCollectionUpdate'], at).bind(
        (inner) => run(inner.app, collectionModelEventOf('validate')(inner as never)),
      )
  }
  out.onBootstrapClear = (run) => bindAt('onTerminate', run, bootstrapEventOf, CLEAR_PRIORITY, [])
  out.onBootstrap = (run) => {
    if (!app) return
    const id = bindPbBootstrap(app, (e) => run(e.app, bootstrapEventOf(e)))
    if (id) bootstrapIds.push(id)
  }
  return { ...out, ...featureHookRegistrations(hooks) }
}
