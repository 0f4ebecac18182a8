import type { App } from '../../core/app.js'
import type { CronMirror } from '../../core/cron/mirror.js'
import type { CronJobInfo } from '../../core/cron/types.js'
import { SYSTEM_JOB_PREFIX } from '../../core/cron/system-jobs.js'
import { ApiError, forbidden, messages, notFound } from '../../core/errors.js'

/** A job as `GET /api/crons` lists it (PocketBase's shape). */
export interface CronListItem {
  id: string
  expression: string
}

/**
 * How long `POST /api/crons/{id}` waits for the run to end before it answers 204 anyway (the run
 * goes on; `_cron_jobs` shows its outcome once it ends).
 */
export const RUN_NOW_WAIT_MS = 30_000

/** True for svcbase's own jobs (`__svc…`), listed after the others as PocketBase does. */
export const isSystemJob = (id: string): boolean => id.startsWith(SYSTEM_JOB_PREFIX)

/** Every job: the others first, sorted by id, then svcbase's own, sorted by id (reference §7). */
export function listJobs(app: App): CronListItem[] {
  const jobs = app.cron.list().map((j) => ({ id: j.id, expression: j.expression }))
  return [...jobs.filter((j) => !isSystemJob(j.id)), ...jobs.filter((j) => isSystemJob(j.id))]
}

/** The id PocketBase gives svcbase's job `__svcX__`: `__pbX__` (e.g. `__pbLogsCleanup__`). */
const PB_ALIAS = /^__pb(.+)__$/

/**
 * The job `id` names: a job of that id, else for PocketBase's ids of the built-in jobs
 * (`__pbDBOptimize__`, `__pbLogsCleanup__`, `__pbAutoBackup__`, …) svcbase's own job of the same
 * name (`__svcDBOptimize__`, …), so scripts written for PocketBase run them; `GET /api/crons` lists
 * svcbase's ids only.
 */
export function findJob(app: App, id: string): CronJobInfo | undefined {
  const jobs = app.cron.list()
  const exact = jobs.find((j) => j.id === id)
  if (exact) return exact
  const alias = PB_ALIAS.exec(id)
  if (!alias) return undefined
  const own = `${SYSTEM_JOB_PREFIX}${alias[1]}__`
  return jobs.find((j) => j.id === own)
}

/**
 * Runs a job now (`id` or its PocketBase alias, see {@link findJob}): 404 for an unknown id, 409
 * while a run of it is going (runs never overlap).
 * Resolves once the run ended and `_cron_jobs` shows it, or after `waitMs` with the run going.
 */
export async function runJob(
  app: App,
  mirror: CronMirror,
  id: string,
  waitMs = RUN_NOW_WAIT_MS,
): Promise<void> {
  const job = findJob(app, id)
  if (!job) throw notFound(messages.cronJobMissing)
  if (job.running) throw new ApiError(409, messages.cronJobRunning({ id: job.id }))
  let timer: NodeJS.Timeout | undefined
  const waited = new Promise<'waited'>((resolve) => {
    timer = setTimeout(() => resolve('waited'), waitMs)
  })
  const outcome = await Promise.race([app.cron.runNow(job.id), waited]).finally(() =>
    clearTimeout(timer),
  )
  if (outcome === false) throw new ApiError(409, messages.cronJobRunning({ id: job.id }))
  if (outcome === true) await mirror.flush()
}

/**
 * The records API may read `_cron_jobs` (superusers) but never write it: its rows mirror the
 * scheduler. Bound on the record request hooks (the records API and batch items) before every
 * other handler; the mirror writes through the record service, below these hooks.
 */
export function bindReadOnlyCronJobs(app: App, collection: string): void {
  const options = {
    id: '__svcCronJobsReadOnly__',
    priority: -1_000_000,
    func: (): never => {
      throw forbidden(messages.cronJobsReadOnly)
    },
  }
  app.hooks.onRecordCreateRequest.bind(options, [collection])
  app.hooks.onRecordUpdateRequest.bind(options, [collection])
  app.hooks.onRecordDeleteRequest.bind(options, [collection])
}
