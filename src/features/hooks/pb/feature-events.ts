/**
 * The events of the features' hook families (realtime, settings, files, batch, backups) as a
 * `*.pb.js` handler receives them, shaped as PocketBase's (`core.RealtimeMessageEvent`,
 * `core.SettingsUpdateRequestEvent`, `core.FileDownloadRequestEvent`, `core.BatchRequestEvent`,
 * `core.BackupEvent`, …) over svcbase's own events. The families are the features' own
 * (`core/hooks-features.ts`): their event types come through `FeatureHookEvent`, so nothing here
 * imports a feature. The members PocketBase lets a handler change (`e.message`, `e.subscriptions`,
 * `e.settings`, `e.newSettings`, `e.servedPath`, `e.servedName`, `e.token`, `e.batch`,
 * `e.name`, `e.exclude`) write through to svcbase's event, which the built-in action then uses;
 * any other member throws, naming it.
 */
import type { App } from '../../../core/app.js'
import type { FeatureHookEvent as Ev } from '../../../core/hooks-features.js'
import { messages } from '../../../core/errors.js'
import { appFacade } from './app-facade.js'
import { pbCollectionOf } from './collection.js'
import { goDuration, nanosOf } from './duration.js'
import { hookRequest, plain, requestMembers } from './events.js'
import { enqueue } from './invocation.js'
import { byteArray } from './os.js'
import { pbRecord } from './record.js'
import { PbUnsupportedError, strict } from './unsupported.js'

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
const nextOf = (e: { next(): Promise<void> }) => (): void => {
  enqueue('e.next', () => e.next())
}

/** A plain object a handler may set (anything else keeps the value). */
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Text as PocketBase's byte array (`[]byte` in Go: an array of numbers in a script). */
const bytesOf = (text: string): number[] => byteArray([...Buffer.from(text, 'utf8')])

/** A value a script set as bytes: a string as it is, a byte array decoded. */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v
  if (Array.isArray(v)) return Buffer.from(v.map((n) => Number(n) & 0xff)).toString('utf8')
  if (v === null || v === undefined) return ''
  return typeof v === 'object' ? JSON.stringify(v) : `${v as number}`
}

/** A request event's members PocketBase's request events have. */
function request(e: Parameters<typeof requestMembers>[0]): Record<string, unknown> {
  return { ...requestMembers(e), request: hookRequest(e.requestInfo) }
}

// --- realtime ----------------------------------------------------------------------------

type ClientInfo = Ev<'onRealtimeMessageSend'>['client']

/** PocketBase's `subscriptions.Client`: its id and subscriptions, read-only. */
function realtimeClient(client: ClientInfo): object {
  return strict('e.client', {
    id: (): string => client.id,
    subscriptions: (...prefixes: unknown[]): Record<string, object> => {
      const out: Record<string, object> = {}
      for (const [name, s] of client.subscriptions)
        if (prefixes.length === 0 || prefixes.some((p) => name.startsWith(String(p))))
          out[name] = { query: { ...s.query }, headers: { ...s.headers } }
      return out
    },
    hasSubscription: (name: unknown): boolean => client.subscriptions.has(String(name)),
    isDiscarded: (): boolean => client.closed,
  })
}

/** PocketBase's default `idleTimeout` (5 minutes) and `maxTimeout` (30 minutes), in ns. */
const REALTIME_TIMEOUTS = { idleTimeout: 300e9, maxTimeout: 1800e9 }

/**
 * `onRealtimeConnectRequest`: the client about to connect; `e.idleTimeout`/`e.maxTimeout` are
 * Go durations with PocketBase's defaults, settable, but svcbase's streams have no such timeouts
 * (a stream lasts until the client leaves or its auth expires), so a value set has no effect.
 */
export function realtimeConnectEventOf(e: Ev<'onRealtimeConnectRequest'>): object {
  const timeouts = { ...REALTIME_TIMEOUTS }
  const timeout = (name: keyof typeof timeouts) => ({
    get: () => goDuration(timeouts[name]),
    set: (v: unknown) => {
      const ns = nanosOf(v)
      if (ns === null)
        throw new Error(messages.pbBadArgument({ name: `e.${name}`, expected: 'a duration' }))
      timeouts[name] = ns
    },
  })
  return strict(
    'e',
    live(
      { ...request(e), client: realtimeClient(e.client) },
      { idleTimeout: timeout('idleTimeout'), maxTimeout: timeout('maxTimeout') },
    ),
  )
}

/** `onRealtimeSubscribeRequest`: `e.subscriptions` as the client will have them. */
export function realtimeSubscribeEventOf(e: Ev<'onRealtimeSubscribeRequest'>): object {
  return strict(
    'e',
    live(
      { ...request(e), client: realtimeClient(e.client) },
      {
        subscriptions: {
          get: () => e.subscriptions,
          set: (v) => {
            if (Array.isArray(v)) e.subscriptions = v.map((s) => textOf(s))
          },
        },
      },
    ),
  )
}

/** `onRealtimeMessageSend`: `e.message` `{name, data}`, `data` as bytes, as PocketBase's. */
export function realtimeMessageEventOf(e: Ev<'onRealtimeMessageSend'>): object {
  const message = strict(
    'e.message',
    live(
      {},
      {
        name: { get: () => e.message.name, set: (v) => (e.message.name = textOf(v)) },
        data: { get: () => bytesOf(e.message.data), set: (v) => (e.message.data = textOf(v)) },
      },
    ),
  )
  return strict('e', {
    app: appFacade((): App => e.app),
    client: realtimeClient(e.client),
    message,
    next: nextOf(e),
  })
}

