import type { Feature } from '../../http/feature.js'
import { addFileHooks } from './hooks.js'
import { registerDownload } from './routes/download.js'
import { registerFileToken } from './routes/token.js'
import { createThumbnails } from './service.js'

/**
 * The files feature (SPEC §4.4): `POST /api/files/token` and the rule-gated downloads of
 * `GET /api/files/{collection}/{recordId}/{filename}`, with thumbnails made once per app; its
 * hook families `onFileDownloadRequest` and `onFileTokenRequest` are declared in `hooks.ts`.
 */
export function filesFeature(): Feature {
  return {
    name: 'files',
    register: ({ app, http }) => {
      addFileHooks(app)
      registerFileToken(app, http)
      registerDownload(app, http, createThumbnails())
    },
  }
}
