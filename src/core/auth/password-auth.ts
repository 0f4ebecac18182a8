import { bcryptPool } from '../../tools/bcrypt-pool.js'
import { isEmail } from '../fields/email.js'
import { verifyPassword } from '../fields/password.js'
import { ident, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import {
  badRequest,
  forbidden,
  messages,
  validationError,
  type ValidationErrors,
} from '../errors.js'
import { recordSatisfies, ruleCondition } from '../records/query.js'
import { emailEquals, requiredText } from './lookup.js'
import type { RecordData, RequestInfo } from '../request-info.js'

// NB: compared against for unknown identities, so a miss costs the same time as a wrong password.
let dummyHash: Promise<string> | null = null
const DUMMY_HASH = (): Promise<string> =>
  (dummyHash ??= bcryptPool.hash('svcbase-timing-guard', 10))

/** Validates the auth-with-password body (reference §1.4). */
export function checkPasswordBody(
  c: Collection,
  body: Record<string, unknown>,
): { identity: string; password: string; identityField: string } {
  const errors: ValidationErrors = {}
  const identity = requiredText(body, 'identity', 255, errors)
  const password = requiredText(body, 'password', 255, errors)
  const identityField = typeof body.identityField === 'string' ? body.identityField : ''
  if (identityField !== '' && !c.authOptions?.passwordAuth.identityFields.includes(identityField)) {
    errors.identityField = validationError('validation_in_invalid')
  }
  if (Object.keys(errors).length > 0) throw badRequest(messages.validationFailed, errors)
  return { identity, password, identityField }
}

/** What an auth-with-password body names: its checked values and the record (or null). */
export interface PasswordIdentity {
  record: RecordData | null
  identity: string
  password: string
  identityField: string
}

/** Finds the auth record for an identity and password, in constant-ish time; throws 400 on failure. */
export async function authenticateWithPassword(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<RecordData> {
  const found = await findPasswordIdentity(app, c, body)
  return checkRecordPassword(found.record, found.password)
}

/**
 * Checks an auth-with-password body (403 when password auth is off, 400 for bad values) and
 * looks its identity up; the record is null when none has it. The password is not checked yet.
 */
export async function findPasswordIdentity(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<PasswordIdentity> {
  if (!c.authOptions?.passwordAuth.enabled) throw forbidden(messages.passwordAuthNotAllowed)
  const { identity, password, identityField } = checkPasswordBody(c, body)
  const fields = identityField
    ? [identityField]
    : [...c.authOptions.passwordAuth.identityFields].sort((a) => (a === 'email' ? -1 : 1))
  let record: RecordData | undefined
  for (const name of fields) {
    // As PocketBase: without an explicit identityField, a non-email identity skips the email.
    if (name === 'email' && !identityField && !isEmail(identity)) continue
    const match =
      name === 'email'
        ? emailEquals(app.db.dialect, c, ident(name), identity)
        : sql`${ident(name)} = ${identity}`
    const row = await app.db.get<{ id: string }>(
      sql`SELECT id FROM ${ident(c.name)} WHERE ${match} LIMIT 1`,
    )
    if (row) {
      record = await app.records.findById(c, row.id)
      break
    }
  }
  return { record: record ?? null, identity, password, identityField }
}

/**
 * Checks `password` against the record's hash, or against a dummy hash when there is no record
 * (so a miss costs the same time); 400 `Failed to authenticate.` when it fails.
 */
export async function checkRecordPassword(
  record: RecordData | null,
  password: string,
): Promise<RecordData> {
  const stored =
    typeof record?.password === 'string' && record.password !== ''
      ? record.password
      : await DUMMY_HASH()
  const ok = await verifyPassword(password, stored)
  if (!record || !ok) throw badRequest(messages.authFailed)
  return record
}

/** Checks the collection's authRule for a record about to be authenticated. */
export async function checkAuthRule(
  app: App,
  c: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<void> {
  const rule = c.authOptions?.authRule ?? null
  if (rule === null) throw forbidden(messages.authRequirementsNotMet)
  if (rule.trim() === '') return
  const asRecord: RequestInfo = { ...info, auth: { record, collection: c } }
  const condition = ruleCondition(app, c, 'authRule', asRecord)
  if (!(await recordSatisfies(app, c, String(record.id), condition)))
    throw forbidden(messages.authRequirementsNotMet)
}