// --- settings ----------------------------------------------------------------------------

/** `onSettingsListRequest`: `e.settings`, the copy the answer sends. */
export function settingsListEventOf(e: Ev<'onSettingsListRequest'>): object {
  return strict(
    'e',
    live(request(e), {
      settings: {
        get: () => e.settings,
        set: (v) => {
          if (isObj(v)) e.settings = plain(v) as Record<string, unknown>
        },
      },
    }),
  )
}

/** `onSettingsUpdateRequest`: `e.oldSettings` (read them) and `e.newSettings` (change them). */
export function settingsUpdateEventOf(e: Ev<'onSettingsUpdateRequest'>): object {
  return strict(
    'e',
    live(request(e), {
      oldSettings: { get: () => e.oldSettings },
      newSettings: {
        get: () => e.newSettings,
        set: (v) => {
          if (isObj(v)) e.newSettings = plain(v) as Record<string, unknown>
        },
      },
    }),
  )
}

/** `onSettingsReload`: the app. */
export function settingsReloadEventOf(e: Ev<'onSettingsReload'>): object {
  return strict('e', { app: appFacade((): App => e.app), next: nextOf(e) })
}

// --- files -------------------------------------------------------------------------------

/** `onFileDownloadRequest`: the record, its file field, and what is served under which name. */
export function fileDownloadEventOf(e: Ev<'onFileDownloadRequest'>): object {
  const collection = pbCollectionOf(e.collection)
  return strict(
    'e',
    live(
      {
        ...request(e),
        collection,
        record: pbRecord(e.collection, e.record),
        fileField: collection.fields.getByName(e.fileField.name),
      },
      {
        servedPath: { get: () => e.servedPath, set: (v) => (e.servedPath = textOf(v)) },
        servedName: { get: () => e.servedName, set: (v) => (e.servedName = textOf(v)) },
        thumbError: { get: () => e.thumbError },
      },
    ),
  )
}

/** `onFileTokenRequest`: the authenticated record and the token answered. */
export function fileTokenEventOf(e: Ev<'onFileTokenRequest'>): object {
  return strict(
    'e',
    live(
      { ...request(e), collection: null, record: pbRecord(e.recordCollection, e.record) },
      { token: { get: () => e.token, set: (v) => (e.token = textOf(v)) } },
    ),
  )
}

// --- batch -------------------------------------------------------------------------------

type BatchItem = Ev<'onBatchRequest'>['batch'][number]

/** One item of `e.batch`: `{method, url, body, headers}` over svcbase's item. */
function batchItem(item: BatchItem): object {
  return strict(
    'e.batch[]',
    live(
      {},
      {
        method: { get: () => item.method, set: (v) => (item.method = textOf(v)) },
        url: { get: () => item.url, set: (v) => (item.url = textOf(v)) },
        body: {
          get: () => item.body,
          set: (v) => (item.body = isObj(v) ? (plain(v) as never) : {}),
        },
        headers: {
          get: () => item.headers,
          set: (v) => {
            const out: Record<string, string> = {}
            if (isObj(v)) for (const [k, h] of Object.entries(v)) out[k] = textOf(h)
            item.headers = out
          },
        },
      },
    ),
  )
}

/**
 * `onBatchRequest`: `e.batch`, the items as they will run; change them in place (assigning a
 * new list changes nothing, as in PocketBase 0.40.4).
 */
export function batchEventOf(e: Ev<'onBatchRequest'>): object {
  const items = e.batch.map(batchItem)
  return strict('e', live(request(e), { batch: { get: () => items } }))
}

// --- backups -----------------------------------------------------------------------------

/** `onBackupCreate`: the archive's name (`""` for the default) and what no archive holds. */
export function backupCreateEventOf(e: Ev<'onBackupCreate'>): object {
  return strict(
    'e',
    live(
      { app: appFacade((): App => e.app), next: nextOf(e) },
      {
        name: { get: () => e.name, set: (v) => (e.name = textOf(v)) },
        exclude: {
          get: () => e.exclude,
          set: (v) => {
            if (Array.isArray(v)) e.exclude = v.map((x) => textOf(x))
          },
        },
      },
    ),
  )
}

/** `onBackupRestore`: the archive being restored, already checked (its name cannot change). */
export function backupRestoreEventOf(e: Ev<'onBackupRestore'>): object {
  return fixedBackupEventOf(e, 'onBackupRestore')
}

/** `onBackupDelete` (svcbase's): the archive being deleted (its name cannot change). */
export function backupDeleteEventOf(e: Ev<'onBackupDelete'>): object {
  return fixedBackupEventOf(e, 'onBackupDelete')
}

function fixedBackupEventOf(e: Ev<'onBackupRestore'>, hook: string): object {
  return strict(
    'e',
    live(
      { app: appFacade((): App => e.app), next: nextOf(e) },
      {
        name: {
          get: () => e.name,
          set: () => {
            throw new PbUnsupportedError(`e.name (changed in ${hook})`)
          },
        },
        exclude: { get: () => e.exclude },
      },
    ),
  )
}
