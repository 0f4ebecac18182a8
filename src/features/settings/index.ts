import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { badRequest, type ValidationErrors } from '../../core/errors.js'
import { validateIpList } from '../../http/superuser-ips.js'
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
    const errors: ValidationErrors = {}
    if ('superuserIPs' in values) {
      const e = validateIpList(values.superuserIPs)
      if (Object.keys(e).length > 0) errors.superuserIPs = e
    }
    const limits = values.rateLimits
    if (typeof limits === 'object' && limits !== null && 'excludedIPs' in limits) {
      const e = validateIpList((limits as Record<string, unknown>).excludedIPs)
      if (Object.keys(e).length > 0) errors.rateLimits = { excludedIPs: e }
    }
    if (Object.keys(errors).length > 0)
      throw badRequest('An error occurred while saving the new settings.', errors)
    return publicSettings(await app.settings.update(values))
  })
}
