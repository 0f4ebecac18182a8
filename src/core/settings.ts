import type { Db } from '../store/db.js'
import { sql } from '../store/sql.js'
import { nowDate } from '../tools/dates.js'
import type { EventBus } from './events.js'

/** The settings object (SPEC §2.7, key names per DECISIONS). */
export interface Settings {
  meta: {
    appName: string
    appURL: string
    senderName: string
    senderAddress: string
    hideControls: boolean
    accentColor: string
  }
  smtp: Record<string, unknown>
  s3: Record<string, unknown>
  backups: Record<string, unknown>
  batch: { enabled: boolean; maxRequests: number; timeout: number; maxBodySize: number }
  rateLimits: Record<string, unknown>
  trustedProxy: { headers: string[]; useLeftmostIP: boolean }
  logs: {
    maxDays: number
    minLevel: number
    logIP: boolean
    logAuthId: boolean
    maxDataSize: number
  }
  superuserIPs: string[]
  [group: string]: unknown
}

/** The defaults of every group. */
export function defaultSettings(): Settings {
  const s3 = {
    enabled: false,
    bucket: '',
    region: '',
    endpoint: '',
    accessKey: '',
    forcePathStyle: false,
  }
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
      authMethod: '',
      tls: false,
      localName: '',
    },
    s3: { ...s3 },
    backups: { cron: '', cronMaxKeep: 3, s3: { ...s3 } },
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
  }
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Deep-merges `patch` onto `base` (objects merge, everything else replaces). */
export function deepMerge<T extends Record<string, unknown>>(
  base: T,
  patch: Record<string, unknown>,
): T {
  const out: Record<string, unknown> = { ...base }
  for (const [k, v] of Object.entries(patch)) {
    out[k] = isObject(v) && isObject(out[k]) ? deepMerge(out[k], v) : v
  }
  return out as T
}

/**
 * The stored settings, cached in memory. The full settings API and its validation arrive with
 * the platform issue; this keeps the store and defaults the rest of the app reads.
 */
export class SettingsService {
  private current: Settings = defaultSettings()

  constructor(
    private readonly db: Db,
    private readonly events: EventBus,
  ) {}

  /** Loads the stored settings over the defaults. */
  async load(): Promise<void> {
    const row = await this.db.get<{ value: string | null }>(
      sql`SELECT value FROM _params WHERE id = 'settings'`,
    )
    const stored = row?.value ? (JSON.parse(row.value) as Record<string, unknown>) : {}
    this.current = deepMerge(defaultSettings(), stored)
  }

  /** The current settings (do not mutate). */
  get(): Settings {
    return this.current
  }

  /** Deep-merges a patch, stores it and returns the new settings. */
  async update(patch: Record<string, unknown>): Promise<Settings> {
    const next = deepMerge(this.current, patch)
    const now = nowDate()
    await this.db.run(
      sql`INSERT INTO _params (id, value, created, updated) VALUES ('settings', ${JSON.stringify(next)}, ${now}, ${now})
          ON CONFLICT (id) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
    )
    this.current = next
    this.events.publish({ kind: 'settings' })
    return next
  }
}
