/**
 * `_push_subscriptions` (DECISIONS "Push send"): the checks of a row's shape per platform (web
 * needs `endpoint` + `keys{p256dh, auth}`, android and ios a `token`), `enabled` true unless the
 * body sets it, and the paged reads of the enabled rows a send goes to.
 */

import type { App } from '../../core/app.js'
import { systemRequest } from '../../core/auth/superusers.js'
import type { Collection } from '../../core/collections/model.js'
import {
  badRequest,
  hasErrors,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import { isSuperuser, type RecordData } from '../../core/request-info.js'
import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import { literalRefusal } from '../../tools/ssrf.js'
import type { PushTarget } from './backend.js'

export const SUBSCRIPTIONS = '_push_subscriptions'
export const PLATFORMS = ['web', 'android', 'ios'] as const
export type Platform = (typeof PLATFORMS)[number]
/** Rows read per page while fanning out. */
export const PAGE_SIZE = 500
const MAX_ENDPOINT = 2048
const MAX_TOKEN = 4096

/** Decodes base64url or base64 (padded or not), as browsers send either; null when neither. */
function lenientBase64(text: unknown): Buffer | null {
  if (typeof text !== 'string' || !/^[A-Za-z0-9_\-+/]+={0,2}$/.test(text)) return null
  return Buffer.from(text.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, ''), 'base64url')
}

/**
 * The field errors of a subscription row, per its platform. With `checkAddress`, a web endpoint
 * on a non-public address literal or a `localhost` name is refused (every endpoint is resolved
 * and checked again at each send, `web.ts`).
 */
export function checkSubscription(record: RecordData, checkAddress: boolean): ValidationErrors {
  const errors: ValidationErrors = {}
  const platform = record.platform
  if (platform === 'web') {
    const endpoint = typeof record.endpoint === 'string' ? record.endpoint : ''
    if (endpoint === '') errors.endpoint = validationError('validation_required')
    else if (endpoint.length > MAX_ENDPOINT)
      errors.endpoint = validationError('validation_length_too_long', { max: MAX_ENDPOINT })
    else if (!isHttpsUrl(endpoint)) errors.endpoint = validationError('validation_is_url')
    else {
      const refusal = checkAddress ? literalRefusal(new URL(endpoint)) : undefined
      if (refusal)
        errors.endpoint = validationError('validation_invalid_value:reason', { reason: refusal })
    }
    const keys = record.keys
    if (keys === null || keys === undefined || keys === '')
      errors.keys = validationError('validation_required')
    else if (typeof keys !== 'object' || Array.isArray(keys))
      errors.keys = validationError('validation_invalid_value:object')
    else {
      const k = keys as Record<string, unknown>
      const keyErrors: ValidationErrors = {}
      const p256dh = lenientBase64(k.p256dh)
      if (k.p256dh === undefined || k.p256dh === '')
        keyErrors.p256dh = validationError('validation_required')
      else if (!p256dh || p256dh.length !== 65 || p256dh[0] !== 4)
        keyErrors.p256dh = validationError('validation_invalid_value')
      const auth = lenientBase64(k.auth)
      if (k.auth === undefined || k.auth === '')
        keyErrors.auth = validationError('validation_required')
      else if (!auth || auth.length !== 16)
        keyErrors.auth = validationError('validation_invalid_value')
      if (hasErrors(keyErrors)) errors.keys = keyErrors
    }
  } else if (platform === 'android' || platform === 'ios') {
    const token = typeof record.token === 'string' ? record.token : ''
    if (token === '') errors.token = validationError('validation_required')
    else if (token.length > MAX_TOKEN)
      errors.token = validationError('validation_length_too_long', { max: MAX_TOKEN })
  }
  return errors
}

function isHttpsUrl(s: string): boolean {
  try {
    const u = new URL(s)
    return u.protocol === 'https:' && u.hostname !== ''
  } catch {
    return false
  }
}

const allowPrivate = (app: App): boolean => app.settings.get().push.allowPrivateNetworks

/**
 * Binds the checks on `_push_subscriptions` writes (any path: the records API, batch, hooks,
 * internal): a new row is enabled unless its body says otherwise; a row whose shape does not fit
 * its platform is refused with 400 and field errors.
 */
export function bindSubscriptionChecks(app: App): void {
  app.hooks.onRecordCreate.bind(
    {
      id: '__svcPushSubscriptionCreate',
      priority: -1000,
      func: async (e) => {
        if (!('enabled' in e.request.body)) e.record.enabled = true
        const auth = e.request.auth
        if (!('collectionRef' in e.request.body) && auth && !isSuperuser(e.request))
          e.record.collectionRef = auth.collection.id
        const errors = checkSubscription(e.record, !allowPrivate(app))
        if (hasErrors(errors)) throw badRequest(messages.recordCreateFailed, errors)
        await e.next()
      },
    },
    [SUBSCRIPTIONS],
  )
  app.hooks.onRecordUpdate.bind(
    {
      id: '__svcPushSubscriptionUpdate',
      priority: -1000,
      func: async (e) => {
        // A stored endpoint is checked again only when it changes (a row disabled by a send must
        // save even if the setting changed since).
        const moved = e.original?.endpoint !== e.record.endpoint
        const errors = checkSubscription(e.record, moved && !allowPrivate(app))
        if (hasErrors(errors)) throw badRequest(messages.recordUpdateFailed, errors)
        await e.next()
      },
    },
    [SUBSCRIPTIONS],
  )
}

