import type { Feature } from '../../http/feature.js'
import { registerDownload } from './routes/download.js'
import { registerFileToken } from './routes/token.js'
import { createThumbnails } from './service.js'

/**
 * The files feature (SPEC §4.4): `POST /api/files/token` and the rule-gated downloads of
 * `GET /api/files/{collection}/{recordId}/{filename}`, with thumbnails made once per app.
 */
export function filesFeature(): Feature {
  return {
    name: 'files',
    register: ({ app, http }) => {
      registerFileToken(http)
      registerDownload(app, http, createThumbnails())
    },
  }
}
