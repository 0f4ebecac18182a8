/**
 * The provider side of an OAuth2 / OpenID Connect sign-in: the issuer's discovery document, the
 * code exchange, the ID token checks (issuer, audience, JWKS signature, expiry, nonce) and the
 * user info request, each bounded in time and size. The record side is in `service.ts`.
 */
import { createHash } from 'node:crypto'
import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose'
import type { App } from '../../core/app.js'
import { badRequest, messages } from '../../core/errors.js'
import { formatDate } from '../../tools/dates.js'
import { isObject } from './presets.js'
import type { Discovery, EffectiveProvider, ProviderUser } from './providers.js'

/** The limit of one request to a provider (code exchange, user info, discovery). */
export const PROVIDER_TIMEOUT_MS = 30_000
/** The most bytes read of a provider's answer. */
const MAX_PROVIDER_BYTES = 1024 * 1024
/** How long a discovery document is kept. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000

/** What the code exchange needs of the `auth-with-oauth2` body. */
export interface ExchangeInput {
  code: string
  codeVerifier: string
  redirectURL: string
}

export const b64url = (buf: Buffer): string => buf.toString('base64url')

/** The nonce put in an OIDC authorize URL: derived from the PKCE verifier, so nothing is stored. */
export const nonceOf = (verifier: string): string =>
  b64url(createHash('sha256').update(`nonce:${verifier}`).digest())

/** Reads at most `MAX_PROVIDER_BYTES` of an answer as text. */
async function cappedText(res: Response): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array> | null)?.getReader()
  if (!reader) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.length
    if (size > MAX_PROVIDER_BYTES) {
      await reader.cancel()
      throw new Error('answer too large')
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** A JSON object from a provider (or urlencoded for old token endpoints); throws otherwise. */
async function providerJson(url: string, init: RequestInit): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    ...init,
    redirect: 'error',
    signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
  })
  const text = await cappedText(res)
  if (!res.ok) throw new Error(`status ${res.status}`)
  const type = res.headers.get('content-type') ?? ''
  if (type.includes('application/x-www-form-urlencoded'))
    return Object.fromEntries(new URLSearchParams(text))
  const parsed: unknown = JSON.parse(text)
  if (!isObject(parsed)) throw new Error('not a JSON object')
  return parsed
}

/** Talks to the providers of one app: discovery and JWKS caches, code exchange, user. */
/** The topic of a redirect name asked of the other instances. */
const REDIRECT_NAME_TOPIC = 'oauth2.redirectName'

export class ProviderClient {
  private readonly discoveries = new Map<string, { at: number; doc: Promise<Discovery> }>()
  private readonly jwks = new Map<string, JWTVerifyGetKey>()
  /** Apple's form_post `user` names, by code, for the exchange that follows (1 min). */
  private readonly redirectNames = new Map<string, { name: string; at: number }>()

  /**
   * Keeps the name Apple posts (`user` JSON, first sign-in only) with the code, for the code's
   * exchange within a minute (PocketBase does the same); at most 1000 are kept.
   */
  rememberRedirectName(code: string, userJson: string): void {
    let name = ''
    try {
      const parsed: unknown = JSON.parse(userJson)
      const n = isObject(parsed) && isObject(parsed.name) ? parsed.name : {}
      const part = (k: string) => (typeof n[k] === 'string' ? n[k] : '')
      name = [part('firstName'), part('lastName')].filter(Boolean).join(' ').slice(0, 255)
    } catch {
      return
    }
    if (code === '' || name === '') return
    const now = Date.now()
    for (const [k, v] of this.redirectNames) {
      if (now - v.at > 60_000 || this.redirectNames.size >= 1000) this.redirectNames.delete(k)
      else break
    }
    this.redirectNames.set(code, { name, at: now })
  }

  /** The name kept on this instance for `code` ('' when none), forgotten once taken. */
  takeRedirectName(code: string): string {
    const kept = this.redirectNames.get(code)
    this.redirectNames.delete(code)
    return kept && Date.now() - kept.at <= 60_000 ? kept.name : ''
  }

