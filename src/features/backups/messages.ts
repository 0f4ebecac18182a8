/** Top-level messages of the backups API (`/api/backups…`). */
import type { Args } from '../../core/errors/catalogue.js'

/** Messages of the backups feature: archives, names, uploads and restores. */
export const backupsMessages = {
  backupBusy: 'Try again later - another backup/restore process has already been started.',
  backupsFilesystemFailed: 'Failed to load backups filesystem.',
  backupCreateFailed: 'Failed to create backup.',
  backupUploadFailed: 'Failed to upload backup.',
  backupMissing: 'Missing or invalid backup file.',
  backupDeleteMissing: 'Invalid or already deleted backup file.',
  backupDownloadForbidden: 'Insufficient permissions to access the resource.',
  backupInUse: 'The backup is currently being used and cannot be deleted.',
  backupArchiveInvalid: ({ reason }: Args<'reason'>) =>
    `The backup cannot be restored, nothing was changed: ${reason}` as const,
  backupEngineMismatch: ({ archive, server }: Args<'archive' | 'server'>) =>
    `The backup cannot be restored, nothing was changed: it was taken on ${archive} and this server runs on ${server}; a backup restores only on the database engine it was taken on.` as const,
  backupRestoreUnavailable:
    'This server cannot restart itself in process, so it cannot restore a backup.',
  backupRestoreShared: ({ count }: Args<'count'>) =>
    `Cannot restore a backup while ${count} server processes share this data (serve --workers or several instances): the others would keep serving the old data. Stop them and restore with one process.` as const,
} as const

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    backups: typeof backupsMessages
  }
}
