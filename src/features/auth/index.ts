import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import { checkAuthRule, authenticateWithPassword } from '../../core/auth/password-auth.js'
import { authToken } from '../../core/auth/tokens.js'
import { forbidden, notFound, unauthorized } from '../../core/errors.js'
import type { Collection } from '../../core/collections/model.js'
import { serializeRecord } from '../../core/records/serialize.js'
import type { RecordData, RequestInfo } from '../../core/request-info.js'
import { readBody } from '../../http/body.js'
import { requestInfo } from '../../http/request-info.js'

type Params = { collection: string }

/** The auth response of reference §1.2: a token and the record, with its email shown. */
export async function authResponse(
  c: Collection,
  record: RecordData,
  info: RequestInfo,
  refreshable = true,
  duration?: number,
) {
  const token = await authToken(c, record, refreshable, duration)
  const self: RequestInfo = { ...info, auth: { record, collection: c } }
  return { token, record: serializeRecord(c, record, self, { showEmail: true }) }
}

/**
 * Auth endpoints needed so far: password sign-in and token refresh, for every auth collection.
 * The other flows of reference §1 (OTP, MFA, verification, reset, email change, impersonation)
 * arrive with the auth issue.
 */
export function register(app: App, http: FastifyInstance): void {
  const authCollection = (name: string): Collection => {
    const c = app.collections.find(name)
    if (!c) throw notFound('Missing or invalid collection context.')
    if (c.type !== 'auth') throw notFound('Missing or invalid auth collection context.')
    return c
  }

  http.post<{ Params: Params }>(
    '/api/collections/:collection/auth-with-password',
    { config: { rateLimitTags: ['authWithPassword', 'auth'] } },
    async (req) => {
      const c = authCollection(req.params.collection)
      const { values } = await readBody(req)
      const info = requestInfo(req, values, 'password')
      const record = await authenticateWithPassword(app, c, values)
      await checkAuthRule(app, c, record, info)
      return authResponse(c, record, info)
    },
  )

  http.post<{ Params: Params }>(
    '/api/collections/:collection/auth-refresh',
    { config: { rateLimitTags: ['authRefresh'] } },
    async (req) => {
      const c = authCollection(req.params.collection)
      const info = requestInfo(req)
      if (!info.auth) throw unauthorized('The request requires valid record authorization token.')
      if (info.auth.collection.id !== c.id)
        throw forbidden(`The request requires auth record from ${c.name} collection.`)
      await checkAuthRule(app, c, info.auth.record, info)
      return authResponse(c, info.auth.record, info)
    },
  )
}
