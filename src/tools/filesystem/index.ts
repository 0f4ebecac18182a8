/** Object storage: the Filesystem interface with its local-disk and S3 drivers. */
export * from './types.js'
export { assertKey, assertPrefix, keyProblem, MAX_KEY_BYTES } from './keys.js'
export { LocalFilesystem } from './local.js'
export { LazyS3Filesystem, probeS3Lazily } from './lazy-s3.js'
// NB: the S3 driver itself (`./s3.js`) is imported directly where needed, so loading this
// index never loads the AWS SDK.
export type { ProbeOptions, S3Config } from './s3.js'
