import { Mutex } from 'async-mutex'
import type { Db } from '../store/db.js'
import { sql } from '../store/sql.js'
import { decrypt, deriveKey, encrypt, isEncrypted } from '../tools/crypto.js'
import { nowDate } from '../tools/dates.js'
import type { EventBus } from './events.js'

// NB: the groups are type aliases, not interfaces, so that a group stays assignable to
// `Record<string, unknown>` for the readers that take any shape (mailer, storage).

/** `meta`: the application's name, address and e-mail sender. */
export type MetaSettings = {
  appName: string
  appURL: string
  senderName: string
  senderAddress: string
  hideControls: boolean
  accentColor: string
}

/** `smtp`: the mail server; while disabled mail goes to the log backend. */
export type SmtpSettings = {
  enabled: boolean
  host: string
  port: number
  username: string
  /** Write-only. */
  password: string
  authMethod: '' | 'PLAIN' | 'LOGIN'
  tls: boolean
  localName: string
}

/** `s3` and `backups.s3`: an S3-compatible bucket; while disabled the local disk is used. */
export type S3Settings = {
  enabled: boolean
  bucket: string
  region: string
  endpoint: string
  accessKey: string
  /** Write-only. */
  secret: string
  forcePathStyle: boolean
}

/** `backups`: the automatic backup job and where backups go. */
export type BackupsSettings = {
  /** A cron expression; empty disables the automatic backups. */
  cron: string
  cronMaxKeep: number
  s3: S3Settings
}

/** `batch`: `POST /api/batch` (off by default). */
export type BatchSettings = {
  enabled: boolean
  maxRequests: number
  /** Seconds for the whole batch transaction. */
  timeout: number
  /** Bytes of the whole batch body; 0 means the default limit. */
  maxBodySize: number
}

/** One rate-limit rule (SPEC §2.7, §8). */
export type RateLimitRule = {
  /** A path prefix (`/api/`), an exact path, or `<collection|*>:<tag>`. */
  label: string
  audience: '' | '@guest' | '@auth'
  /** The window in seconds. */
  duration: number
  maxRequests: number
}

/** `rateLimits`: per-client request limits (off by default). */
export type RateLimitSettings = {
  enabled: boolean
  excludedIPs: string[]
  rules: RateLimitRule[]
}

/** `trustedProxy`: where the client IP is read from behind a proxy (reference §10.4). */
export type TrustedProxySettings = {
  headers: string[]
  useLeftmostIP: boolean
}

/** `logs`: request log retention and detail. */
export type LogsSettings = {
  maxDays: number
  minLevel: number
  logIP: boolean
  logAuthId: boolean
  /** Bytes of a log entry's data kept; 0 means unlimited. */
  maxDataSize: number
}

/** `llm`: the chat-completions provider; while disabled a network-free echo provider answers. */
export type LlmSettings = {
  enabled: boolean
  provider: string
  baseUrl: string
  /** Write-only. */
  apiKey: string
  model: string
}

/** `sms`: a Twilio-style SMS API; while disabled messages go to the log backend. */
export type SmsSettings = {
  enabled: boolean
  accountSid: string
  /** Write-only. */
  authToken: string
  /** The sender, in E.164 form. */
  fromNumber: string
}

/** A record-event to push rule (SPEC §2.7). */
export type PushTrigger = {
  enabled: boolean
  collection: string
  /** A comma-separated subset of `create`, `update`, `delete`. */
  events: string
  title: string
  body: string
  /** Empty broadcasts; otherwise the record field matched against subscriptions' `recordRef`. */
  targetField: string
}

/** `push`: the Web Push, FCM and APNs backends and the triggers that use them. */
export type PushSettings = {
  vapid: {
    enabled: boolean
    /** Raw unpadded base64url P-256 public key (65 bytes uncompressed). */
    publicKey: string
    /** Write-only: raw unpadded base64url P-256 private key (32 bytes). */
    privateKey: string
    /** A `mailto:` or `https:` contact URI. */
    subject: string
  }
  fcm: {
    enabled: boolean
    /** Write-only: the service-account key file contents. */
    serviceAccountJson: string
  }
  apns: {
    enabled: boolean
    /** Write-only: the `.p8` token-auth key contents. */
    key: string
    keyId: string
    teamId: string
    bundleId: string
    production: boolean
  }
  triggers: PushTrigger[]
}

