/**
 * The auth-collection checks of a record write that answer together with the other field errors
 * (one 400, as PocketBase does): `passwordConfirm`, `oldPassword`, and what only a manager may
 * change (`verified`, `email`). They stay in the save pipeline rather than in hooks, because a
 * hook runs after validation and could not add its errors to the same answer. The rest of the
 * auth behaviour (tokenKey rotation, the last-superuser guard, cascades) is bound as hooks by
 * `core/auth/record-hooks.ts`.
 */
import type { App } from '../app.js'
import { checkOldPassword } from '../auth/password-change.js'
import type { Collection } from '../collections/model.js'
import { messages, validationError } from '../errors.js'
import { SUPERUSERS, type RecordData, type RequestInfo } from '../request-info.js'
import { ErrorSet } from './error-set.js'
import { checkPasswordConfirm } from './input.js'

/**
 * The auth checks of a create, before the transaction: `passwordConfirm` goes to `errors`; what a
 * non-superuser may not set is returned apart, for `checkCreatorManages` to decide once the
 * manageRule can see the inserted record.
 */
export function checkAuthCreate(
  collection: Collection,
  record: RecordData,
  body: Record<string, unknown>,
  passwords: Map<string, unknown>,
  superuser: boolean,
  errors: ErrorSet,
): ErrorSet {
  const unmanaged = new ErrorSet()
  if (collection.type !== 'auth') return unmanaged
  // A superuser is created verified, as PocketBase 0.40.4 does (only superusers create them).
  if (collection.name === SUPERUSERS) record.verified = true
  if (!superuser) rejectUnmanaged(record, undefined, unmanaged)
  errors.merge(checkPasswordConfirm(body, passwords.get('password')))
  return unmanaged
}

/**
 * After the insert, inside the create's transaction: a creator who set what only managers may
 * (`unmanaged` not empty) must manage the new record, else the create fails with those errors.
 */
export async function checkCreatorManages(
  tx: App,
  collection: Collection,
  record: RecordData,
  request: RequestInfo,
  unmanaged: ErrorSet,
): Promise<void> {
  if (unmanaged.isEmpty) return
  const managed = await tx.records.managedIds(collection, [record], request)
  if (!managed.has(String(record.id))) unmanaged.throwIf(messages.recordCreateFailed)
}

/** What an update's auth checks look at. */
export interface AuthUpdate {
  original: RecordData
  record: RecordData
  body: Record<string, unknown>
  /** The plain passwords the body submitted. */
  passwords: Map<string, unknown>
  info: RequestInfo
}

/**
 * The auth checks of an update, inside its transaction: a non-manager may not change `verified`
 * or `email`, and must give the right `oldPassword` to change the password; a new password needs
 * a matching `passwordConfirm`. Superusers and those passing the manageRule are managers.
 */
export async function checkAuthUpdate(
  tx: App,
  collection: Collection,
  update: AuthUpdate,
  superuser: boolean,
  errors: ErrorSet,
): Promise<void> {
  if (collection.type !== 'auth') return
  const { original, record, body, passwords, info } = update
  const manager =
    superuser ||
    (await tx.records.managedIds(collection, [original], info)).has(String(original.id))
  if (!manager) rejectUnmanaged(record, original, errors)
  if (!passwords.has('password')) return
  errors.merge(checkPasswordConfirm(body, passwords.get('password')))
  if (!manager)
    errors.add('oldPassword', await checkOldPassword(original.password, body.oldPassword))
}

/** Non-managers may not verify themselves or change their email directly (reference §1.7). */
function rejectUnmanaged(
  record: RecordData,
  original: RecordData | undefined,
  errors: ErrorSet,
): void {
  if (original ? record.verified !== original.verified : record.verified === true) {
    errors.add('verified', validationError('validation_values_mismatch'))
  }
  if (original && record.email !== original.email) {
    errors.add('email', validationError('validation_values_mismatch'))
  }
}
