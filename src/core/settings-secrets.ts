import type { Settings } from './settings.js'

/** Write-only settings keys (SPEC §2.7, DECISIONS): stored, never returned. */
export const SECRET_PATHS: readonly string[] = [
  'smtp.password',
  's3.secret',
  'backups.s3.secret',
  'llm.apiKey',
  'sms.authToken',
  'push.vapid.privateKey',
  'push.fcm.serviceAccountJson',
  'push.apns.key',
  'payments.webhookSecret',
]

/** A deep copy of the settings with every write-only secret removed. */
export function publicSettings(settings: Settings): Record<string, unknown> {
  const copy = structuredClone(settings) as Record<string, unknown>
  for (const path of SECRET_PATHS) {
    const keys = path.split('.')
    let node: unknown = copy
    for (const k of keys.slice(0, -1)) {
      node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[k] : undefined
    }
    if (typeof node === 'object' && node !== null) delete (node as Record<string, unknown>)[keys.at(-1)!]
  }
  return copy
}