/** `payments`: the webhook signature secret. */
export type PaymentsSettings = {
  /** Write-only. */
  webhookSecret: string
}

/** The settings object (SPEC §2.7, key names per DECISIONS). */
export type Settings = {
  meta: MetaSettings
  smtp: SmtpSettings
  s3: S3Settings
  backups: BackupsSettings
  batch: BatchSettings
  rateLimits: RateLimitSettings
  trustedProxy: TrustedProxySettings
  logs: LogsSettings
  superuserIPs: string[]
  llm: LlmSettings
  sms: SmsSettings
  push: PushSettings
  payments: PaymentsSettings
}

/** The defaults of every group (fresh objects on every call). */
export function defaultSettings(): Settings {
  const s3 = (): S3Settings => ({
    enabled: false,
    bucket: '',
    region: '',
    endpoint: '',
    accessKey: '',
    secret: '',
    forcePathStyle: false,
  })
  return {
    meta: {
      appName: 'svcbase',
      appURL: 'http://127.0.0.1:8090',
      senderName: 'Support',
      senderAddress: 'support@example.com',
      hideControls: false,
      accentColor: '#1055c9',
    },
    smtp: {
      enabled: false,
      host: 'smtp.example.com',
      port: 587,
      username: '',
      password: '',
      authMethod: '',
      tls: false,
      localName: '',
    },
    s3: s3(),
    backups: { cron: '', cronMaxKeep: 3, s3: s3() },
    batch: { enabled: false, maxRequests: 50, timeout: 3, maxBodySize: 0 },
    rateLimits: {
      enabled: false,
      excludedIPs: [],
      rules: [
        { label: '*:auth', audience: '', duration: 3, maxRequests: 2 },
        { label: '*:create', audience: '', duration: 5, maxRequests: 20 },
        { label: '/api/batch', audience: '', duration: 1, maxRequests: 3 },
        { label: '/api/', audience: '', duration: 10, maxRequests: 300 },
      ],
    },
    trustedProxy: { headers: [], useLeftmostIP: false },
    logs: { maxDays: 5, minLevel: 0, logIP: true, logAuthId: false, maxDataSize: 0 },
    superuserIPs: [],
    llm: {
      enabled: false,
      provider: 'openai',
      baseUrl: 'https://api.openai.com/v1',
      apiKey: '',
      model: 'gpt-4o-mini',
    },
    sms: { enabled: false, accountSid: '', authToken: '', fromNumber: '' },
    push: {
      vapid: { enabled: false, publicKey: '', privateKey: '', subject: '' },
      fcm: { enabled: false, serviceAccountJson: '' },
      apns: { enabled: false, key: '', keyId: '', teamId: '', bundleId: '', production: false },
      triggers: [],
    },
    payments: { webhookSecret: '' },
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Deep-merges `patch` onto `base`: objects merge key by key, anything else (arrays too) replaces. */
export function deepMerge<T extends Record<string, unknown>>(
  base: T,
  patch: Record<string, unknown>,
): T {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(patch)) {
    const mine = Object.hasOwn(out, k) ? out[k] : undefined
    const value = isObject(v) && isObject(mine) ? deepMerge(mine, v) : v
    // NB: defineProperty, so that a `__proto__` key stays data and never becomes a prototype.
    Object.defineProperty(out, k, { value, enumerable: true, writable: true, configurable: true })
  }
  return out as T
}

const kind = (v: unknown): string => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)

/**
 * Lays stored values over the defaults, keeping only the keys the defaults have and values of
 * the defaults' JSON kind, so that a row written by another version cannot break the readers.
 */
