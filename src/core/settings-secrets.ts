import type { Settings } from './settings.js'

/**
 * Write-only settings keys (SPEC §2.7, DECISIONS), as dotted paths: stored, never returned. The
 * one list every reader of secrets (masking, tests) goes by.
 */
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

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** A deep copy of the settings with every write-only secret removed (the key is absent). */
export function publicSettings(settings: Settings): Record<string, unknown> {
  const copy = structuredClone(settings) as Record<string, unknown>
  for (const path of SECRET_PATHS) {
    const keys = path.split('.')
    const last = keys.pop() ?? ''
    let node: unknown = copy
    for (const k of keys) node = isObject(node) ? node[k] : undefined
    if (isObject(node)) delete node[last]
  }
  return copy
}
