import type { FastifyInstance, FastifyReply } from 'fastify'
import type { App } from '../../../core/app.js'
import { finishAuth, MfaRequiredError } from '../../../core/auth/flow.js'
import type { Collection } from '../../../core/collections/model.js'
import { badRequest, forbidden, messages, notFound } from '../../../core/errors.js'
import type { HookResponse } from '../../../core/request-event.js'
import { readBody } from '../../../http/body.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import type { OAuth2Service } from '../service.js'

/** The auth collection of the path, or 404 with PocketBase's messages. */
function authCollection(app: App, name: string): Collection {
  const c = app.collections.find(name)
  if (!c) throw notFound(messages.invalidCollectionContext)
  if (c.type !== 'auth') throw notFound(messages.invalidAuthCollectionContext)
  return c
}

/** Sends an auth answer, turning a pending second factor into 401 `{mfaId}`. */
async function sendAuth(
  reply: FastifyReply,
  work: () => Promise<HookResponse>,
): Promise<FastifyReply> {
  try {
    return sendHookResponse(reply, await work())
  } catch (err) {
    if (err instanceof MfaRequiredError) return reply.code(401).send({ mfaId: err.mfaId })
    throw err
  }
}

/**
 * `POST /api/collections/{c}/auth-with-oauth2`: code exchange, user, record resolution, then
 * the common end of a sign-in (authRule, MFA with `oauth2` as the factor, alerts) answering
 * the auth response with PocketBase's `meta`.
 */
export function registerAuthWithOAuth2(http: FastifyInstance, app: App, oauth2: OAuth2Service) {
  http.post<{ Params: { collection: string } }>(
    '/api/collections/:collection/auth-with-oauth2',
    { config: { rateLimitTags: ['authWithOAuth2', 'auth'] } },
    async (req, reply) => {
      const c = authCollection(app, req.params.collection)
      if (!c.authOptions!.oauth2.enabled) throw forbidden(messages.oauth2NotAllowed)
      const { values } = await readBody(req)
      const info = requestInfo(req, values, 'oauth2')
      const input = await oauth2.readInput(c, values)
      return sendAuth(reply, async () => {
        const provider = await oauth2.provider(c, input.provider)
        if (!provider || provider.tokenURL === '') throw badRequest(messages.oauth2TokenFailed)
        const { user, meta } = await oauth2.fetchUser(provider, input)
        const { record, isNew } = await oauth2.resolveRecord(c, provider, user, input, info)
        const q = (req.query as Record<string, unknown>).mfaId
        const mfaId =
          typeof q === 'string' && q !== ''
            ? q
            : typeof values.mfaId === 'string'
              ? values.mfaId
              : ''
        return finishAuth(app, c, record, info, 'oauth2', mfaId, { ...meta, isNew })
      })
    },
  )
}