/** Which subscriptions a send goes to. */
export interface TargetFilter {
  platform?: Platform
  /** Only rows whose `recordRef` is one of these (absent: every row). */
  recordRefs?: string[]
  /**
   * Only rows of this auth collection (by id), and rows stored before `collectionRef` existed
   * that no start could attribute (empty).
   */
  collectionRef?: string
}

/** A row as a backend needs it. */
function toTarget(row: RecordData): PushTarget {
  let keys: unknown = row.keys
  if (typeof keys === 'string') {
    try {
      keys = JSON.parse(keys)
    } catch {
      keys = undefined
    }
  }
  const k = keys && typeof keys === 'object' ? (keys as Record<string, unknown>) : undefined
  return {
    id: String(row.id),
    platform: row.platform as Platform,
    endpoint: typeof row.endpoint === 'string' && row.endpoint !== '' ? row.endpoint : undefined,
    keys:
      k && typeof k.p256dh === 'string' && typeof k.auth === 'string'
        ? { p256dh: k.p256dh, auth: k.auth }
        : undefined,
    token: typeof row.token === 'string' && row.token !== '' ? row.token : undefined,
  }
}

/**
 * Reads the enabled subscriptions that match, a page of {@link PAGE_SIZE} rows at a time (keyset
 * paging by id, so a fan-out to many rows never holds them all), calling `each` per page until
 * it answers false.
 */
export async function forEachTargetPage(
  app: App,
  filter: TargetFilter,
  each: (targets: PushTarget[]) => Promise<boolean>,
): Promise<void> {
  const c = app.collections.find(SUBSCRIPTIONS)
  if (!c) return
  if (filter.recordRefs && filter.recordRefs.length === 0) return
  const db = app.dbFor(c)
  let after = ''
  for (;;) {
    const conditions: Sql[] = [
      sql`${ident('enabled')} = ${param(true)}`,
      sql`${ident('id')} > ${param(after)}`,
    ]
    if (filter.platform) conditions.push(sql`${ident('platform')} = ${param(filter.platform)}`)
    if (filter.recordRefs) {
      const refs = filter.recordRefs.map((r) => param(r))
      conditions.push(sql`${ident('recordRef')} IN (${join(refs)})`)
    }
    if (filter.collectionRef !== undefined)
      conditions.push(
        sql`${ident('collectionRef')} IN (${param(filter.collectionRef)}, ${param('')})`,
      )
    const rows = await db.all<RecordData>(
      sql`SELECT ${ident('id')}, ${ident('platform')}, ${ident('endpoint')}, ${ident('keys')}, ${ident('token')} FROM ${ident(c.name)} WHERE ${join(conditions, ' AND ')} ORDER BY ${ident('id')} LIMIT ${param(PAGE_SIZE)}`,
    )
    if (rows.length === 0) return
    if (!(await each(rows.map(toTarget)))) return
    if (rows.length < PAGE_SIZE) return
    after = String(rows[rows.length - 1]!.id)
  }
}

/** Disables a subscription the push service reported gone (through the record service). */
export async function disableSubscription(app: App, c: Collection, id: string): Promise<void> {
  await app.records.update(c, id, { enabled: false }, systemRequest(app))
}

/**
 * Rows stored before `collectionRef` existed have it empty, and the owner rules then hide them
 * from their owner: each gets the auth collection that holds a record with its `recordRef`, when
 * exactly one does (an id found in two auth collections stays empty: superusers decide). Runs at
 * every start; only empty rows are touched.
 */
export async function backfillCollectionRefs(app: App): Promise<void> {
  const c = app.collections.find(SUBSCRIPTIONS)
  if (!c || !c.fields.some((f) => f.name === 'collectionRef')) return
  const db = app.dbFor(c)
  const pending = await db.get(
    sql`SELECT 1 AS one FROM ${ident(c.name)} WHERE ${ident('collectionRef')} = '' LIMIT 1`,
  )
  if (!pending) return
  const auths = app.collections.all().filter((a) => a.type === 'auth')
  await app.runInTransaction(async (tx) => {
    const txDb = tx.dbFor(c)
    for (const a of auths) {
      const others = auths
        .filter((o) => o.id !== a.id)
        .map(
          (o) =>
            sql` AND ${ident('recordRef')} NOT IN (SELECT ${ident('id')} FROM ${ident(o.name)})`,
        )
      await txDb.run(
        sql`UPDATE ${ident(c.name)} SET ${ident('collectionRef')} = ${param(a.id)} WHERE ${ident('collectionRef')} = '' AND ${ident('recordRef')} IN (SELECT ${ident('id')} FROM ${ident(a.name)})${join(others, '')}`,
      )
    }
  })
}
