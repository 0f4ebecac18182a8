import type { Feature } from '../../http/feature.js'
import { registerUtils } from './routes/utils.js'
import { ImageCache } from './service.js'
import { utilsMessages } from './messages.js'

/**
 * The image utilities: `GET /api/utils/avatar` (identicon or initials, SVG or PNG) and
 * `GET /api/utils/qr` (SVG or PNG), public and cacheable (docs/utils.md).
 */
export function utilsFeature(): Feature {
  return {
    name: 'utils',
    messages: utilsMessages,
    register: ({ http }) => registerUtils(http, new ImageCache()),
  }
}
