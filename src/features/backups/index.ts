import type { Feature } from '../../http/feature.js'
import { addBackupHooks } from './hooks.js'
import { registerRoutes } from './routes/backups.js'
import { BackupsService, DEFAULT_MAX_UPLOAD_BYTES, type BackupsOptions } from './service.js'

export {
  AUTO_JOB_ID,
  BACKUPS_DIR,
  BackupsService,
  type BackupItem,
  type BackupsOptions,
  type StorageInfo,
} from './service.js'
import { backupsMessages } from './messages.js'
export { AUTO_PREFIX } from './names.js'
export type { BackupEvent } from './hooks.js'

declare module '../../core/services.js' {
  interface AppServices {
    /** Backups of this app (set by `features/backups`); health reads `canBackup` from it. */
    backups: BackupsService
  }
}

/**
 * The backups feature (SPEC §4.9): ZIP archives of consistent database snapshots and the local
 * storage tree, kept in `<dataDir>/backups/` or on S3 per `settings.backups.s3`; download with a
 * superuser file token; restore validates the archive, answers 204 and restarts the server in
 * process (the `restart` service) with its data; the automatic job `__svcAutoBackup__` follows
 * `settings.backups.cron` live and keeps the newest `cronMaxKeep` automatic archives. Its hook
 * families `onBackupCreate` and `onBackupRestore` are declared and created here (`hooks.ts`).
 */
export function backupsFeature(options: BackupsOptions = {}): Feature {
  return {
    name: 'backups',
    messages: backupsMessages,
    register: ({ app, http }) => {
      addBackupHooks(app)
      const backups = new BackupsService(app, options)
      app.services.set('backups', backups)
      let unsubscribe = (): void => undefined
      let unapply = (): void => undefined
      const sync = (): void => {
        try {
          backups.syncAutoJob()
        } catch (err) {
          app.logger.error('the automatic backup job could not follow the settings', {
            error: String(err),
          })
        }
      }
      app.hooks.onServe.bind(async (e) => {
        await backups.removeStaleTemp()
        backups.syncAutoJob()
        // A PATCH here: the job follows before the PATCH is answered (SPEC §4.7 rule 2).
        unapply = app.settings.onApply(sync)
        // Another instance's change (and a reload): the bus brings it.
        unsubscribe = app.events.subscribe((event) => {
          if (event.kind === 'settings' && app.isBootstrapped) sync()
        })
        await e.next()
      })
      app.hooks.onTerminate.bind(async (e) => {
        unapply()
        unsubscribe()
        backups.stopAutoJob()
        await backups.close()
        await e.next()
      })
      registerRoutes(app, http, backups, options.maxUploadBytes ?? DEFAULT_MAX_UPLOAD_BYTES)
    },
  }
}
