/**
 * svcbase's own scheduled jobs that belong to no feature (PocketBase's `__pbDBOptimize__`,
 * `__pbMFACleanup__`, `__pbOTPCleanup__`, with the same expressions). The request log cleanup
 * (`__svcLogsCleanup__`), the rate-limit pruning and the auto backup are added by their features.
 */
import type { App } from '../app.js'
import { addAuthCleanupJobs } from '../auth/cleanup.js'

/** The id prefix of svcbase's own jobs. */
export const SYSTEM_JOB_PREFIX = '__svc'

/** The database upkeep job: daily at midnight UTC. */
export const DB_OPTIMIZE_JOB_ID = '__svcDBOptimize__'
export const DB_OPTIMIZE_EXPRESSION = '0 0 * * *'

/** Adds the database upkeep and the MFA and OTP cleanups to the app's scheduler. */
export function addSystemJobs(app: App): void {
  app.cron.add(DB_OPTIMIZE_JOB_ID, DB_OPTIMIZE_EXPRESSION, () => app.store.optimize())
  addAuthCleanupJobs(app)
}
