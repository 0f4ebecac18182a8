/**
 * OAuth2 / OpenID Connect sign-in (reference §1.6): the providers listed by `auth-methods`
 * (state, PKCE verifier and challenge, authorize URL), and the record resolution: existing
 * link, the signed-in record (linking), a record with the provider's verified email, or a new
 * record through the normal create path (createRule applies). The provider side (code exchange,
 * ID token checks, user info) is `client.ts`.
 */
import { createHash } from 'node:crypto'
import { dirname } from 'node:path'
import type { App } from '../../core/app.js'
import { systemRequest } from '../../core/auth/superusers.js'
import type { Collection, Field } from '../../core/collections/model.js'
import { removeUploadDir } from '../../core/temp-sweep.js'
import {
  ApiError,
  badRequest,
  messages,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import type { UploadedFile } from '../../core/records/api.js'
import type { RecordData, RequestInfo } from '../../core/request-info.js'
import { ident, sql } from '../../store/sql.js'
import { randomString } from '../../tools/ids.js'
import { downloadAvatar } from './avatar.js'
import { b64url, nonceOf, ProviderClient, type ExchangeInput } from './client.js'
import { isObject } from './presets.js'
import {
  effectiveProvider,
  readProviderConfig,
  type EffectiveProvider,
  type ProviderUser,
} from './providers.js'

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
export interface SignInInput extends ExchangeInput {
  provider: string
  createData: Record<string, unknown>
}

/** What a sign-in resolved: the record, and the `meta` of the answer. */
export interface SignInResult {
  record: RecordData
  meta: Record<string, unknown>
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
  /** The provider side: discovery, code exchange, ID token, user info. */
  readonly client: ProviderClient

  constructor(private readonly app: App) {
    this.client = new ProviderClient(app)
  }

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
    return effectiveProvider(cfg, await this.client.discover(issuer))
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

  /** Exchanges the code, fetches and checks the user (see {@link ProviderClient.fetchUser}). */
  fetchUser(p: EffectiveProvider, input: SignInInput) {
    return this.client.fetchUser(p, input)
  }

  /** Keeps Apple's posted name for its code's exchange (see {@link ProviderClient}). */
  rememberRedirectName(code: string, userJson: string): void {
    this.client.rememberRedirectName(code, userJson)
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
      sql`SELECT "recordRef" FROM "_externalAuths" WHERE "collectionRef" = ${c.id} AND provider = ${p.name} AND "providerId" = ${user.id}`,
    )
    const linked = link ? await app.records.findById(c, link.recordRef) : undefined
    let record = linked
    if (link && !linked) {
      // a link left without its record (written around the cascade): it would block a new one
      await linkDb.run(
        sql`DELETE FROM "_externalAuths" WHERE "collectionRef" = ${c.id} AND provider = ${p.name} AND "providerId" = ${user.id}`,
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
              sql`DELETE FROM "_externalAuths" WHERE "collectionRef" = ${c.id} AND "recordRef" = ${String(found.id)}`,
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
    const asked = input.createData.email
    if (
      user.emailVerified &&
      user.email !== '' &&
      typeof asked === 'string' &&
      asked.trim() !== '' &&
      asked.trim().toLowerCase() !== user.email.toLowerCase()
    ) {
      // Pre-hijacking: an account under an address the provider did not prove would keep this
      // provider's link until its owner proves the address; refused outright instead.
      throw badRequest(messages.oauth2CreateEmailMismatch)
    }
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
    const avatar = avatarField ? await downloadAvatar(app, avatarField, user.avatarURL) : null
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
      if (avatar) await removeUploadDir(dirname(avatar.path))
    }
  }
}

declare module '../../core/services.js' {
  interface AppServices {
    /** OAuth2 sign-in: the providers `auth-methods` lists (set by the oauth2 feature). */
    oauth2: OAuth2Service
  }
}
