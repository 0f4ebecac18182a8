import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { badRequest, hasErrors, messages } from '../../../core/errors.js'
import { featureHook } from '../../../core/hooks-features.js'
import { requestEvent, triggerRequest } from '../../../core/request-event.js'
import { deepMerge } from '../../../core/settings/merge.js'
import type { SettingsValidationContext } from '../../../core/settings/index.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import { validateIpList } from '../../../http/superuser-ips.js'
import { withChanges } from '../hooks.js'
import { isFormBody, nullGroupErrors, pocketBasePatch } from './pocketbase.js'

/** Reads a PATCH body that must be a JSON object (or empty); anything else is a 400. */
async function readPatch(req: FastifyRequest): Promise<Record<string, unknown>> {
  // NB: JSON `null` parses to null, which readBody takes for "no body".
  if (req.body === null) throw badRequest(messages.loadFailed)
  const { values } = await readBody(req).catch((err: unknown) => {
    throw badRequest(messages.loadFailed, {}, err)
  })
  return values
}

/** What settings validation needs from the app: collection names and the IP-list check. */
function validationContext(app: App): SettingsValidationContext {
  return {
    collectionExists: (name) =>
      app.collections.find(name)?.name.toLowerCase() === name.toLowerCase(),
    checkIpList: validateIpList,
  }
}

/**
 * `GET /api/settings` and `PATCH /api/settings` (superuser, SPEC §4.7): the stored settings with
 * write-only secrets left out, one group per registered settings group. PATCH deep-merges onto the stored settings (an omitted secret
 * keeps its value, `""` clears it), validates the result per field and applies it at once:
 * services read the settings per call, and a `settings` event goes out on the bus. Both run
 * inside their hook family (`onSettingsListRequest`, `onSettingsUpdateRequest`, ../hooks.ts).
 */
export function registerSettings(app: App, http: FastifyInstance): void {
  http.get('/api/settings', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    const hook = featureHook(app, 'onSettingsListRequest')
    if (!hook?.length) return app.settings.withoutSecrets()
    const event = requestEvent(app, info, { settings: app.settings.withoutSecrets() })
    return sendHookResponse(
      reply,
      await triggerRequest(hook, event, (e) => e.json(200, e.settings)),
    )
  })

  const save = async (patch: Record<string, unknown>) => {
    const ctx = validationContext(app)
    const next = await app.settings.update(patch, (merged) => {
      const errors = app.settings.validate(patch, merged, ctx)
      if (hasErrors(errors)) {
        throw badRequest(
          messages.settingsSaveFailed,
          nullGroupErrors(app, patch, merged, errors, ctx),
        )
      }
    })
    return app.settings.withoutSecrets(next)
  }

  http.patch('/api/settings', async (req, reply) => {
    const info = requestInfo(req)
    requireSuperuser(info)
    const body = await readPatch(req)
    const groups = Object.keys(app.settings.get())
    const patch = isFormBody(req) ? {} : pocketBasePatch(body, groups)
    const hook = featureHook(app, 'onSettingsUpdateRequest')
    if (!hook?.length) return save(patch)
    // The save inside `onSettingsUpdateRequest` (../hooks.ts), the handlers' changes added.
    const shown = deepMerge(app.settings.withoutSecrets(), patch)
    const event = requestEvent(app, info, {
      oldSettings: app.settings.withoutSecrets(),
      newSettings: structuredClone(shown),
    })
    const answer = await triggerRequest(hook, event, async (e) =>
      e.json(200, await save(withChanges(patch, shown, e.newSettings))),
    )
    return sendHookResponse(reply, answer)
  })
}
