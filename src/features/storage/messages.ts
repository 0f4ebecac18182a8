/**
 * Messages of file storage with several instances (`features/storage`, docs/scaling.md): files
 * must be on S3 when instances on several machines share one database.
 */
import type { Args, Entry } from '../../core/errors/catalogue.js'

/** Top-level messages of file storage shared by several instances. */
export const storageMessages = {
  storageLocalShared: ({ count }: Args<'count'>) =>
    `Several instances share this database (${count} running): files must be on S3, not on this instance's local disk. Enable settings.s3 while one instance runs, then start the others.` as const,
  storageS3Required: ({ count }: Args<'count'>) =>
    `Several instances share this database (${count} running): files must stay on S3, so s3.enabled cannot be turned off. Stop the other instances first.` as const,
} as const satisfies Record<string, Entry>

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    storage: typeof storageMessages
  }
}