  /**
   * {@link takeRedirectName}, then on the other instances sharing the data (the form_post
   * redirect may have reached another instance than this exchange); '' when none kept it.
   */
  async takeSharedRedirectName(code: string): Promise<string> {
    const local = this.takeRedirectName(code)
    if (local !== '' || code === '') return local
    const requests = this.app.cluster.shared ? this.app.cluster.requests : undefined
    if (!requests) return ''
    try {
      const answer = await requests.ask(REDIRECT_NAME_TOPIC, { code })
      return typeof answer?.name === 'string' ? answer.name.slice(0, 255) : ''
    } catch {
      return ''
    }
  }

  /** Answers the other instances' {@link takeSharedRedirectName} asks; returns the removal. */
  answerRedirectNames(): () => void {
    const requests = this.app.cluster.requests
    if (!requests) return () => undefined
    return requests.handle(REDIRECT_NAME_TOPIC, (payload) => {
      const name = typeof payload.code === 'string' ? this.takeRedirectName(payload.code) : ''
      return Promise.resolve(name === '' ? undefined : { name })
    })
  }

  constructor(private readonly app: App) {}

  /** An issuer's discovery document, fetched once an hour at most (failures are not kept). */
  discover(issuer: string): Promise<Discovery> {
    const cached = this.discoveries.get(issuer)
    if (cached && Date.now() - cached.at < DISCOVERY_TTL_MS) return cached.doc
    const url = `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`
    const doc = providerJson(url, { headers: { accept: 'application/json' } })
      .then((raw) => {
        const text = (k: string) => (typeof raw[k] === 'string' ? raw[k] : '')
        const d: Discovery = {
          issuer: text('issuer'),
          authorization_endpoint: text('authorization_endpoint'),
          token_endpoint: text('token_endpoint'),
          userinfo_endpoint: text('userinfo_endpoint'),
          jwks_uri: text('jwks_uri'),
        }
        const same = (a: string, b: string) => a.replace(/\/+$/, '') === b.replace(/\/+$/, '')
        if (!same(d.issuer, issuer) || !d.authorization_endpoint || !d.token_endpoint)
          throw new Error('incomplete discovery document')
        return d
      })
      .catch((err: unknown) => {
        this.discoveries.delete(issuer)
        this.app.logger.warn('OIDC discovery failed', { issuer, error: String(err) })
        throw badRequest(messages.oauth2DiscoveryFailed)
      })
    this.discoveries.set(issuer, { at: Date.now(), doc })
    return doc
  }

