import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { finishAuth } from '../../../core/auth/flow.js'
import { badRequest, forbidden, messages } from '../../../core/errors.js'
import { authCollectionResolver, mfaIdOf, sendAuth } from '../../../http/auth-reply.js'
import { readBody } from '../../../http/body.js'
import { requestInfo } from '../../../http/request-info.js'
import type { OAuth2Service } from '../service.js'

/**
 * `POST /api/collections/{c}/auth-with-oauth2`: code exchange, user, record resolution, then
 * the common end of a sign-in (authRule, MFA with `oauth2` as the factor, alerts) answering
 * the auth response with PocketBase's `meta`.
 */
export function registerAuthWithOAuth2(http: FastifyInstance, app: App, oauth2: OAuth2Service) {
  const authCollection = authCollectionResolver(app)
  http.post<{ Params: { collection: string } }>(
    '/api/collections/:collection/auth-with-oauth2',
    { config: { rateLimitTags: ['authWithOAuth2', 'auth'] } },
    async (req, reply) => {
      const c = authCollection(req.params.collection)
      if (!c.authOptions!.oauth2.enabled) throw forbidden(messages.oauth2NotAllowed)
      const { values } = await readBody(req)
      const info = requestInfo(req, values, 'oauth2')
      const input = await oauth2.readInput(c, values)
      return sendAuth(reply, async () => {
        const provider = await oauth2.provider(c, input.provider)
        if (!provider || provider.tokenURL === '') throw badRequest(messages.oauth2TokenFailed)
        const { user, meta } = await oauth2.fetchUser(provider, input)
        const { record, isNew } = await oauth2.resolveRecord(c, provider, user, input, info)
        return finishAuth(app, c, record, info, 'oauth2', mfaIdOf(req, values), {
          ...meta,
          isNew,
        })
      })
    },
  )
}
