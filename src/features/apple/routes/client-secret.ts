import type { FastifyInstance } from 'fastify'
import { badRequest, messages } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { generateClientSecret, validateClientSecretInput } from '../service.js'

/**
 * `POST /api/settings/apple/generate-client-secret` (superuser, reference §11) → 200 `{secret}`;
 * 400 `Invalid client secret data.` with field errors, or `Failed to generate client secret.`
 * with the raw error when the key cannot be used.
 */
export function registerClientSecret(http: FastifyInstance): void {
  http.post('/api/settings/apple/generate-client-secret', async (req) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req)
    const input = validateClientSecretInput(values)
    try {
      return { secret: await generateClientSecret(input) }
    } catch (err) {
      const raw = err instanceof Error ? err.message : String(err)
      throw badRequest(messages.appleSecretRawError({ raw }), {}, err)
    }
  })
}
