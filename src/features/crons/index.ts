import { CRON_JOBS_COLLECTION, CronMirror, type CronMirrorOptions } from '../../core/cron/mirror.js'
import { addSystemJobs } from '../../core/cron/system-jobs.js'
import type { Feature } from '../../http/feature.js'
import { registerRoutes } from './routes/crons.js'
import { bindReadOnlyCronJobs } from './service.js'

export { CRON_STATUS } from '../../core/cron/mirror.js'

/** The crons feature of one app, the `crons` service: `app.services.get('crons')`. */
export interface CronsFeature {
  /** Writes every pending `_cron_jobs` change now; resolves once stored. */
  flush(): Promise<void>
}

declare module '../../core/services.js' {
  interface AppServices {
    /** The `_cron_jobs` mirror (set by `features/crons`). */
    crons: CronsFeature
  }
}

/**
 * The crons feature: svcbase's own jobs that belong to no other feature (`__svcDBOptimize__`,
 * `__svcMFACleanup__`, `__svcOTPCleanup__`), the crons API (`GET /api/crons`,
 * `POST /api/crons/{id}`), and `_cron_jobs` kept as a mirror of `app.cron` while the app serves
 * (brought in step at every start, stale rows removed; flushed before the databases close),
 * read-only through the records API.
 */
export function cronsFeature(options: CronMirrorOptions = {}): Feature {
  return {
    name: 'crons',
    register: ({ app, http }) => {
      addSystemJobs(app)
      const mirror = new CronMirror(app, options)
      bindReadOnlyCronJobs(app, CRON_JOBS_COLLECTION)
      app.hooks.onServe.bind(async (e) => {
        await e.next()
        await mirror.start()
      })
      app.hooks.onTerminate.bind(async (e) => {
        // The runs going end first, so their outcome is written before the databases close.
        await app.cron.stop()
        await mirror.stop()
        await e.next()
      })
      app.services.set('crons', { flush: () => mirror.flush() })
      registerRoutes(app, http, mirror)
    },
  }
}
