/**
 * The OAuth2 provider presets: the defaults (URLs, scopes, PKCE, user mapping) of the
 * well-known providers, keyed by PocketBase's provider names.
 */

/** A user as a provider describes it, mapped to PocketBase's `AuthUser` keys. */
export interface ProviderUser {
  id: string
  name: string
  username: string
  /** The email, and whether the provider verified it. */
  email: string
  emailVerified: boolean
  avatarURL: string
}

/** A preset: the defaults of a well-known provider. */
export interface Preset {
  name: string
  displayName: string
  authURL: string
  tokenURL: string
  userInfoURL: string
  scopes: string[]
  pkce: boolean
  /** OpenID Connect: the ID token is verified against this issuer and JWKS. */
  oidc?: { issuer: string; jwksURL: string }
  /** Extra authorization parameters (Apple's `response_mode=form_post`). */
  authParams?: Record<string, string>
  /** Maps the provider's raw user (user info, or ID token claims) to a {@link ProviderUser}. */
  mapUser: (raw: Record<string, unknown>) => ProviderUser
}

export const str = (v: unknown): string =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : ''

/** OpenID Connect standard claims. */
export function oidcUser(raw: Record<string, unknown>): ProviderUser {
  return {
    id: str(raw.sub),
    name: str(raw.name),
    username: str(raw.preferred_username) || str(raw.nickname),
    email: str(raw.email),
    emailVerified: raw.email_verified === true || raw.email_verified === 'true',
    avatarURL: str(raw.picture),
  }
}

const oidcPreset = (name: string, displayName: string): Preset => ({
  name,
  displayName,
  authURL: '',
  tokenURL: '',
  userInfoURL: '',
  scopes: ['openid', 'profile', 'email'],
  pkce: true,
  oidc: { issuer: '', jwksURL: '' },
  mapUser: oidcUser,
})

/** The presets, keyed by provider name (PocketBase's names). */
export const PRESETS: Record<string, Preset> = {
  google: {
    name: 'google',
    displayName: 'Google',
    authURL: 'https://accounts.google.com/o/oauth2/v2/auth',
    tokenURL: 'https://oauth2.googleapis.com/token',
    userInfoURL: 'https://www.googleapis.com/oauth2/v3/userinfo',
    scopes: [
      'https://www.googleapis.com/auth/userinfo.profile',
      'https://www.googleapis.com/auth/userinfo.email',
    ],
    pkce: true,
    mapUser: oidcUser,
  },
  github: {
    name: 'github',
    displayName: 'GitHub',
    authURL: 'https://github.com/login/oauth/authorize',
    tokenURL: 'https://github.com/login/oauth/access_token',
    userInfoURL: 'https://api.github.com/user',
    scopes: ['read:user', 'user:email'],
    pkce: true,
    // NB: GitHub's `email` is the public profile email, not proven verified: left unverified.
    mapUser: (raw) => ({
      id: str(raw.id),
      name: str(raw.name),
      username: str(raw.login),
      email: str(raw.email),
      emailVerified: false,
      avatarURL: str(raw.avatar_url),
    }),
  },
  gitlab: {
    name: 'gitlab',
    displayName: 'GitLab',
    authURL: 'https://gitlab.com/oauth/authorize',
    tokenURL: 'https://gitlab.com/oauth/token',
    userInfoURL: 'https://gitlab.com/api/v4/user',
    scopes: ['read_user'],
    pkce: true,
    mapUser: (raw) => ({
      id: str(raw.id),
      name: str(raw.name),
      username: str(raw.username),
      email: str(raw.email),
      emailVerified: str(raw.confirmed_at) !== '',
      avatarURL: str(raw.avatar_url),
    }),
  },
  microsoft: {
    name: 'microsoft',
    displayName: 'Microsoft',
    authURL: 'https://login.microsoftonline.com/common/oauth2/v2.0/authorize',
    tokenURL: 'https://login.microsoftonline.com/common/oauth2/v2.0/token',
    userInfoURL: 'https://graph.microsoft.com/v1.0/me',
    scopes: ['User.Read'],
    pkce: true,
    mapUser: (raw) => ({
      id: str(raw.id),
      name: str(raw.displayName),
      username: '',
      email: str(raw.mail),
      emailVerified: str(raw.mail) !== '',
      avatarURL: '',
    }),
  },
  apple: {
    name: 'apple',
    displayName: 'Apple',
    authURL: 'https://appleid.apple.com/auth/authorize',
    tokenURL: 'https://appleid.apple.com/auth/token',
    userInfoURL: '',
    scopes: ['name', 'email'],
    pkce: true,
    oidc: { issuer: 'https://appleid.apple.com', jwksURL: 'https://appleid.apple.com/auth/keys' },
    authParams: { response_mode: 'form_post' },
    mapUser: oidcUser,
  },
  discord: {
    name: 'discord',
    displayName: 'Discord',
    authURL: 'https://discord.com/api/oauth2/authorize',
    tokenURL: 'https://discord.com/api/oauth2/token',
    userInfoURL: 'https://discord.com/api/users/@me',
    scopes: ['identify', 'email'],
    pkce: true,
    mapUser: (raw) => {
      const id = str(raw.id)
      const avatar = str(raw.avatar)
      return {
        id,
        name: str(raw.global_name) || str(raw.username),
        username: str(raw.username),
        email: str(raw.email),
        emailVerified: raw.verified === true,
        avatarURL: avatar ? `https://cdn.discordapp.com/avatars/${id}/${avatar}.png` : '',
      }
    },
  },
  facebook: {
    name: 'facebook',
    displayName: 'Facebook',
    authURL: 'https://www.facebook.com/v17.0/dialog/oauth',
    tokenURL: 'https://graph.facebook.com/v17.0/oauth/access_token',
    userInfoURL: 'https://graph.facebook.com/me?fields=name,email,picture.type(large)',
    scopes: ['email'],
    pkce: true,
    mapUser: (raw) => {
      const picture = raw.picture as { data?: { url?: unknown } } | undefined
      return {
        id: str(raw.id),
        name: str(raw.name),
        username: '',
        email: str(raw.email),
        emailVerified: str(raw.email) !== '',
        avatarURL: str(picture?.data?.url),
      }
    },
  },
  oidc: oidcPreset('oidc', 'OIDC'),
  oidc2: oidcPreset('oidc2', 'OIDC2'),
  oidc3: oidcPreset('oidc3', 'OIDC3'),
}

/** A JSON object (not null, not an array). */
export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)
