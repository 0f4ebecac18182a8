import { isUrl, notUrl } from '../checks.js'
import { objectGroup } from '../group.js'
import type { SettingsReader } from '../reader.js'

/** `s3` and `backups.s3`: an S3-compatible bucket; while disabled the local disk is used. */
export type S3Settings = {
  enabled: boolean
  bucket: string
  region: string
  endpoint: string
  accessKey: string
  /** Write-only. */
  secret: string
  forcePathStyle: boolean
}

/** Fresh defaults of an S3 block: disabled, everything empty. */
export function s3Defaults(): S3Settings {
  return {
    enabled: false,
    bucket: '',
    region: '',
    endpoint: '',
    accessKey: '',
    secret: '',
    forcePathStyle: false,
  }
}

/** Checks an S3 block: every field but `forcePathStyle` required while enabled. */
export function checkS3(g: SettingsReader): void {
  const on = g.boolean('enabled')
  for (const key of ['bucket', 'region', 'accessKey', 'secret']) g.requiredString(key, on)
  const endpoint = g.requiredString('endpoint', on)
  if (endpoint !== undefined && !isUrl(endpoint)) g.fail('endpoint', notUrl())
  g.boolean('forcePathStyle')
}

/** The `s3` group (file storage); `secret` is write-only. */
export const s3Settings = objectGroup<S3Settings>({
  key: 's3',
  secrets: ['secret'],
  defaults: s3Defaults,
  check: checkS3,
})