function overlayStored(
  defaults: Record<string, unknown>,
  stored: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...defaults }
  for (const [k, d] of Object.entries(defaults)) {
    if (!Object.hasOwn(stored, k)) continue
    const v = stored[k]
    if (isObject(d) && isObject(v)) out[k] = overlayStored(d, v)
    else if (kind(v) === kind(d)) out[k] = v
  }
  return out
}

/** Thrown when the stored settings cannot be read (encrypted without a key, wrong key, bad JSON). */
export class SettingsLoadError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause })
    this.name = 'SettingsLoadError'
  }
}

/** Parses stored JSON, or throws `SettingsLoadError`. */
function parseStored(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch (err) {
    throw new SettingsLoadError('The stored settings are not valid JSON.', err)
  }
}

/**
 * Checks a merged settings object before it is stored; throws (an `ApiError` with field errors)
 * to refuse it.
 */
export type SettingsCheck = (next: Settings) => void

/**
 * The stored settings, cached in memory: one JSON row `settings` in `_params`, merged over the
 * defaults. With an encryption key the row holds the JSON encrypted (AES-256-GCM) as a JSON
 * string; without one it holds the JSON object. Every change publishes a `settings` event.
 */
export class SettingsService {
  private current: Settings = defaultSettings()
  private readonly key: Buffer | null
  private readonly lock = new Mutex()

  /**
   * @param db the database of `_params`
   * @param events the bus a `{kind: 'settings'}` event goes to after each change
   * @param encryptionKey any non-empty secret string; when set, the stored row is encrypted
   */
  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
    encryptionKey?: string,
  ) {
    this.key = encryptionKey ? deriveKey(encryptionKey) : null
  }

  /** True when the stored settings are (or will be, on the next save) encrypted. */
  get encrypted(): boolean {
    return this.key !== null
  }

  /**
   * Loads the stored settings over the defaults. Throws `SettingsLoadError` when the row is
   * encrypted and no key (or another key) was given, or when it is not valid JSON. A plaintext
   * row is read as is with a key too; the next save encrypts it.
   */
  async load(): Promise<void> {
    const row = await this.db.get<{ value: string | null }>(
      sql`SELECT value FROM _params WHERE id = 'settings'`,
    )
    const stored = row?.value ? this.decode(row.value) : {}
    this.current = overlayStored(defaultSettings(), stored) as Settings
  }

  /** Parses a stored row: a JSON object, or a JSON string holding the encrypted JSON object. */
  private decode(value: string): Record<string, unknown> {
    let parsed = parseStored(value)
    if (typeof parsed === 'string' && isEncrypted(parsed)) {
      if (!this.key)
        throw new SettingsLoadError(
          'The stored settings are encrypted: start the app with the encryption key they were saved with (SVC_ENCRYPTION_KEY).',
        )
      let plain: string
      try {
        plain = decrypt(parsed, this.key)
      } catch (err) {
        throw new SettingsLoadError(
          'Cannot decrypt the stored settings: the encryption key (SVC_ENCRYPTION_KEY) is not the one they were saved with, or the data is corrupted.',
          err,
        )
      }
      parsed = parseStored(plain)
    }
    if (!isObject(parsed)) throw new SettingsLoadError('The stored settings are not a JSON object.')
    return parsed
  }

  /** The current settings (do not mutate). */
  get(): Settings {
    return this.current
  }

  /**
   * Deep-merges a patch onto the current settings (arrays replace; an omitted key keeps its
   * value), lets `check` refuse the result, stores it and returns it. Updates run one at a
   * time, so two concurrent patches never lose each other's keys.
   */
  async update(patch: Record<string, unknown>, check?: SettingsCheck): Promise<Settings> {
    return this.lock.runExclusive(async () => {
      const next = deepMerge(this.current, patch)
      check?.(next)
      const json = JSON.stringify(next)
      const value = this.key ? JSON.stringify(encrypt(json, this.key)) : json
      const now = nowDate()
      await this.db.run(
        sql`INSERT INTO _params (id, value, created, updated) VALUES ('settings', ${value}, ${now}, ${now})
            ON CONFLICT (id) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
      )
      this.current = next
      this.events.publish({ kind: 'settings' })
      return next
    })
  }
}
