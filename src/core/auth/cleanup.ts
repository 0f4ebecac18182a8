/**
 * The cleanup jobs of the sign-in tables (PocketBase's `__pbMFACleanup__` and
 * `__pbOTPCleanup__`): an `_mfas` or `_otps` row expires `mfa.duration` / `otp.duration` seconds
 * after its `created`, by the options of the auth collection it belongs to (`collectionRef`), as
 * sign-in checks it (`flow.ts`, `otp.ts`). Expired rows can never be used again; the jobs delete
 * them, and the rows of collections that are no auth collection any more.
 */
import { ident, join, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import type { AuthOptions } from '../collections/model.js'

/** The job ids and expressions (PocketBase's: hourly, on the hour, UTC). */
export const MFA_CLEANUP_JOB_ID = '__svcMFACleanup__'
export const OTP_CLEANUP_JOB_ID = '__svcOTPCleanup__'
export const AUTH_CLEANUP_EXPRESSION = '0 * * * *'

/** Deletes the expired rows of `table` (`_mfas` or `_otps`) at `now`; returns how many. */
async function deleteExpired(
  app: App,
  table: '_mfas' | '_otps',
  now: Date,
  duration: (options: AuthOptions) => number,
): Promise<number> {
  if (!app.collections.find(table)) return 0
  const auth = app.collections.all().filter((c) => c.type === 'auth' && c.authOptions)
  const t = ident(table)
  const ref = ident('collectionRef')
  const created = ident('created')
  let total = 0
  for (const c of auth) {
    const cutoff = formatDate(new Date(now.getTime() - duration(c.authOptions!) * 1000))
    const { changes } = await app.db.run(
      sql`DELETE FROM ${t} WHERE ${ref} = ${c.id} AND ${created} < ${cutoff}`,
    )
    total += changes
  }
  const ids = auth.map((c) => sql`${c.id}`)
  const orphans = ids.length
    ? sql`DELETE FROM ${t} WHERE ${ref} NOT IN (${join(ids)})`
    : sql`DELETE FROM ${t}`
  total += (await app.db.run(orphans)).changes
  return total
}

/** Deletes the expired `_mfas` rows; returns how many. */
export function deleteExpiredMfas(app: App, now: Date = new Date()): Promise<number> {
  return deleteExpired(app, '_mfas', now, (o) => o.mfa.duration)
}

/** Deletes the expired `_otps` rows; returns how many. */
export function deleteExpiredOtps(app: App, now: Date = new Date()): Promise<number> {
  return deleteExpired(app, '_otps', now, (o) => o.otp.duration)
}

/** Adds both cleanup jobs to the app's scheduler. */
export function addAuthCleanupJobs(app: App): void {
  app.cron.add(MFA_CLEANUP_JOB_ID, AUTH_CLEANUP_EXPRESSION, async () => {
    await deleteExpiredMfas(app)
  })
  app.cron.add(OTP_CLEANUP_JOB_ID, AUTH_CLEANUP_EXPRESSION, async () => {
    await deleteExpiredOtps(app)
  })
}
