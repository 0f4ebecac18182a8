import type { FastifyInstance } from 'fastify'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { PRESETS } from '../presets.js'

/**
 * `GET /api/collections/meta/oauth2-providers` (superuser; the SDK's
 * `collections.getAllOAuth2Providers()`): every preset with its default URLs, scopes and PKCE.
 */
export function registerProviders(http: FastifyInstance): void {
  http.get('/api/collections/meta/oauth2-providers', async (req) => {
    requireSuperuser(requestInfo(req))
    return Object.values(PRESETS).map((p) => ({
      name: p.name,
      displayName: p.displayName,
      authURL: p.authURL,
      tokenURL: p.tokenURL,
      userInfoURL: p.userInfoURL,
      scopes: p.scopes,
      pkce: p.pkce,
      oidc: p.oidc !== undefined,
      extra: p.oidc ? { issuer: p.oidc.issuer, jwksURL: p.oidc.jwksURL } : {},
    }))
  })
}
