import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { badRequest } from '../../core/errors.js'
import { publicSettings } from '../../core/settings-secrets.js'
import { readBody } from '../../http/body.js'
import { requireSuperuser } from '../../http/guards.js'
import { requestInfo } from '../../http/request-info.js'

/**
 * `GET /api/settings` and `PATCH /api/settings` (superuser): the stored settings with write-only
 * secrets left out; PATCH deep-merges, so an omitted secret keeps its value.
 */
export function register(app: App, http: FastifyInstance): void {
  http.get('/api/settings', async (req) => {
    requireSuperuser(requestInfo(req))
    return publicSettings(app.settings.get())
  })

  http.patch('/api/settings', async (req) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req).catch((err: unknown) => {
      throw badRequest('An error occurred while loading the submitted data.', {}, err)
    })
    return publicSettings(await app.settings.update(values))
  })
}
