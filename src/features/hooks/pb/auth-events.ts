/**
 * The events of the auth, mail and collection hooks as a `*.pb.js` handler receives them,
 * shaped as PocketBase's (`core.RecordAuthRequestEvent`, `core.MailerRecordEvent`,
 * `core.CollectionEvent`, …) over svcbase's own events (`core/hooks-auth.ts`, `hooks-mail.ts`,
 * `hooks-collection.ts`). The members a handler may change (`e.meta`, `e.token`, `e.record`,
 * `e.password`, `e.newEmail`, `e.message`) write through to svcbase's event, which the built-in
 * action then uses; any other member throws, naming it.
 */
import type { Collection } from '../../../core/collections/model.js'
import type {
  RecordAuthFlowRequestEvent,
  RecordAuthRequestEvent,
  RecordAuthWithOTPRequestEvent,
  RecordAuthWithPasswordRequestEvent,
  RecordEmailChangeRequestEvent,
} from '../../../core/hooks-auth.js'
import type {
  CollectionEvent,
  CollectionRequestEvent,
  CollectionsListRequestEvent,
  CollectionSuccessEvent,
  CollectionsImportRequestEvent,
  CollectionWriteRequestEvent,
} from '../../../core/hooks-collection.js'
import { collectionToJSON } from '../../../core/collections/codec.js'
import type { MailerEvent, MailerRecordEvent } from '../../../core/hooks-mail.js'
import type { HookEvent } from '../../../tools/hook.js'
import type { App } from '../../../core/app.js'
import type { RecordData } from '../../../core/request-info.js'
import { appFacade } from './app-facade.js'
import { pbCollectionOf, PbCollection } from './collection.js'
import { hookRequest, plain, requestMembers } from './events.js'
import { enqueue } from './invocation.js'
import { asPbRecord, pbRecord } from './record.js'
import { strict } from './unsupported.js'

type Accessors = Record<string, { get: () => unknown; set?: (v: unknown) => void }>

/** `fixed` with live accessors added (a setter writes through to svcbase's event). */
function live(fixed: Record<string, unknown>, accessors: Accessors): Record<string, unknown> {
  for (const [key, { get, set }] of Object.entries(accessors))
    Object.defineProperty(fixed, key, {
      get,
      set: set ?? (() => undefined),
      enumerable: true,
      configurable: true,
    })
  return fixed
}

/** `e.next()` of a hook event: the rest of the chain, queued on the running handler. */
const nextOf = (e: HookEvent) => (): void => {
  enqueue('e.next', () => e.next())
}

/** A record member over the event's `record` (null stays null); assigning a record replaces it. */
function recordMember(
  c: () => Collection,
  get: () => RecordData | null,
  set: (r: RecordData) => void,
): Accessors[string] {
  // The same record object while the event's record stays the same (`e.record === e.record`).
  let cached: { data: RecordData; record: object } | null = null
  return {
    get: () => {
      const data = get()
      if (data === null) return null
      if (cached?.data !== data) cached = { data, record: pbRecord(c(), () => get() as RecordData) }
      return cached.record
    },
    set: (v) => {
      const r = asPbRecord(v)
      if (r) set(r.svcData)
    },
  }
}

/** What every auth request event has: the request members, `e.collection`, a live `e.record`. */
function authBase(e: RecordAuthFlowRequestEvent): Record<string, unknown> {
  return live(
    { ...requestMembers(e), request: hookRequest(e.requestInfo), collection: e.collection },
    {
      record: recordMember(
        () => e.collection,
        () => e.record,
        (r) => (e.record = r),
      ),
    },
  )
}

/** `onRecordAuthRequest`: `e.record`, `e.token`, `e.meta`, `e.authMethod` (changes answered). */
export function recordAuthEventOf(e: RecordAuthRequestEvent): object {
  return strict(
    'e',
    live(authBase(e), {
      token: { get: () => e.token, set: (v) => (e.token = String(v)) },
      meta: {
        get: () => e.meta,
        set: (v) => (e.meta = v === null || v === undefined ? null : (plain(v) as never)),
      },
      authMethod: { get: () => e.authMethod },
    }),
  )
}

/** `onRecordAuthWithPasswordRequest`: the identity looked up (`e.record` may be null). */
export function authWithPasswordEventOf(e: RecordAuthWithPasswordRequestEvent): object {
  return strict(
    'e',
    live(authBase(e), {
      identity: { get: () => e.identity },
      identityField: { get: () => e.identityField },
      password: { get: () => e.password, set: (v) => (e.password = String(v)) },
    }),
  )
}

