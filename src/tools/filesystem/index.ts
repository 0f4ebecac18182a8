/** Object storage: the Filesystem interface with its local-disk and S3 drivers. */
export * from './types.js'
export { assertKey, assertPrefix, keyProblem, MAX_KEY_BYTES } from './keys.js'
export { LocalFilesystem } from './local.js'
export {
  createS3Client,
  describeS3Error,
  probeS3,
  S3Filesystem,
  type ProbeOptions,
  type S3Config,
} from './s3.js'
