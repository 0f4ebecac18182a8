import { timingSafeEqual } from 'node:crypto'
import type { App } from '../../core/app.js'
import { countSuperusers, systemRequest } from '../../core/auth/superusers.js'
import { badRequest, messages, validationError } from '../../core/errors.js'
import { SUPERUSERS, type RecordData } from '../../core/request-info.js'

/** True for a loopback client address, which may set up without the token. */
export const isLoopback = (ip: string): boolean =>
  ip === '::1' || ip.startsWith('127.') || ip === '::ffff:127.0.0.1'

/** Compares two secrets in constant time. */
export function sameSecret(a: string, b: string): boolean {
  const [x, y] = [Buffer.from(a), Buffer.from(b)]
  return x.length === y.length && timingSafeEqual(x, y)
}

/** True while no superuser exists. */
export async function needsSetup(app: App): Promise<boolean> {
  return (await countSuperusers(app)) === 0
}

/**
 * Creates the first superuser (verified) from `{email, password, passwordConfirm}`, in one
 * transaction that refuses with 400 once a superuser exists; returns the stored record.
 */
export async function createFirstSuperuser(
  app: App,
  values: Record<string, unknown>,
): Promise<RecordData> {
  const c = app.collections.get(SUPERUSERS)
  const body = {
    email: values.email,
    password: values.password,
    passwordConfirm: values.passwordConfirm,
    verified: true,
  }
  const created = await app.runInTransaction(async (tx) => {
    if ((await countSuperusers(tx)) > 0) {
      throw badRequest(messages.setupDone, {
        email: validationError('validation_setup_done'),
      })
    }
    return tx.records.create(c, body, systemRequest(tx))
  })
  return (await app.records.findById(c, String(created.id))) ?? created
}