/** `onRecordAuthWithOTPRequest`: the record and the spent OTP (`e.otp`, an `_otps` record). */
export function authWithOTPEventOf(e: RecordAuthWithOTPRequestEvent): object {
  return strict(
    'e',
    live(authBase(e), {
      otp: {
        get: () => {
          const otps = e.otp ? e.app.registry.find('_otps') : undefined
          return otps && e.otp ? pbRecord(otps, () => e.otp as RecordData) : null
        },
      },
    }),
  )
}

/** The auth flows on one record (`onRecordAuthRefreshRequest`, `…PasswordReset…`, …). */
export function authFlowEventOf(e: RecordAuthFlowRequestEvent): object {
  return strict('e', authBase(e))
}

/** `onRecordRequestEmailChangeRequest` / `onRecordConfirmEmailChangeRequest`: `e.newEmail`. */
export function emailChangeEventOf(e: RecordEmailChangeRequestEvent): object {
  return strict(
    'e',
    live(authBase(e), {
      newEmail: { get: () => e.newEmail, set: (v) => (e.newEmail = String(v)) },
    }),
  )
}

/** What the mail events have: `e.app`, `e.message` (svcbase's message, changed in place). */
function mailBase(e: MailerEvent): Record<string, unknown> {
  return live(
    { app: appFacade(() => e.app), next: nextOf(e) },
    {
      message: {
        get: () => e.message,
        set: (v) => {
          if (v && typeof v === 'object') e.message = plain(v) as MailerEvent['message']
        },
      },
    },
  )
}

/** `onMailerSend`: every mail, before it is handed over (skipping `e.next()` sends nothing). */
export function mailerEventOf(e: MailerEvent): object {
  return strict('e', mailBase(e))
}

/**
 * `onMailerRecord…Send`: an auth mail for `e.record`, with `e.meta` (token, newEmail, …); no
 * `e.collection`, as PocketBase's (`e.record.collection()`).
 */
export function mailerRecordEventOf(e: MailerRecordEvent): object {
  const base = mailBase(e)
  base.meta = e.meta
  return strict(
    'e',
    live(base, {
      record: recordMember(
        () => e.collection,
        () => e.record,
        (r) => (e.record = r),
      ),
    }),
  )
}

/** `onCollectionCreate`/`Update`/`Delete` and their `…AfterSuccess`: the collection as JSON. */
export function collectionEventOf(e: CollectionEvent | CollectionSuccessEvent): object {
  return strict('e', {
    app: appFacade((): App => e.app),
    collection: pbCollectionOf(e.collection),
    next: nextOf(e),
  })
}

/** `onCollectionViewRequest` / `onCollectionDeleteRequest`: the collection as JSON (read it). */
export function collectionRequestEventOf(e: CollectionRequestEvent): object {
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collection: pbCollectionOf(e.collection),
  })
}

/** `onCollectionsListRequest`: the page's collections (as JSON: read them) and `e.result`. */
export function collectionsListEventOf(e: CollectionsListRequestEvent): object {
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collections: e.collections.map((c) => new PbCollection(c)),
    result: e.result,
  })
}

/**
 * `onCollectionCreateRequest` / `onCollectionUpdateRequest`: `e.collection` is PocketBase's
 * collection as it will be saved (an update's: the stored one with the submitted values over
 * it). What the handler changes in it before `e.next()` is submitted with the rest; nothing else
 * of it is (so a partial update stays partial).
 */
export function collectionWriteRequestEventOf(e: CollectionWriteRequestEvent): object {
  const id = typeof e.collection.id === 'string' ? e.collection.id : ''
  const stored = id !== '' ? e.app.registry.find(id) : undefined
  const collection = new PbCollection({
    ...(stored ? collectionToJSON(stored) : {}),
    ...e.collection,
  })
  const before = snapshot(collection)
  return strict('e', {
    ...requestMembers(e),
    request: hookRequest(e.requestInfo),
    collection,
    next: (): void => {
      enqueue('e.next', () => {
        const after = snapshot(collection)
        for (const [k, v] of Object.entries(after))
          if (before[k] !== v) e.collection[k] = JSON.parse(v) as unknown
        return e.next()
      })
    },
  })
}

/** Each key of a collection as its JSON text. */
function snapshot(c: PbCollection): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of Object.entries(c.toJSON())) out[k] = JSON.stringify(v) ?? 'null'
  return out
}

/** `onCollectionsImportRequest`: the submitted `e.collectionsData` and `e.deleteMissing`. */
export function collectionsImportEventOf(e: CollectionsImportRequestEvent): object {
  return strict(
    'e',
    live(
      { ...requestMembers(e), request: hookRequest(e.requestInfo) },
      {
        collectionsData: {
          get: () => e.collectionsData,
          set: (v) => (e.collectionsData = plain(v)),
        },
        deleteMissing: { get: () => e.deleteMissing, set: (v) => (e.deleteMissing = v === true) },
      },
    ),
  )
}
