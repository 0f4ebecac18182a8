import type { Feature } from '../../http/feature.js'
import { registerObjects } from './routes/objects.js'
import { registerTestS3 } from './routes/test-s3.js'
import { registerUpload } from './routes/upload.js'
import { checkSharedStorage, guardSettingsPatch } from './shared.js'
import { storageMessages } from './messages.js'

export { MAX_KEY_LENGTH, MAX_UPLOAD_BYTES, validateObjectKey } from './service.js'
export { PROBE_TIMEOUT_MS } from './routes/test-s3.js'

/**
 * The storage feature: the object browser of SPEC §4.15 under `/api/storage/objects` and the S3
 * round-trip test `POST /api/settings/test/s3` (SPEC §4.7), all superuser only; and the rule of
 * several instances: files on S3 only (`shared.ts`).
 */
export function storageFeature(): Feature {
  return {
    name: 'storage',
    messages: storageMessages,
    register: ({ app, http }) => {
      registerObjects(app, http)
      registerUpload(app, http)
      registerTestS3(app, http)
      // Several instances on several machines: files on S3 only (shared.ts).
      guardSettingsPatch(app, http)
      app.hooks.onServe.bind({
        id: '__svcStorageShared__',
        func: async (e) => {
          await checkSharedStorage(app)
          await e.next()
        },
      })
    },
  }
}
