import { objectGroup } from '../../core/settings/index.js'

/** `oauth2`: how OAuth2 sign-in reaches addresses the provider names (the avatar URL). */
export type OAuth2Settings = {
  /**
   * Lets the avatar download reach loopback, private, link-local, CGNAT and ULA addresses (a
   * development or test setup); false refuses them (the SSRF guard), as for webhooks.
   */
  allowPrivateNetworks: boolean
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    oauth2: OAuth2Settings
  }
}

/** The `oauth2` group: private networks refused. */
export const oauth2Settings = objectGroup<OAuth2Settings>({
  key: 'oauth2',
  defaults: () => ({ allowPrivateNetworks: false }),
  check(g) {
    g.boolean('allowPrivateNetworks')
  },
})
