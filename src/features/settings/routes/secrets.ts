import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { isObject } from '../../../core/settings/index.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'

/** The value at a dotted path of the settings, or undefined. */
function valueAt(settings: object, path: string): unknown {
  let node: unknown = settings
  for (const k of path.split('.')) node = isObject(node) ? node[k] : undefined
  return node
}

/**
 * `GET /api/settings/secrets` (superuser): for every write-only settings key, whether a value is
 * stored — `{"smtp.password": true, "s3.secret": false, …}` — so a client (the dashboard) can show
 * "set" or "not set" without the value ever being sent. A key is set when it holds anything but
 * an empty string.
 */
export function registerSettingsSecrets(app: App, http: FastifyInstance): void {
  http.get('/api/settings/secrets', async (req) => {
    requireSuperuser(requestInfo(req))
    const settings = app.settings.get()
    const out: Record<string, boolean> = {}
    for (const path of app.settings.secretPaths()) {
      const v = valueAt(settings, path)
      out[path] = v !== undefined && v !== null && v !== ''
    }
    return out
  })
}
