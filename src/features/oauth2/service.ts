/**
 * OAuth2 / OpenID Connect sign-in (reference §1.6): the providers listed by `auth-methods`
 * (state, PKCE verifier and challenge, authorize URL), the code exchange, the ID token checks
 * (issuer, audience, JWKS signature, expiry, nonce) or the user info request, and the record
 * resolution: existing link, the signed-in record (linking), a record with the provider's
 * verified email, or a new record through the normal create path (createRule applies).
 */
import { createHash } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  createRemoteJWKSet,
  errors as joseErrors,
  jwtVerify,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose'
import mime from 'mime-types'
import type { App } from '../../core/app.js'
import { systemRequest } from '../../core/auth/superusers.js'
import type { Collection, Field } from '../../core/collections/model.js'
import {
  ApiError,
  badRequest,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import { fileMaxSize } from '../../core/fields/file.js'
import type { UploadedFile } from '../../core/records/api.js'
import type { RecordData, RequestInfo } from '../../core/request-info.js'
import { ident, sql } from '../../store/sql.js'
import { formatDate } from '../../tools/dates.js'
import { randomString } from '../../tools/ids.js'
import { guardedRequest } from '../../tools/ssrf.js'
import {
  effectiveProvider,
  readProviderConfig,
  type Discovery,
  type EffectiveProvider,
  type ProviderUser,
} from './providers.js'

/** The limit of one request to a provider (code exchange, user info, discovery). */
export const PROVIDER_TIMEOUT_MS = 30_000
/** The most bytes read of a provider's answer. */
const MAX_PROVIDER_BYTES = 1024 * 1024
/** The limit of the avatar download. */
const AVATAR_TIMEOUT_MS = 15_000
/** How long a discovery document is kept. */
const DISCOVERY_TTL_MS = 60 * 60 * 1000
const PKCE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/** A provider as `auth-methods` lists it. */
export interface ListedProvider {
  name: string
  displayName: string
  state: string
  authURL: string
  authUrl: string
  codeVerifier: string
  codeChallenge: string
  codeChallengeMethod: string
}

/** The validated body of `auth-with-oauth2`. */
export interface SignInInput {
  provider: string
  code: string
  codeVerifier: string
  redirectURL: string
  createData: Record<string, unknown>
}

/** What a sign-in resolved: the record, and the `meta` of the answer. */
export interface SignInResult {
  record: RecordData
  meta: Record<string, unknown>
}

const b64url = (buf: Buffer): string => buf.toString('base64url')

/** The nonce put in an OIDC authorize URL: derived from the PKCE verifier, so nothing is stored. */
export const nonceOf = (verifier: string): string =>
  b64url(createHash('sha256').update(`nonce:${verifier}`).digest())

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

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

/**
 * Adds the `_externalAuths` link of a record; a failure (the record already linked to another
 * account of this provider) is PocketBase's 400 `Failed to authenticate.`.
 */
async function createLink(
  tx: App,
  links: Collection,
  c: Collection,
  recordId: string,
  provider: string,
  providerId: string,
): Promise<void> {
  try {
    await tx.records.create(
      links,
      { collectionRef: c.id, recordRef: recordId, provider, providerId },
      systemRequest(tx),
    )
  } catch (err) {
    throw badRequest(messages.authFailed, {}, err)
  }
}

/** The OAuth2 sign-in service of one app (the `oauth2` service). */
export class OAuth2Service {
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

  private takeRedirectName(code: string): string {
    const kept = this.redirectNames.get(code)
    this.redirectNames.delete(code)
    return kept && Date.now() - kept.at <= 60_000 ? kept.name : ''
  }

  constructor(private readonly app: App) {}

  /** The configs of a collection's providers (stored shape, read leniently). */
  configs(c: Collection) {
    const list = c.authOptions?.oauth2.providers
    return (Array.isArray(list) ? list : []).map(readProviderConfig)
  }

  /** The effective provider `name` of `c`, discovery included; undefined when not configured. */
  async provider(c: Collection, name: string): Promise<EffectiveProvider | undefined> {
    const cfg = this.configs(c).find((p) => p.name === name)
    if (!cfg) return undefined
    const base = effectiveProvider(cfg)
    const issuer = typeof cfg.extra.issuer === 'string' ? cfg.extra.issuer : ''
    const incomplete =
      base.authURL === '' || base.tokenURL === '' || (base.oidc && base.oidc.jwksURL === '')
    if (issuer === '' || !incomplete) return base
    return effectiveProvider(cfg, await this.discover(issuer))
  }

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

  /**
   * The enabled providers of `c` as `auth-methods` lists them, each with a fresh state and
   * PKCE pair; a provider that cannot be resolved (discovery failing) is skipped.
   */
  async authMethods(c: Collection): Promise<ListedProvider[]> {
    const o = c.authOptions?.oauth2
    if (!o?.enabled) return []
    const out: ListedProvider[] = []
    for (const cfg of this.configs(c)) {
      let p: EffectiveProvider | undefined
      try {
        p = await this.provider(c, cfg.name)
      } catch {
        continue
      }
      if (!p || p.authURL === '') continue
      const state = randomString(30)
      const verifier = p.pkce ? randomString(43, PKCE_ALPHABET) : ''
      const challenge = p.pkce ? b64url(createHash('sha256').update(verifier).digest()) : ''
      const params: Record<string, string> = {
        client_id: p.config.clientId,
        response_type: 'code',
        scope: p.scopes.join(' '),
        state,
        ...p.authParams,
      }
      if (p.pkce) {
        params.code_challenge = challenge
        params.code_challenge_method = 'S256'
        if (p.oidc) params.nonce = nonceOf(verifier)
      }
      const url = new URL(p.authURL)
      for (const k of Object.keys(params).sort()) url.searchParams.set(k, params[k]!)
      url.searchParams.delete('redirect_uri')
      url.searchParams.sort()
      const authURL = `${url.toString()}&redirect_uri=`
      out.push({
        name: p.name,
        displayName: p.displayName,
        state,
        authURL,
        authUrl: authURL,
        codeVerifier: verifier,
        codeChallenge: challenge,
        codeChallengeMethod: p.pkce ? 'S256' : '',
      })
    }
    return out
  }

  /** Validates the body of `auth-with-oauth2` (reference §1.6); 400 with field errors. */
  async readInput(c: Collection, body: Record<string, unknown>): Promise<SignInInput> {
    const errors: ValidationErrors = {}
    const provider = body.provider
    const text = (v: unknown) => (typeof v === 'string' ? v : '')
    if (provider === undefined || provider === null || provider === '')
      errors.provider = validationError('validation_required')
    else if (typeof provider !== 'string')
      errors.provider = validationError('validation_invalid_value:string')
    else if ([...provider].length > 100)
      errors.provider = validationError('validation_length_out_of_range', { min: 1, max: 100 })
    else if (!this.configs(c).some((p) => p.name === provider))
      errors.provider = validationError('validation_invalid_provider', { name: provider })
    if (typeof body.code !== 'string' || body.code === '')
      errors.code = validationError('validation_required')
    const createData = body.createData ?? {}
    if (!isObject(createData))
      errors.createData = validationError('validation_invalid_value:object')
    if (Object.keys(errors).length > 0) throw badRequest(messages.validationFailed, errors)
    return {
      provider: provider as string,
      code: body.code as string,
      codeVerifier: text(body.codeVerifier),
      redirectURL: text(body.redirectURL) || text(body.redirectUrl),
      createData: createData as Record<string, unknown>,
    }
  }

  /** Exchanges the code, fetches and checks the user; the provider's answer as `meta`. */
  async fetchUser(
    p: EffectiveProvider,
    input: SignInInput,
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
    if (p.name === 'apple' && user.name === '') user.name = this.takeRedirectName(input.code)
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

  /**
   * Finds or creates the record the provider's user signs in as, with its `_externalAuths`
   * link; every write of one sign-in commits together or not at all.
   */
  async resolveRecord(
    c: Collection,
    p: EffectiveProvider,
    user: ProviderUser,
    input: SignInInput,
    info: RequestInfo,
  ): Promise<{ record: RecordData; isNew: boolean }> {
    const app = this.app
    const links = app.collections.get('_externalAuths')
    const linkDb = app.dbFor(links)
    const link = await linkDb.get<{ recordRef: string }>(
      sql`SELECT recordRef FROM _externalAuths WHERE collectionRef = ${c.id} AND provider = ${p.name} AND providerId = ${user.id}`,
    )
    const linked = link ? await app.records.findById(c, link.recordRef) : undefined
    let record = linked
    if (link && !linked) {
      // a link left without its record (written around the cascade): it would block a new one
      await linkDb.run(
        sql`DELETE FROM _externalAuths WHERE collectionRef = ${c.id} AND provider = ${p.name} AND providerId = ${user.id}`,
      )
    }
    let takeOver = false
    const signedIn = info.auth?.collection.id === c.id ? String(info.auth.record.id) : ''
    if (!record && signedIn !== '') record = await app.records.findById(c, signedIn)
    if (!record && user.email !== '') {
      const byEmail = await this.findByEmail(c, user.email)
      if (byEmail && user.emailVerified) {
        record = byEmail
        takeOver = record.verified !== true
      } else if (byEmail) throw badRequest(messages.oauth2EmailTaken)
    }
    if (record) {
      const found = record
      await app.runInTransaction(async (tx) => {
        const su = systemRequest(tx)
        if (takeOver) {
          // Pre-hijacking: a password set before the email was proven must not survive.
          const pw = randomString(30)
          const patch: Record<string, unknown> = { password: pw, passwordConfirm: pw }
          const email = typeof found.email === 'string' ? found.email : ''
          if (email === '' || email.toLowerCase() === user.email.toLowerCase()) {
            patch.verified = true
            if (email === '') patch.email = user.email
          }
          await tx.records.update(c, String(found.id), patch, su)
          await tx
            .dbFor(links)
            .run(
              sql`DELETE FROM _externalAuths WHERE collectionRef = ${c.id} AND recordRef = ${String(found.id)}`,
            )
        }
        if (!linked || takeOver) await createLink(tx, links, c, String(found.id), p.name, user.id)
      })
      return { record: (await app.records.findById(c, String(found.id))) ?? found, isNew: false }
    }
    if (c.name === '_superusers') throw badRequest(messages.oauth2SuperuserSignUp)
    return { record: await this.createRecord(c, p, user, input, info), isNew: true }
  }

  private async findByEmail(c: Collection, email: string): Promise<RecordData | undefined> {
    const row = await this.app
      .dbFor(c)
      .get<{ id: string }>(
        sql`SELECT id FROM ${ident(c.name)} WHERE lower(email) = lower(${email}) LIMIT 1`,
      )
    return row ? this.app.records.findById(c, row.id) : undefined
  }

  /**
   * Creates the new record through the normal create path as the requester (createRule with
   * `@request.context = "oauth2"`): createData + the provider email + mapped fields + a random
   * password, the avatar downloaded into a mapped file field, and the link, in one transaction.
   * An avatar the field refuses is dropped rather than failing the sign-in.
   */
  private async createRecord(
    c: Collection,
    p: EffectiveProvider,
    user: ProviderUser,
    input: SignInInput,
    info: RequestInfo,
  ): Promise<RecordData> {
    const app = this.app
    const mapped = { ...c.authOptions!.oauth2.mappedFields, ...p.config.mappedFields }
    const body: Record<string, unknown> = {}
    let avatarField: Field | undefined
    for (const key of ['id', 'name', 'username', 'avatarURL'] as const) {
      const fieldName = mapped[key]
      if (!fieldName) continue
      const field = c.fields.find((f) => f.name === fieldName)
      if (!field) continue
      const value = user[key]
      if (value === '') continue
      if (key === 'avatarURL' && field.type === 'file') avatarField = field
      else body[fieldName] = value
    }
    if (user.email !== '') body.email = user.email
    for (const [k, v] of Object.entries(input.createData)) {
      if (k === 'email' && (v === '' || v === null)) continue
      body[k] = v
    }
    if (body.password === undefined) {
      const pw = randomString(30)
      body.password = pw
      body.passwordConfirm = pw
    }
    const verified = user.emailVerified && user.email !== '' && body.email === user.email
    const avatar = avatarField ? await this.downloadAvatar(avatarField, user.avatarURL) : null
    const createInfo: RequestInfo = { ...info, body, context: 'oauth2' }
    const links = app.collections.get('_externalAuths')
    const attempt = (files: UploadedFile[]) =>
      app.runInTransaction(async (tx) => {
        const out = await tx.records.create(c, body, createInfo, files)
        const id = String(out.id)
        const su = systemRequest(tx)
        if (verified) await tx.records.update(c, id, { verified: true }, su)
        await createLink(tx, links, c, id, p.name, user.id)
        return id
      })
    try {
      let id: string
      try {
        id = await attempt(avatar ? [avatar] : [])
      } catch (err) {
        const data = err instanceof ApiError ? (err.data as Record<string, unknown>) : undefined
        if (!avatar || !avatarField || !data || !(avatarField.name in data)) throw err
        app.logger.warn('OAuth2 avatar refused by the file field; signing in without it', {
          field: avatarField.name,
        })
        id = await attempt([])
      }
      const record = await app.records.findById(c, id)
      if (!record) throw badRequest(messages.authFailed)
      return record
    } finally {
      if (avatar) await rm(avatar.path, { force: true })
    }
  }

  /**
   * Downloads an avatar through the SSRF guard (`oauth2.allowPrivateNetworks` lets private
   * addresses through), bounded by the field's max size; null when anything fails.
   */
  private async downloadAvatar(field: Field, url: string): Promise<UploadedFile | null> {
    const max = fileMaxSize(field)
    try {
      const res = await guardedRequest(url, {
        method: 'GET',
        headers: { accept: 'image/*' },
        timeoutMs: AVATAR_TIMEOUT_MS,
        maxResponseBytes: max + 1,
        allowPrivateNetworks: this.app.settings.get().oauth2.allowPrivateNetworks,
      })
      if (res.status !== 200 || res.body.length === 0 || res.body.length > max) {
        this.app.logger.warn('OAuth2 avatar not downloaded', { status: res.status })
        return null
      }
      const type = String(res.headers['content-type'] ?? 'application/octet-stream')
        .split(';')[0]!
        .trim()
      const ext = mime.extension(type) || 'bin'
      const path = join(tmpdir(), `svcbase-oauth2-avatar-${randomString(16)}`)
      await writeFile(path, res.body)
      return {
        field: field.name,
        filename: `avatar.${ext}`,
        mimetype: type,
        size: res.body.length,
        path,
      }
    } catch (err) {
      this.app.logger.warn('OAuth2 avatar download failed', { error: String(err) })
      return null
    }
  }
}

declare module '../../core/services.js' {
  interface AppServices {
    /** OAuth2 sign-in: the providers `auth-methods` lists (set by the oauth2 feature). */
    oauth2: OAuth2Service
  }
}
