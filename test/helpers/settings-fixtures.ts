/**
 * Values and small tools shared by the settings tests (test/settings-*.test.ts): the public
 * defaults, real push keys, and helpers for dotted paths and validation errors.
 */
import { createECDH, generateKeyPairSync } from 'node:crypto'
import { expect } from 'vitest'
import type { Scenario } from './scenario.js'
export const LOAD_FAILED = 'An error occurred while loading the submitted data.'
export const SAVE_FAILED = 'An error occurred while saving the new settings.'

/** The value at a dotted path (array indexes as numbers). */
export function at(value: unknown, path: string): any {
  let node: any = value
  for (const k of path.split('.')) node = node == null ? undefined : node[k]
  return node
}

/** A nested object with `value` at a dotted path. */
export function nest(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<any>((inner, k) => ({ [k]: inner }), value)
}

/** Deep-merges plain objects (test-side, for building patches). */
export function merge(a: any, b: any): any {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return b
  const out = { ...a }
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v
  return out
}

/** The dotted paths of every field error in a validation `data` object. */
export function errorPaths(data: any, prefix = ''): string[] {
  if (typeof data?.code === 'string' && typeof data.message === 'string') return [prefix]
  return Object.entries(data ?? {}).flatMap(([k, v]) =>
    errorPaths(v, prefix ? `${prefix}.${k}` : k),
  )
}

// Real keys, so the push settings are checked the way the push backends will read them.
export function vapidPair() {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    // NB: getPrivateKey drops leading zero bytes (1 key in 256); a VAPID key is always 32 bytes.
    privateKey: Buffer.from(ecdh.getPrivateKey().toString('hex').padStart(64, '0'), 'hex').toString(
      'base64url',
    ),
  }
}
export const ecPem = () =>
  generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
export const rsaPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
export const serviceAccount = (pem: string) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'svc-test',
    client_email: 'push@svc-test.iam.gserviceaccount.com',
    private_key: pem,
  })

/** The public defaults of every group (SPEC §2.7, DECISIONS), secrets left out. */
export const PUBLIC_DEFAULTS = {
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
  s3: {
    enabled: false,
    bucket: '',
    region: '',
    endpoint: '',
    accessKey: '',
    forcePathStyle: false,
  },
  backups: {
    cron: '',
    cronMaxKeep: 3,
    s3: {
      enabled: false,
      bucket: '',
      region: '',
      endpoint: '',
      accessKey: '',
      forcePathStyle: false,
    },
  },
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
  connections: { maxConnectionsPerIP: 2000, maxRealtimePerIP: 100, headersTimeout: 10 },
  reads: { timeoutMs: 5000 },
  webhooks: { allowPrivateNetworks: false, timeout: 10, maxAttempts: 12 },
  audit: { maxDays: 90 },
  llm: {
    enabled: false,
    provider: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
    timeout: 60,
    embeddingModel: 'text-embedding-3-small',
  },
  sms: { enabled: false, accountSid: '', fromNumber: '', apiUrl: 'https://api.twilio.com' },
  push: {
    allowPrivateNetworks: false,
    vapid: { enabled: false, publicKey: '', subject: '' },
    fcm: { enabled: false, apiUrl: 'https://fcm.googleapis.com', tokenUrl: '' },
    apns: {
      enabled: false,
      keyId: '',
      teamId: '',
      bundleId: '',
      production: false,
      apiUrl: '',
    },
    triggers: [],
  },
  oauth2: { allowPrivateNetworks: false },
  payments: {},
}

/** `[name, patch, {errorPath: code}]`: a PATCH that is refused with exactly these errors. */
export type RefusedCase = [string, unknown, Record<string, string>]

/** The scenario of a refused case: 400, exactly its error paths and codes, no settings event. */
export function refusal([name, patch, expected]: RefusedCase): Scenario {
  return {
    name: `refuses ${name}`,
    method: 'PATCH',
    url: '/api/settings',
    token: 'superuser',
    body: patch,
    expectedStatus: 400,
    expectedContent: [
      `"code":400,"message":"${SAVE_FAILED}"`,
      ...Object.values(expected).map((code) => `"code":"${code}"`),
    ],
    expectedEvents: { 'bus:settings': 0, '*': 0 },
    expect(res) {
      expect(res.body.code).toBe(400)
      expect(res.body.message).toBe(SAVE_FAILED)
      expect(errorPaths(res.body.data).sort(), JSON.stringify(res.body.data)).toEqual(
        Object.keys(expected).sort(),
      )
      for (const [path, code] of Object.entries(expected)) {
        expect(at(res.body.data, path).code, path).toBe(code)
        expect(at(res.body.data, path).message).toMatch(/^[A-Z].*\.$/)
      }
    },
  }
}
