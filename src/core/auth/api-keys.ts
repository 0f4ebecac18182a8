import { createHash } from 'node:crypto'
import { ident, sql } from '../../store/sql.js'
import { formatDate, nowDate, parseDate } from '../../tools/dates.js'
import { randomString } from '../../tools/ids.js'
import type { App } from '../app.js'
import type { AuthInfo } from '../request-info.js'
import type { Collection } from '../collections/model.js'
import { AFTER_USER_HOOKS, bindAuthCascade } from './cascade.js'
import { systemRequest } from './superusers.js'

/** The name of the API keys collection. */
export const API_KEYS = '_api_keys'

/** Every API key starts with this prefix, which tells it apart from a JWT. */
export const API_KEY_PREFIX = 'svc_'

/** The number of random `[A-Za-z0-9]` characters after the prefix (about 238 bits). */
const KEY_LENGTH = 40

/** `lastUsed` is written at most once per this many milliseconds per key. */
const TOUCH_INTERVAL_MS = 60_000

/** What `POST /api/api-keys` answers: the key itself appears only here. */
export interface MintedApiKey {
  id: string
  name: string
  key: string
  expires: string
  created: string
}

/** Binds the cascade that deletes a deleted auth record's API keys (`bindAuthCascade`). */
export function bindApiKeyCascade(app: App): void {
  bindAuthCascade(app, API_KEYS)
}

/**
 * Deletes API keys through the record service (hooks and events fire for each, so whatever
 * follows deleted keys, realtime streams included, sees them go), in the caller's transaction:
 * the keys of one record, or of a whole collection when `recordId` is undefined.
 */
async function revokeApiKeys(app: App, c: Collection, recordId?: string): Promise<void> {
  const keys = app.registry.find(API_KEYS)
  if (!keys) return
  const rows = await app
    .dbFor(keys)
    .all<{ id: string }>(
      recordId === undefined
        ? sql`SELECT id FROM ${ident(keys.name)} WHERE "collectionRef" = ${c.id}`
        : sql`SELECT id FROM ${ident(keys.name)} WHERE "collectionRef" = ${c.id} AND "recordRef" = ${recordId}`,
    )
  const su = systemRequest(app)
  for (const row of rows) await app.records.delete(keys, row.id, su)
}

/**
 * Binds the revocation of API keys with the tokens they stand beside, in the same transaction
 * as the change, after user handlers (ids `__svcAuthApiKeyRevocation` and
 * `__svcAuthApiKeySecretRevocation`): an auth record whose `tokenKey` changed (a password or
 * email change rotates it) loses its keys; an auth collection whose `authToken.secret` changed
 * loses every key of its records.
 */
export function bindApiKeyRevocation(app: App): void {
  app.hooks.onRecordUpdate.bind({
    id: '__svcAuthApiKeyRevocation',
    priority: AFTER_USER_HOOKS,
    func: async (e) => {
      await e.next()
      const { collection, record, original } = e
      if (collection.type !== 'auth' || !original || record.tokenKey === original.tokenKey) return
      await revokeApiKeys(e.app, collection, String(record.id))
    },
  })
  app.hooks.onCollectionUpdate.bind({
    id: '__svcAuthApiKeySecretRevocation',
    priority: AFTER_USER_HOOKS,
    func: async (e) => {
      await e.next()
      const before = e.original?.authOptions?.authToken.secret
      const after = e.collection.authOptions?.authToken.secret
      if (e.collection.type !== 'auth' || before === undefined || before === after) return
      await revokeApiKeys(e.app, e.collection)
    },
  })
}

/** The SHA-256 hex digest of a key: the only form stored. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex')
}

/** True when a bearer token has the shape of an API key (not a JWT). */
export function isApiKey(token: string): boolean {
  return token.startsWith(API_KEY_PREFIX)
}

/**
 * Mints an API key for an auth record (DECISIONS "API keys"): stores a `_api_keys` row with the
 * key's SHA-256, the owner's `recordRef` and `collectionRef` and `expires` (now + `duration`
 * seconds; no expiry when 0 or absent), through the record service as a trusted internal write.
 * The plain key is returned once and kept nowhere. Input is assumed validated.
 */
export async function mintApiKey(
  app: App,
  auth: AuthInfo,
  input: { name: string; duration?: number },
): Promise<MintedApiKey> {
  const key = API_KEY_PREFIX + randomString(KEY_LENGTH)
  const duration = input.duration ?? 0
  const expires = duration > 0 ? formatDate(new Date(Date.now() + duration * 1000)) : ''
  const row = await app.records.create(
    app.collections.get(API_KEYS),
    {
      name: input.name,
      keyHash: hashApiKey(key),
      recordRef: String(auth.record.id),
      collectionRef: auth.collection.id,
      expires,
    },
    systemRequest(app),
  )
  const text = (v: unknown): string => (typeof v === 'string' ? v : '')
  return {
    id: text(row.id),
    name: text(row.name),
    key,
    expires: text(row.expires),
    created: text(row.created),
  }
}

/**
 * Resolves an API key to its owner, or null for an unknown, expired or orphaned key (the caller
 * is then a guest). Looks the row up by its hash (a unique index); `lastUsed` is refreshed at
 * most once a minute, off the request path, and a failure there never fails the request.
 * `recent` (key id → last touch in ms) is kept by the caller across calls so that a burst of
 * requests writes `lastUsed` once.
 */
export async function resolveApiKey(
  app: App,
  key: string,
  recent: Map<string, number> = new Map(),
): Promise<AuthInfo | null> {
  if (!isApiKey(key) || key.length !== API_KEY_PREFIX.length + KEY_LENGTH) return null
  const keys = app.collections.get(API_KEYS)
  const column = ident('keyHash')
  // NB: `!= ''` repeats the partial unique index's condition, so SQLite searches that index.
  const hit = await app
    .dbFor(keys)
    .get<{ id: string }>(
      sql`SELECT id FROM ${ident(keys.name)} WHERE ${column} = ${hashApiKey(key)} AND ${column} != '' LIMIT 1`,
    )
  const row = hit ? await app.records.findById(keys, hit.id) : undefined
  if (!row) return null
  const expires = parseDate(row.expires)
  if (expires && expires.getTime() <= Date.now()) return null
  const collection = app.collections.find(String(row.collectionRef))
  if (!collection || collection.type !== 'auth') return null
  const record = await app.records.findById(collection, String(row.recordRef))
  if (!record) return null
  touch(app, String(row.id), parseDate(row.lastUsed), recent)
  return { record, collection }
}

/** Schedules the `lastUsed` write when the stored and the in-memory stamps are both stale. */
function touch(app: App, id: string, lastUsed: Date | null, recent: Map<string, number>): void {
  const now = Date.now()
  if (lastUsed && now - lastUsed.getTime() < TOUCH_INTERVAL_MS) return
  if (now - (recent.get(id) ?? 0) < TOUCH_INTERVAL_MS) return
  if (recent.size > 10_000) {
    for (const [k, at] of recent) if (now - at >= TOUCH_INTERVAL_MS) recent.delete(k)
  }
  recent.set(id, now)
  setImmediate(() => {
    app.records
      .update(app.collections.get(API_KEYS), id, { lastUsed: nowDate() }, systemRequest(app))
      .catch((err: unknown) =>
        app.logger.warn('api key lastUsed update failed', { id, error: String(err) }),
      )
  })
}
