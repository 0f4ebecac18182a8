/**
 * The provider configs of `authOptions.oauth2.providers`: their
 * validation (collection writes), and the effective provider a config resolves to (preset
 * defaults, explicit URLs over them, an OpenID Connect issuer's discovery document).
 */
import { validationError, type ValidationErrors } from '../../core/errors.js'
import type { Collection } from '../../core/collections/model.js'
import { isObject, oidcUser, PRESETS, str, type Preset } from './presets.js'

export type { ProviderUser } from './presets.js'

/** The mapped-field keys of `oauth2.mappedFields`. */
export const MAPPED_KEYS = ['id', 'name', 'username', 'avatarURL'] as const

/** One entry of `authOptions.oauth2.providers` as stored. */
export interface ProviderConfig {
  name: string
  clientId: string
  clientSecret: string
  authURL: string
  tokenURL: string
  userInfoURL: string
  displayName: string
  pkce: boolean | null
  extra: Record<string, unknown>
  mappedFields: Partial<Record<(typeof MAPPED_KEYS)[number], string>>
}

/** A stored provider entry read leniently (unknown keys ignored, wrong types as empty). */
export function readProviderConfig(v: unknown): ProviderConfig {
  const o = isObject(v) ? v : {}
  const mapped = isObject(o.mappedFields) ? o.mappedFields : {}
  return {
    name: str(o.name),
    clientId: str(o.clientId),
    clientSecret: str(o.clientSecret),
    authURL: str(o.authURL),
    tokenURL: str(o.tokenURL),
    userInfoURL: str(o.userInfoURL),
    displayName: str(o.displayName),
    pkce: typeof o.pkce === 'boolean' ? o.pkce : null,
    extra: isObject(o.extra) ? o.extra : {},
    mappedFields: Object.fromEntries(
      MAPPED_KEYS.filter((k) => typeof mapped[k] === 'string' && mapped[k] !== '').map((k) => [
        k,
        mapped[k] as string,
      ]),
    ),
  }
}

function isHttpUrl(text: string): boolean {
  try {
    const u = new URL(text)
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== ''
  } catch {
    return false
  }
}

/**
 * Validates `oauth2.providers` and `oauth2.mappedFields` of an auth collection; returns the
 * errors keyed as in `authOptions.oauth2` (empty when valid).
 */
export function validateOAuth2Options(c: Collection): ValidationErrors {
  const o = c.authOptions!.oauth2
  const errors: ValidationErrors = {}
  const fieldNames = new Set(c.fields.map((f) => f.name))
  const checkMapped = (m: unknown): ValidationErrors | undefined => {
    if (m === undefined || m === null) return undefined
    if (!isObject(m)) return { '': validationError('validation_invalid_value:object') }
    const e: ValidationErrors = {}
    for (const k of MAPPED_KEYS) {
      const v = m[k]
      if (v === undefined || v === null || v === '') continue
      if (typeof v !== 'string') e[k] = validationError('validation_invalid_value:string')
      else if (!fieldNames.has(v))
        e[k] = validationError('validation_in_invalid:oauth2_mapped_field')
    }
    return Object.keys(e).length > 0 ? e : undefined
  }
  const mappedErrors = checkMapped(o.mappedFields)
  if (mappedErrors) errors.mappedFields = mappedErrors['']! ?? mappedErrors
  if (!Array.isArray(o.providers)) {
    errors.providers = validationError('validation_invalid_value:list')
    return errors
  }
  const seen = new Set<string>()
  const list: ValidationErrors = {}
  o.providers.forEach((p, i) => {
    const e: ValidationErrors = {}
    if (!isObject(p)) {
      list[String(i)] = validationError('validation_invalid_value:object')
      return
    }
    for (const key of [
      'name',
      'clientId',
      'clientSecret',
      'authURL',
      'tokenURL',
      'userInfoURL',
      'displayName',
    ]) {
      const v = p[key]
      if (v !== undefined && v !== null && typeof v !== 'string')
        e[key] = validationError('validation_invalid_value:string')
    }
    const cfg = readProviderConfig(p)
    if (cfg.name === '' && !e.name) e.name = validationError('validation_required')
    else if (seen.has(cfg.name)) e.name = validationError('validation_not_unique')
    seen.add(cfg.name)
    if (cfg.clientId === '' && !e.clientId) e.clientId = validationError('validation_required')
    for (const key of ['authURL', 'tokenURL', 'userInfoURL'] as const) {
      if (cfg[key] !== '' && !isHttpUrl(cfg[key])) e[key] = validationError('validation_is_url')
    }
    if (p.pkce !== undefined && p.pkce !== null && typeof p.pkce !== 'boolean')
      e.pkce = validationError('validation_invalid_value:oauth2_pkce')
    if (p.extra !== undefined && p.extra !== null && !isObject(p.extra))
      e.extra = validationError('validation_invalid_value:object')
    const extra: ValidationErrors = {}
    for (const key of ['issuer', 'jwksURL'] as const) {
      const v = cfg.extra[key]
      if (v === undefined || v === null || v === '') continue
      if (typeof v !== 'string' || !isHttpUrl(v)) extra[key] = validationError('validation_is_url')
    }
    if (Object.keys(extra).length > 0 && !e.extra) e.extra = extra
    const preset = PRESETS[cfg.name]
    const hasURLs = cfg.authURL !== '' && cfg.tokenURL !== ''
    const issuer = str(cfg.extra.issuer)
    if (cfg.name !== '' && !e.name) {
      if (preset?.oidc && preset.authURL === '' && !hasURLs && issuer === '')
        e.name = validationError('validation_invalid_value:oauth2_discovery')
      else if (!preset && !hasURLs && issuer === '')
        e.name = validationError('validation_invalid_value:oauth2_provider_name')
    }
    // An OIDC provider needs a way to learn the user: a user info URL, or ID tokens it can verify.
    const jwks = str(cfg.extra.jwksURL)
    if (
      !e.name &&
      preset?.oidc &&
      preset.oidc.jwksURL === '' &&
      hasURLs &&
      cfg.userInfoURL === '' &&
      issuer === '' &&
      jwks === ''
    )
      e.userInfoURL = validationError('validation_required')
    const m = checkMapped(p.mappedFields)
    if (m) e.mappedFields = m['']! ?? m
    if (Object.keys(e).length > 0) list[String(i)] = e
  })
  if (Object.keys(list).length > 0) errors.providers = list
  return errors
}

