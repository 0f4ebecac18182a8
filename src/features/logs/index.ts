import type { FastifyRequest } from 'fastify'
import type { Feature } from '../../http/feature.js'
import { addCleanupJob, CLEANUP_EXPRESSION, CLEANUP_JOB_ID, cleanupLogs } from './cleanup.js'
import { requestLog, skipLog } from './request-log.js'
import { registerRoutes } from './routes/logs.js'
import { LogWriter, type LogWriterOptions } from './writer.js'

export { LogLevel, LogWriter, type LogWriterOptions } from './writer.js'
export { CLEANUP_EXPRESSION, CLEANUP_JOB_ID, cleanupLogs } from './cleanup.js'

/** The request log feature of one app, the `logs` service: `app.services.get('logs')`. */
export interface LogsFeature {
  /** The batched `_logs` writer (also usable for app logs: `writer.add(level, message, data)`). */
  readonly writer: LogWriter
  /** The retention job in `app.cron`: `{id: "__svcLogsCleanup__", expression}`. */
  readonly job: { id: string; expression: string }
  /** Writes every queued log now; resolves once stored. */
  flush(): Promise<void>
  /** Deletes the rows older than `settings.logs.maxDays`; returns how many. */
  cleanup(now?: Date): Promise<number>
}

declare module '../../core/services.js' {
  interface AppServices {
    /** The request log feature (set by `features/logs`). */
    logs: LogsFeature
  }
}

/**
 * The logs feature: request logging and the logs API; an `onResponse` hook on the root instance queues
 * one `_logs` row per answered request (not `/metrics`, not the realtime stream, not successful
 * logs API calls), written in batches by a `LogWriter`; `GET /api/logs`, `/api/logs/stats`,
 * `/api/logs/{id}`; and the hourly retention job on `app.cron`. The app's `onTerminate` flushes
 * the queue before the databases close, so closing the server loses nothing; `onServe` accepts
 * entries again after a restart.
 */
export function logsFeature(options: LogWriterOptions = {}): Feature {
  return {
    name: 'logs',
    register: ({ app, http }) => {
      const writer = new LogWriter(app, options)
      const errors = new WeakMap<FastifyRequest, Error>()
      const feature: LogsFeature = {
        writer,
        job: { id: CLEANUP_JOB_ID, expression: CLEANUP_EXPRESSION },
        flush: () => writer.flush(),
        cleanup: (now) => cleanupLogs(app, now),
      }
      addCleanupJob(app)
      app.hooks.onServe.bind(async (e) => {
        writer.open()
        await e.next()
      })
      app.hooks.onTerminate.bind(async (e) => {
        await writer.close()
        await e.next()
      })
      app.services.set('logs', feature)

      // NB: callback hooks: they run on every request and never wait for anything.
      http.addHook('onError', (req, _reply, err, done) => {
        errors.set(req, err)
        done()
      })
      http.addHook('onResponse', (req, reply, done) => {
        const settings = app.settings.get().logs
        // Cheap checks first: the writer would drop these anyway.
        if (settings.maxDays > 0 && !skipLog(req, reply.statusCode)) {
          const log = requestLog(req, reply, settings, errors.get(req))
          writer.add(log.level, log.message, log.data)
        }
        done()
      })
      registerRoutes(app, http)
    },
  }
}