  /** Exchanges the code, fetches and checks the user; the provider's answer as `meta`. */
  async fetchUser(
    p: EffectiveProvider,
    input: ExchangeInput,
  ): Promise<{ user: ProviderUser; meta: Record<string, unknown> }> {
    const form = new URLSearchParams({
      grant_type: 'authorization_code',
      code: input.code,
      redirect_uri: input.redirectURL,
      client_id: p.config.clientId,
      client_secret: p.config.clientSecret,
    })
    if (p.pkce && input.codeVerifier !== '') form.set('code_verifier', input.codeVerifier)
    let tokens: Record<string, unknown>
    try {
      tokens = await providerJson(p.tokenURL, {
        method: 'POST',
        headers: {
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: form.toString(),
      })
    } catch (err) {
      this.app.logger.debug('OAuth2 code exchange failed', { provider: p.name, error: String(err) })
      throw badRequest(messages.oauth2TokenFailed)
    }
    const accessToken = typeof tokens.access_token === 'string' ? tokens.access_token : ''
    if (accessToken === '') throw badRequest(messages.oauth2TokenFailed)
    const idToken = typeof tokens.id_token === 'string' ? tokens.id_token : ''
    let claims: JWTPayload | null = null
    if (p.oidc && p.oidc.jwksURL !== '' && idToken !== '') {
      claims = await this.verifyIdToken(p, idToken, input.codeVerifier)
    }
    let info: Record<string, unknown> | null = null
    if (p.userInfoURL !== '') {
      try {
        info = await providerJson(p.userInfoURL, {
          headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
        })
      } catch (err) {
        this.app.logger.debug('OAuth2 user info failed', { provider: p.name, error: String(err) })
        throw badRequest(messages.oauth2UserFailed)
      }
      if (claims && typeof info.sub === 'string' && info.sub !== claims.sub)
        throw badRequest(messages.oauth2SubjectMismatch)
    } else if (!claims) {
      throw badRequest(p.oidc ? messages.oauth2IdTokenMissing : messages.oauth2UserFailed)
    }
    const raw: Record<string, unknown> = { ...(claims ?? {}), ...(info ?? {}) }
    const user = p.mapUser(raw)
    if (p.name === 'apple' && user.name === '')
      user.name = await this.takeSharedRedirectName(input.code)
    if (p.name === 'github' && p.config.userInfoURL === '')
      await this.githubEmail(accessToken, user)
    if (user.id === '') throw badRequest(messages.oauth2MissingUserId)
    const expiresIn = Number(tokens.expires_in)
    const meta: Record<string, unknown> = {
      accessToken,
      avatarURL: user.avatarURL,
      avatarUrl: user.avatarURL,
      email: user.emailVerified ? user.email : '',
      expiry:
        Number.isFinite(expiresIn) && expiresIn > 0
          ? formatDate(new Date(Date.now() + expiresIn * 1000))
          : '',
      id: user.id,
      isNew: false,
      name: user.name,
      rawUser: info ?? claims ?? {},
      refreshToken: typeof tokens.refresh_token === 'string' ? tokens.refresh_token : '',
      username: user.username,
    }
    return { user, meta }
  }

  /** GitHub's primary verified email (its `/user` email is not proven verified). */
  private async githubEmail(accessToken: string, user: ProviderUser): Promise<void> {
    try {
      const res = await fetch('https://api.github.com/user/emails', {
        headers: { accept: 'application/json', authorization: `Bearer ${accessToken}` },
        signal: AbortSignal.timeout(PROVIDER_TIMEOUT_MS),
      })
      const list: unknown = JSON.parse(await cappedText(res))
      const primary = Array.isArray(list)
        ? (list as Record<string, unknown>[]).find((e) => e.primary === true && e.verified === true)
        : undefined
      if (primary && typeof primary.email === 'string') {
        user.email = primary.email
        user.emailVerified = true
      }
    } catch {
      // the email stays unverified
    }
  }

  /** Verifies an ID token: JWKS signature, issuer, audience = clientId, expiry, nonce. */
  private async verifyIdToken(
    p: EffectiveProvider,
    token: string,
    verifier: string,
  ): Promise<JWTPayload> {
    const url = p.oidc!.jwksURL
    let keys = this.jwks.get(url)
    if (!keys) {
      keys = createRemoteJWKSet(new URL(url), { timeoutDuration: PROVIDER_TIMEOUT_MS })
      this.jwks.set(url, keys)
    }
    let payload: JWTPayload
    try {
      ;({ payload } = await jwtVerify(token, keys, {
        audience: p.config.clientId,
        ...(p.oidc!.issuer !== '' ? { issuer: p.oidc!.issuer } : {}),
      }))
    } catch (err) {
      if (err instanceof joseErrors.JWTExpired) throw badRequest(messages.oauth2IdTokenExpired)
      if (err instanceof joseErrors.JWTClaimValidationFailed) {
        if (err.claim === 'aud') throw badRequest(messages.oauth2IdTokenAudience)
        if (err.claim === 'iss') throw badRequest(messages.oauth2IdTokenIssuer)
      }
      if (
        err instanceof joseErrors.JWSSignatureVerificationFailed ||
        err instanceof joseErrors.JWKSNoMatchingKey
      )
        throw badRequest(messages.oauth2IdTokenSignature)
      this.app.logger.debug('OAuth2 ID token refused', { provider: p.name, error: String(err) })
      throw badRequest(messages.oauth2IdTokenInvalid)
    }
    if (typeof payload.nonce === 'string' && verifier !== '' && payload.nonce !== nonceOf(verifier))
      throw badRequest(messages.oauth2IdTokenNonce)
    return payload
  }
}