/**
 * Keeps the write-only client secrets: a provider entry of `next` that omits its
 * `clientSecret` (or sends it empty) gets the one stored for the same name in `previous`.
 */
export function keepClientSecrets(next: unknown[], previous: unknown[]): void {
  const secrets = new Map<string, string>()
  for (const p of previous) {
    const cfg = readProviderConfig(p)
    if (cfg.clientSecret !== '') secrets.set(cfg.name, cfg.clientSecret)
  }
  for (const p of next) {
    if (!isObject(p)) continue
    const name = str(p.name)
    if (
      (p.clientSecret === undefined || p.clientSecret === '' || p.clientSecret === null) &&
      secrets.has(name)
    )
      p.clientSecret = secrets.get(name)
  }
}

/** A provider config resolved against its preset and (for OIDC issuers) discovery. */
export interface EffectiveProvider extends Required<Omit<Preset, 'oidc'>> {
  config: ProviderConfig
  /** Set when ID tokens are verified: the expected issuer (may be empty) and the JWKS URL. */
  oidc: NonNullable<Preset['oidc']> | null
}

/** What a discovery document supplies. */
export interface Discovery {
  issuer: string
  authorization_endpoint: string
  token_endpoint: string
  userinfo_endpoint: string
  jwks_uri: string
}

/**
 * The effective provider of a config: explicit URLs over the discovery document's (when the
 * config names an issuer) over the preset's. A config with an unknown name is a generic OpenID
 * Connect provider when it names an issuer or a JWKS URL, else a plain OAuth2 one mapped like
 * OIDC's standard claims (`sub`, `name`, `email`, `picture`; `id` and `login` as fallbacks).
 */
export function effectiveProvider(cfg: ProviderConfig, discovery?: Discovery): EffectiveProvider {
  const preset = PRESETS[cfg.name]
  const issuer = str(cfg.extra.issuer) || discovery?.issuer || preset?.oidc?.issuer || ''
  const jwksURL = str(cfg.extra.jwksURL) || discovery?.jwks_uri || preset?.oidc?.jwksURL || ''
  const isOidc = Boolean(preset?.oidc) || issuer !== '' || jwksURL !== ''
  const scopes = Array.isArray(cfg.extra.scopes)
    ? cfg.extra.scopes.filter((s): s is string => typeof s === 'string')
    : (preset?.scopes ?? (isOidc ? ['openid', 'profile', 'email'] : []))
  return {
    config: cfg,
    name: cfg.name,
    displayName: cfg.displayName || preset?.displayName || cfg.name,
    authURL: cfg.authURL || discovery?.authorization_endpoint || preset?.authURL || '',
    tokenURL: cfg.tokenURL || discovery?.token_endpoint || preset?.tokenURL || '',
    userInfoURL: cfg.userInfoURL || discovery?.userinfo_endpoint || preset?.userInfoURL || '',
    scopes,
    pkce: cfg.pkce ?? preset?.pkce ?? true,
    oidc: isOidc ? { issuer, jwksURL } : null,
    authParams: preset?.authParams ?? {},
    mapUser:
      preset?.mapUser ??
      ((raw) => {
        const u = oidcUser(raw)
        return {
          ...u,
          id: u.id || str(raw.id),
          username: u.username || str(raw.login) || str(raw.username),
          avatarURL: u.avatarURL || str(raw.avatar_url),
        }
      }),
  }
}
