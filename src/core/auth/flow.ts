import { createHash } from 'node:crypto'
import { sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import { ApiError, badRequest, messages } from '../errors.js'
import { recordSatisfies, ruleContext } from '../records/query.js'
import { serializeRecord } from '../records/serialize.js'
import { requestEvent, triggerRequest, type HookResponse } from '../request-event.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import { compileFilter } from '../rules/index.js'
import { formatDate } from '../../tools/dates.js'
import { sendRecordEmail } from './emails.js'
import { bindAuthCascade } from './cascade.js'
import { checkAuthRule } from './password-auth.js'
import { systemRequest } from './superusers.js'
import { authToken } from './tokens.js'

/** The sign-in methods that count as MFA factors. */
export type AuthMethod = 'password' | 'otp' | 'oauth2'

/** Thrown after a first factor when MFA is required: answered 401 `{mfaId}`. */
export class MfaRequiredError extends Error {
  constructor(readonly mfaId: string) {
    super('MFA required')
    this.name = 'MfaRequiredError'
  }
}

/** The auth response of reference §1.2. */
export interface AuthResponse {
  token: string
  record: Record<string, unknown>
  meta?: Record<string, unknown>
}

/** The auth response for a record: a token and the record, its email shown to itself. */
export async function authResponse(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
  refreshable = true,
  duration?: number,
): Promise<AuthResponse> {
  const token = await authToken(c, record, refreshable, duration)
  return { token, record: await presentSelf(app, c, record, info) }
}

/** A record as it sees itself (email shown). */
async function presentSelf(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<Record<string, unknown>> {
  const self: RequestInfo = { ...info, auth: { record, collection: c } }
  const [out] = await app.records.present(c, [record], self)
  return out ?? serializeRecord(c, record, self, { showEmail: true })
}

/** How `recordAuthResponse` answers. */
export interface AuthAnswerOptions {
  /** A refreshable token (default); impersonation tokens are not. */
  refreshable?: boolean
  /** Token lifetime in seconds, instead of the collection's. */
  duration?: number
  /** The token to answer instead of a new one (a refresh keeps an API key or static token). */
  token?: string
  meta?: Record<string, unknown> | null
  /** Runs in the built-in action, before the answer (the new-location alert). */
  beforeAnswer?: (record: RecordData) => Promise<void>
}

/**
 * The answer of a successful sign-in through `onRecordAuthRequest` (tagged with the collection):
 * the event carries the record, the token (new unless given), `meta` and the auth method; the
 * built-in action answers `{token, record, meta?}` with the record as it sees itself.
 */
export async function recordAuthResponse(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
  authMethod: AuthMethod | '',
  opts: AuthAnswerOptions = {},
): Promise<HookResponse> {
  const token = opts.token ?? (await authToken(c, record, opts.refreshable ?? true, opts.duration))
  const fields = { collection: c, record, token, meta: opts.meta ?? null, authMethod }
  return triggerRequest(
    app.hooks.onRecordAuthRequest,
    requestEvent(app, info, fields),
    async (e) => {
      await opts.beforeAnswer?.(e.record)
      const out = await presentSelf(e.app, e.collection, e.record, e.requestInfo)
      e.json(200, { token: e.token, record: out, ...(e.meta ? { meta: e.meta } : {}) })
    },
    [c.id, c.name],
  )
}

/**
 * Binds the cascades of the tables sign-in fills, `_mfas` and `_authOrigins`: a deleted auth
 * record's rows there go with it (`bindAuthCascade`).
 */
export function bindSignInCascades(app: App): void {
  bindAuthCascade(app, '_mfas')
  bindAuthCascade(app, '_authOrigins')
}

function mfaRequired(c: Collection): boolean {
  const o = c.authOptions!
  return o.mfa.enabled || (c.name === '_superusers' && o.otp.enabled)
}

async function mfaApplies(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<boolean> {
  const rule = c.authOptions!.mfa.rule.trim()
  if (rule === '') return true
  try {
    const asRecord: RequestInfo = { ...info, auth: { record, collection: c } }
    const cond = compileFilter(rule, ruleContext(app, c, asRecord, false))
    return await recordSatisfies(app, c, String(record.id), cond)
  } catch {
    throw badRequest(messages.authFailed)
  }
}

/** Checks a second factor's `mfaId`, deleting the MFA session when it is used. */
async function consumeMfa(
  app: App,
  c: Collection,
  record: RecordData,
  mfaId: string,
  method: AuthMethod,
): Promise<void> {
  const mfas = app.collections.get('_mfas')
  const su = systemRequest(app)
  const row = await app.records.findById(mfas, mfaId)
  const expired =
    row &&
    Date.parse(String(row.created).replace(' ', 'T')) + c.authOptions!.mfa.duration * 1000 <
      Date.now()
  if (!row || expired) {
    if (row) await app.records.delete(mfas, mfaId, su)
    throw badRequest(messages.mfaSessionExpired)
  }
  if (row.collectionRef !== c.id || row.recordRef !== record.id)
    throw badRequest(messages.mfaSessionInvalid)
  if (row.method === method) throw badRequest(messages.mfaSameMethod)
  await app.records.delete(mfas, mfaId, su)
}

/**
 * The common end of every sign-in (reference §1.2): authRule, then MFA (a first factor answers
 * 401 `{mfaId}`, a second one presents that id), then `onRecordAuthRequest` around the
 * new-location alert and the answer with the token (and `meta`, OAuth2's).
 */
export async function finishAuth(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
  method: AuthMethod,
  mfaId: string,
  meta?: Record<string, unknown>,
): Promise<HookResponse> {
  const ctx: RequestInfo = { ...info, context: method }
  await checkAuthRule(app, c, record, ctx)
  if (mfaRequired(c) && (await mfaApplies(app, c, record, ctx))) {
    if (mfaId === '') {
      const created = await app.records.create(
        app.collections.get('_mfas'),
        { collectionRef: c.id, recordRef: record.id, method },
        systemRequest(app),
      )
      throw new MfaRequiredError(String(created.id))
    }
    await consumeMfa(app, c, record, mfaId, method)
  }
  return recordAuthResponse(app, c, record, info, method, {
    meta,
    beforeAnswer: (r) => authAlert(app, c, r, info),
  })
}

/** True for a field error saying the value is taken. */
const isNotUnique = (e: unknown): boolean =>
  typeof e === 'object' && e !== null && (e as { code?: unknown }).code === 'validation_not_unique'

/** Remembers sign-in origins and mails an alert for a new one (never the first sign-in). */
async function authAlert(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<void> {
  const origins = app.collections.get('_authOrigins')
  const ua = (info.headers.user_agent ?? '').slice(0, 200)
  const fingerprint = createHash('md5')
    .update(info.ip + ua)
    .digest('hex')
  const known = () =>
    app.db.all<{ id: string; fingerprint: string }>(
      sql`SELECT id, fingerprint FROM "_authOrigins" WHERE "collectionRef" = ${c.id} AND "recordRef" = ${String(record.id)} ORDER BY created`,
    )
  const rows = await known()
  if (rows.some((r) => r.fingerprint === fingerprint)) return
  const su = systemRequest(app)
  try {
    await app.records.create(
      origins,
      { collectionRef: c.id, recordRef: record.id, fingerprint },
      su,
    )
  } catch (err) {
    // Sign-ins from the same new origin at the same time: one of them recorded it first (maybe
    // in a commit still under way, which a read would not see yet: the unique index tells).
    if (err instanceof ApiError && isNotUnique(err.data.fingerprint)) return
    throw err
  }
  for (const old of rows.slice(0, Math.max(0, rows.length + 1 - 5)))
    await app.records.delete(origins, old.id, su)
  if (rows.length === 0 || !c.authOptions!.authAlert.enabled || !record.email) return
  const alert = `${formatDate(new Date())} - ${info.ip} ${ua}`
  sendRecordEmail(app, c, record, 'login-alert', { ALERT_INFO: alert }).catch((err: unknown) =>
    app.logger.error('failed to send the auth alert', { error: String(err) }),
  )
}
