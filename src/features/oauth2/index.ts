/**
 * OAuth2 / OpenID Connect sign-in for auth collections (reference §1.6): provider configs in
 * `authOptions.oauth2.providers` (validated, client secrets write-only), the `oauth2` service
 * `auth-methods` lists providers with, `auth-with-oauth2`, the all-in-one flow's
 * `/api/oauth2-redirect`, and the superuser list of presets.
 */
import type { Feature } from '../../http/feature.js'
import { badRequest, messages } from '../../core/errors.js'
import { keepClientSecrets, validateOAuth2Options } from './providers.js'
import { registerAuthWithOAuth2 } from './routes/auth-with-oauth2.js'
import { registerProviders } from './routes/providers.js'
import { registerRedirect } from './routes/redirect.js'
import { OAuth2Service } from './service.js'
import { oauth2Settings } from './settings.js'

/** The oauth2 feature. */
export function oauth2Feature(): Feature {
  return {
    name: 'oauth2',
    register: ({ app, http }) => {
      app.registerSettingsGroup(oauth2Settings)
      const service = new OAuth2Service(app)
      app.services.set('oauth2', service)
      // Apple's posted name, asked by the instance that exchanges the code (docs/scaling.md).
      let stopAnswering: (() => void) | null = null
      app.hooks.onServe.bind(async (e) => {
        stopAnswering ??= service.client.answerRedirectNames()
        await e.next()
      })
      app.hooks.onTerminate.bind(async (e) => {
        stopAnswering?.()
        stopAnswering = null
        await e.next()
      })
      for (const hook of [app.hooks.onCollectionCreate, app.hooks.onCollectionUpdate]) {
        hook.bind(async (e) => {
          const o = e.collection.authOptions?.oauth2
          const same =
            e.original?.authOptions &&
            JSON.stringify(e.original.authOptions.oauth2) === JSON.stringify(o)
          if (o && !same) {
            const before = e.original?.authOptions?.oauth2.providers
            if (Array.isArray(o.providers) && Array.isArray(before))
              keepClientSecrets(o.providers, before)
            const errors = validateOAuth2Options(e.collection)
            if (Object.keys(errors).length > 0)
              throw badRequest(
                e.original ? messages.collectionUpdateFailed : messages.collectionCreateFailed,
                { authOptions: { oauth2: errors } },
              )
          }
          await e.next()
        })
      }
      registerProviders(http)
      registerAuthWithOAuth2(http, app, service)
      registerRedirect(http, app, service)
    },
  }
}
