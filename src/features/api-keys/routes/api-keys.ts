import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { mintApiKey } from '../../../core/auth/api-keys.js'
import { forbidden, messages, unauthorized } from '../../../core/errors.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import { validateMintInput } from '../service.js'

/**
 * `POST /api/api-keys` (DECISIONS "API keys"): any authenticated record mints a key that
 * authenticates as itself → 200 `{id, name, key, expires, created}`; the key is shown only here.
 * Owners list and revoke their keys through the records API of `_api_keys`. A request made with
 * an API key cannot mint another one, so a key's expiry and revocation cannot be escaped.
 */
export function registerApiKeys(app: App, http: FastifyInstance): void {
  http.post('/api/api-keys', { config: { rateLimitTags: ['create'] } }, async (req) => {
    const { auth } = requestInfo(req)
    if (!auth) throw unauthorized(messages.authTokenRequired)
    if (req.svcApiKey) throw forbidden(messages.apiKeysCannotMint)
    const { values } = await readBody(req)
    return mintApiKey(app, auth, validateMintInput(values))
  })
}
