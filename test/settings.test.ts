import { createECDH, generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppConfig } from '../src/core/app.js'
import type { BusEvent } from '../src/core/events.js'
import { silentLogger } from '../src/core/logger.js'
import { SECRET_PATHS } from '../src/core/settings-secrets.js'
import { createServer, type Server } from '../src/server.js'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const LOAD_FAILED = 'An error occurred while loading the submitted data.'
const SAVE_FAILED = 'An error occurred while saving the new settings.'

/** The value at a dotted path (array indexes as numbers). */
function at(value: unknown, path: string): any {
  let node: any = value
  for (const k of path.split('.')) node = node == null ? undefined : node[k]
  return node
}

/** A nested object with `value` at a dotted path. */
function nest(path: string, value: unknown): Record<string, unknown> {
  return path
    .split('.')
    .reverse()
    .reduce<any>((inner, k) => ({ [k]: inner }), value)
}

/** Deep-merges plain objects (test-side, for building patches). */
function merge(a: any, b: any): any {
  if (typeof a !== 'object' || a === null || Array.isArray(a)) return b
  const out = { ...a }
  for (const [k, v] of Object.entries(b)) out[k] = k in out ? merge(out[k], v) : v
  return out
}

/** The dotted paths of every field error in a validation `data` object. */
function errorPaths(data: any, prefix = ''): string[] {
  if (typeof data?.code === 'string' && typeof data.message === 'string') return [prefix]
  return Object.entries(data ?? {}).flatMap(([k, v]) =>
    errorPaths(v, prefix ? `${prefix}.${k}` : k),
  )
}

// Real keys, so the push settings are checked the way the push backends will read them.
function vapidPair() {
  const ecdh = createECDH('prime256v1')
  ecdh.generateKeys()
  return {
    publicKey: ecdh.getPublicKey().toString('base64url'),
    privateKey: ecdh.getPrivateKey().toString('base64url'),
  }
}
const ecPem = () =>
  generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
const rsaPem = () =>
  generateKeyPairSync('rsa', { modulusLength: 2048 })
    .privateKey.export({ type: 'pkcs8', format: 'pem' })
    .toString()
const serviceAccount = (pem: string) =>
  JSON.stringify({
    type: 'service_account',
    project_id: 'svc-test',
    client_email: 'push@svc-test.iam.gserviceaccount.com',
    private_key: pem,
  })

/** The public defaults of every group (SPEC §2.7, DECISIONS), secrets left out. */
const PUBLIC_DEFAULTS = {
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
  llm: {
    enabled: false,
    provider: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    model: 'gpt-4o-mini',
  },
  sms: { enabled: false, accountSid: '', fromNumber: '' },
  push: {
    vapid: { enabled: false, publicKey: '', subject: '' },
    fcm: { enabled: false },
    apns: { enabled: false, keyId: '', teamId: '', bundleId: '', production: false },
    triggers: [],
  },
  payments: {},
}

describe('GET/PATCH /api/settings access', () => {
  let t: TestServer
  let userToken: string

  beforeAll(async () => {
    t = await startServer()
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(() => t.close())

  it.each(['GET', 'PATCH'])(
    '%s answers 401 without a token and 403 for a non-superuser',
    async (m) => {
      const body = m === 'PATCH' ? { meta: { appName: 'Hijacked' } } : undefined
      const guest = await t.api(m, '/api/settings', { body })
      expect(guest.status).toBe(401)
      expect(guest.body).toEqual({
        code: 401,
        message: 'The request requires valid record authorization token.',
        data: {},
      })
      const user = await t.api(m, '/api/settings', { body, token: userToken })
      expect(user.status).toBe(403)
      expect(user.body).toEqual({
        code: 403,
        message: 'The authorized record is not allowed to perform this action.',
        data: {},
      })
      expect(t.server.app.settings.get().meta.appName).toBe('svcbase')
    },
  )

  it('returns the defaults of every group, secrets left out', async () => {
    const res = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(PUBLIC_DEFAULTS)
  })
})

describe('PATCH /api/settings merging and secrets', () => {
  let t: TestServer
  const get = async () => (await t.api('GET', '/api/settings', { token: t.suToken })).body
  const patch = (body: unknown) => t.api('PATCH', '/api/settings', { token: t.suToken, body })
  const stored = async () =>
    String(
      (
        await t.server.app.db.get<{ value: string }>(
          sql`SELECT value FROM _params WHERE id = 'settings'`,
        )
      )?.value,
    )

  const secrets: Record<string, string> = {
    'smtp.password': 'smtp-pass-5f1c',
    's3.secret': 's3-secret-77aa',
    'backups.s3.secret': 'backup-secret-90cd',
    'llm.apiKey': 'sk-llm-key-3e21',
    'sms.authToken': 'sms-token-aa01',
    'push.vapid.privateKey': vapidPair().privateKey,
    'push.fcm.serviceAccountJson': serviceAccount(rsaPem()),
    'push.apns.key': ecPem(),
    'payments.webhookSecret': 'whsec_0f9e8d',
  }
  /** A distinctive piece of each secret to look for in responses and rows. */
  const needle = (value: string) => (value.includes('BEGIN') ? value.slice(40, 80) : value)

  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('covers every write-only key of SPEC §2.7 and DECISIONS', () => {
    expect([...SECRET_PATHS].sort()).toEqual(Object.keys(secrets).sort())
  })

  it('stores every secret but never returns it from PATCH or GET', async () => {
    const body = Object.entries(secrets).reduce((acc, [p, v]) => merge(acc, nest(p, v)), {})
    const res = await patch(body)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const read = await get()
    for (const [path, value] of Object.entries(secrets)) {
      const parent = path.split('.').slice(0, -1).join('.')
      const key = path.split('.').at(-1)!
      for (const out of [res.body, read]) {
        expect(at(out, parent), path).toBeTypeOf('object')
        expect(at(out, parent), path).not.toHaveProperty(key)
        expect(JSON.stringify(out)).not.toContain(needle(value))
      }
      expect(at(t.server.app.settings.get(), path)).toBe(value)
    }
    // Without an encryption key the row holds the JSON as it is.
    expect(await stored()).toContain(secrets['sms.authToken'])
  })

  it('keeps omitted secrets, also when the GET result is sent back whole', async () => {
    expect((await patch({ smtp: { host: 'mail.example.org' } })).status).toBe(200)
    const roundTrip = await patch(await get())
    expect(roundTrip.status, JSON.stringify(roundTrip.body)).toBe(200)
    for (const [path, value] of Object.entries(secrets))
      expect(at(t.server.app.settings.get(), path), path).toBe(value)
    expect(t.server.app.settings.get().smtp.host).toBe('mail.example.org')
  })

  it('clears a secret sent as ""', async () => {
    const res = await patch({ smtp: { password: '' }, push: { apns: { key: '' } } })
    expect(res.status).toBe(200)
    const s = t.server.app.settings.get()
    expect(s.smtp.password).toBe('')
    expect(s.push.apns.key).toBe('')
    expect(s.s3.secret).toBe(secrets['s3.secret'])
    const body = Object.keys(secrets).reduce((acc, p) => merge(acc, nest(p, '')), {})
    expect((await patch(body)).status).toBe(200)
    for (const path of SECRET_PATHS) expect(at(t.server.app.settings.get(), path), path).toBe('')
    const row = await stored()
    for (const value of Object.values(secrets)) expect(row).not.toContain(needle(value))
  })

  it('deep-merges objects and replaces arrays', async () => {
    const before = await get()
    const res = await patch({
      meta: { appName: 'Merged' },
      backups: { s3: { bucket: 'only-this' } },
      rateLimits: { rules: [{ label: '/api/x', audience: '@auth', duration: 2, maxRequests: 9 }] },
      trustedProxy: { headers: ['X-Real-IP'] },
    })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(
      merge(before, {
        meta: { appName: 'Merged' },
        backups: { s3: { bucket: 'only-this' } },
        rateLimits: {
          rules: [{ label: '/api/x', audience: '@auth', duration: 2, maxRequests: 9 }],
        },
        trustedProxy: { headers: ['X-Real-IP'] },
      }),
    )
    expect(res.body.meta.senderName).toBe('Support')
    expect(res.body.backups.cronMaxKeep).toBe(3)
    expect(res.body.rateLimits.rules).toHaveLength(1)
    expect(await get()).toEqual(res.body)
    const emptied = await patch({ trustedProxy: { headers: [] }, rateLimits: { rules: [] } })
    expect(emptied.body.trustedProxy.headers).toEqual([])
    expect(emptied.body.rateLimits.rules).toEqual([])
  })

  it('accepts an empty body as a no-op', async () => {
    const before = await get()
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, raw: '' })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(before)
  })

  it('accepts a full, valid configuration of every group', async () => {
    const pair = vapidPair()
    const body = {
      meta: {
        appName: 'Full',
        appURL: 'https://app.example.com/base',
        senderName: 'Ops',
        senderAddress: 'ops@example.com',
        hideControls: true,
        accentColor: '#A0b1C2',
      },
      smtp: {
        enabled: true,
        host: '127.0.0.1',
        port: 2525,
        authMethod: 'LOGIN',
        localName: 'me.test',
      },
      s3: { enabled: false, endpoint: 'http://127.0.0.1:9000' },
      backups: {
        cron: '0 3 * * *',
        cronMaxKeep: 1,
        s3: {
          enabled: true,
          bucket: 'b',
          region: 'us-east-1',
          endpoint: 'https://s3.example.com',
          accessKey: 'AK',
          secret: 'SK',
          forcePathStyle: true,
        },
      },
      batch: { enabled: true, maxRequests: 10, timeout: 5, maxBodySize: 1024 },
      rateLimits: {
        enabled: true,
        excludedIPs: ['10.0.0.0/8', '::1'],
        rules: [
          { label: '/api/', audience: '@guest', duration: 10, maxRequests: 100 },
          { label: '/api/health', audience: '', duration: 1, maxRequests: 5 },
          { label: 'users:auth', audience: '@guest', duration: 3, maxRequests: 2 },
          { label: 'users:auth', audience: '@auth', duration: 3, maxRequests: 20 },
          { label: '*:create', audience: '', duration: 5, maxRequests: 20 },
        ],
      },
      trustedProxy: { headers: ['X-Forwarded-For', 'CF-Connecting-IP'], useLeftmostIP: true },
      logs: { maxDays: 0, minLevel: -4, logIP: false, logAuthId: true, maxDataSize: 4096 },
      superuserIPs: ['127.0.0.1', '::ffff:127.0.0.1', '192.168.0.0/16'],
      llm: {
        enabled: true,
        provider: 'ollama',
        baseUrl: 'http://127.0.0.1:11434/v1',
        apiKey: '',
        model: 'llama3',
      },
      sms: { enabled: true, accountSid: 'AC123', authToken: 'tok', fromNumber: '+14155550100' },
      push: {
        vapid: { enabled: true, ...pair, subject: 'mailto:ops@example.com' },
        fcm: { enabled: true, serviceAccountJson: serviceAccount(rsaPem()) },
        apns: {
          enabled: true,
          key: ecPem(),
          keyId: 'ABCDEFGHIJ',
          teamId: '1234567890',
          bundleId: 'com.example.app',
          production: true,
        },
        triggers: [
          {
            enabled: true,
            collection: 'users',
            events: 'create, update',
            title: 'Hello {{name}}',
            body: '',
            targetField: 'id',
          },
          {
            enabled: false,
            collection: 'users',
            events: 'delete',
            title: '',
            body: '',
            targetField: '',
          },
        ],
      },
      payments: { webhookSecret: 'whsec_x' },
    }
    const res = await patch(body)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.push.triggers).toEqual(body.push.triggers)
    expect(res.body.push.vapid).toEqual({
      enabled: true,
      publicKey: pair.publicKey,
      subject: 'mailto:ops@example.com',
    })
    expect(res.body.rateLimits).toEqual(body.rateLimits)
    expect(res.body.llm).toEqual({
      enabled: true,
      provider: 'ollama',
      baseUrl: 'http://127.0.0.1:11434/v1',
      model: 'llama3',
    })
    for (const cron of ['@daily', '*/15 * * * *', '0 0 * * 1-5', '5 4 1 JAN *'])
      expect((await patch({ backups: { cron } })).status, cron).toBe(200)
    // Switch the things off again, so nothing tries to reach the hosts above.
    const off = await patch({
      smtp: { enabled: false },
      backups: { cron: '', s3: { enabled: false } },
      batch: { enabled: false },
      rateLimits: { enabled: false },
      superuserIPs: [],
      llm: { enabled: false },
      sms: { enabled: false },
      push: { vapid: { enabled: false }, fcm: { enabled: false }, apns: { enabled: false } },
    })
    expect(off.status, JSON.stringify(off.body)).toBe(200)
  })

  it('publishes one settings event per change and none for a refused one', async () => {
    const seen: BusEvent[] = []
    const unsubscribe = t.server.app.events.subscribe((e) => {
      if (e.kind === 'settings') seen.push(e)
    })
    try {
      expect((await patch({ meta: { appName: 'Evented' } })).status).toBe(200)
      expect((await patch({ meta: { appName: '' } })).status).toBe(400)
      await new Promise((r) => setTimeout(r, 20))
      expect(seen).toEqual([{ kind: 'settings' }])
    } finally {
      unsubscribe()
    }
  })
})

describe('PATCH /api/settings validation', () => {
  let t: TestServer
  let before: unknown
  const pair = vapidPair()
  const other = vapidPair()
  const compressed = (() => {
    const e = createECDH('prime256v1')
    e.generateKeys()
    return e.getPublicKey(null, 'compressed').toString('base64url')
  })()
  const offCurve = (() => {
    const raw = Buffer.from(pair.publicKey, 'base64url')
    raw[64] = raw[64]! ^ 1
    return raw.toString('base64url')
  })()
  const rule = (extra: Record<string, unknown> = {}) => ({
    label: '/api/',
    audience: '',
    duration: 10,
    maxRequests: 5,
    ...extra,
  })
  const trigger = (extra: Record<string, unknown> = {}) => ({
    enabled: true,
    collection: 'users',
    events: 'create',
    title: 't',
    body: 'b',
    targetField: '',
    ...extra,
  })

  beforeAll(async () => {
    t = await startServer()
    before = (await t.api('GET', '/api/settings', { token: t.suToken })).body
  })
  afterAll(() => t.close())

  // [name, patch, {errorPath: code}]: the errors must be exactly these.
  const cases: [string, unknown, Record<string, string>][] = [
    // meta
    ['meta.appName empty', { meta: { appName: '' } }, { 'meta.appName': 'validation_required' }],
    ['meta.appName blank', { meta: { appName: '   ' } }, { 'meta.appName': 'validation_required' }],
    [
      'meta.appName too long',
      { meta: { appName: 'x'.repeat(256) } },
      { 'meta.appName': 'validation_length_out_of_range' },
    ],
    [
      'meta.appName a number',
      { meta: { appName: 5 } },
      { 'meta.appName': 'validation_invalid_value' },
    ],
    ['meta.appURL empty', { meta: { appURL: '' } }, { 'meta.appURL': 'validation_required' }],
    [
      'meta.appURL not a URL',
      { meta: { appURL: 'not a url' } },
      { 'meta.appURL': 'validation_is_url' },
    ],
    [
      'meta.appURL not http',
      { meta: { appURL: 'ftp://files.test' } },
      { 'meta.appURL': 'validation_is_url' },
    ],
    [
      'meta.senderName empty',
      { meta: { senderName: '' } },
      { 'meta.senderName': 'validation_required' },
    ],
    [
      'meta.senderName too long',
      { meta: { senderName: 'n'.repeat(256) } },
      { 'meta.senderName': 'validation_length_out_of_range' },
    ],
    [
      'meta.senderAddress empty',
      { meta: { senderAddress: '' } },
      { 'meta.senderAddress': 'validation_required' },
    ],
    [
      'meta.senderAddress invalid',
      { meta: { senderAddress: 'nope' } },
      { 'meta.senderAddress': 'validation_is_email' },
    ],
    [
      'meta.accentColor short',
      { meta: { accentColor: '#12345' } },
      { 'meta.accentColor': 'validation_match_invalid' },
    ],
    [
      'meta.accentColor a name',
      { meta: { accentColor: 'red' } },
      { 'meta.accentColor': 'validation_match_invalid' },
    ],
    [
      'meta.accentColor not hex',
      { meta: { accentColor: '#12345g' } },
      { 'meta.accentColor': 'validation_match_invalid' },
    ],
    [
      'meta.hideControls a string',
      { meta: { hideControls: 'yes' } },
      { 'meta.hideControls': 'validation_invalid_value' },
    ],
    // smtp
    [
      'smtp.host required when enabled',
      { smtp: { enabled: true, host: '' } },
      { 'smtp.host': 'validation_required' },
    ],
    [
      'smtp.port required when enabled',
      { smtp: { enabled: true, port: 0 } },
      { 'smtp.port': 'validation_required' },
    ],
    [
      'smtp.port too big',
      { smtp: { port: 70000 } },
      { 'smtp.port': 'validation_max_less_equal_than_required' },
    ],
    [
      'smtp.port negative',
      { smtp: { port: -1 } },
      { 'smtp.port': 'validation_min_greater_equal_than_required' },
    ],
    ['smtp.port a fraction', { smtp: { port: 25.5 } }, { 'smtp.port': 'validation_invalid_value' }],
    ['smtp.port a string', { smtp: { port: '587' } }, { 'smtp.port': 'validation_invalid_value' }],
    [
      'smtp.authMethod unknown',
      { smtp: { authMethod: 'CRAM-MD5' } },
      { 'smtp.authMethod': 'validation_in_invalid' },
    ],
    [
      'smtp.host not a host',
      { smtp: { host: 'bad host!' } },
      { 'smtp.host': 'validation_is_host' },
    ],
    [
      'smtp.localName not a host',
      { smtp: { localName: 'bad name!' } },
      { 'smtp.localName': 'validation_is_host' },
    ],
    [
      'smtp.enabled a string',
      { smtp: { enabled: 'true' } },
      { 'smtp.enabled': 'validation_invalid_value' },
    ],
    ['smtp.tls a number', { smtp: { tls: 1 } }, { 'smtp.tls': 'validation_invalid_value' }],
    [
      'smtp.password a number',
      { smtp: { password: 1234 } },
      { 'smtp.password': 'validation_invalid_value' },
    ],
    // s3 and backups.s3
    ...(['s3', 'backups.s3'] as const).flatMap((g): [string, unknown, Record<string, string>][] => [
      [
        `${g} required fields when enabled`,
        nest(g, { enabled: true }),
        Object.fromEntries(
          ['bucket', 'region', 'endpoint', 'accessKey', 'secret'].map((k) => [
            `${g}.${k}`,
            'validation_required',
          ]),
        ),
      ],
      [
        `${g}.endpoint not a URL`,
        nest(g, { endpoint: 'nope' }),
        { [`${g}.endpoint`]: 'validation_is_url' },
      ],
      [
        `${g}.forcePathStyle a string`,
        nest(g, { forcePathStyle: 'x' }),
        { [`${g}.forcePathStyle`]: 'validation_invalid_value' },
      ],
      [
        `${g}.secret null`,
        nest(g, { secret: null }),
        { [`${g}.secret`]: 'validation_invalid_value' },
      ],
    ]),
    // backups
    [
      'backups.cron garbage',
      { backups: { cron: 'not a cron' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron out of range',
      { backups: { cron: '61 * * * *' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron four fields',
      { backups: { cron: '* * * *' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron six fields',
      { backups: { cron: '*/5 * * * * *' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron unknown macro',
      { backups: { cron: '@sometimes' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cronMaxKeep 0 with cron',
      { backups: { cron: '0 3 * * *', cronMaxKeep: 0 } },
      { 'backups.cronMaxKeep': 'validation_required' },
    ],
    [
      'backups.cronMaxKeep negative with cron',
      { backups: { cron: '0 3 * * *', cronMaxKeep: -1 } },
      { 'backups.cronMaxKeep': 'validation_min_greater_equal_than_required' },
    ],
    [
      'backups.cronMaxKeep a string',
      { backups: { cronMaxKeep: '3' } },
      { 'backups.cronMaxKeep': 'validation_invalid_value' },
    ],
    ['backups.s3 a string', { backups: { s3: 'x' } }, { 'backups.s3': 'validation_invalid_value' }],
    // batch
    [
      'batch.maxRequests 0 when enabled',
      { batch: { enabled: true, maxRequests: 0 } },
      { 'batch.maxRequests': 'validation_required' },
    ],
    [
      'batch.timeout 0 when enabled',
      { batch: { enabled: true, timeout: 0 } },
      { 'batch.timeout': 'validation_required' },
    ],
    [
      'batch.maxRequests negative',
      { batch: { maxRequests: -1 } },
      { 'batch.maxRequests': 'validation_min_greater_equal_than_required' },
    ],
    [
      'batch.maxBodySize negative',
      { batch: { maxBodySize: -1 } },
      { 'batch.maxBodySize': 'validation_min_greater_equal_than_required' },
    ],
    [
      'batch.timeout a fraction',
      { batch: { timeout: 1.5 } },
      { 'batch.timeout': 'validation_invalid_value' },
    ],
    [
      'batch.timeout a duration string',
      { batch: { timeout: '3s' } },
      { 'batch.timeout': 'validation_invalid_value' },
    ],
    // rateLimits
    [
      'rateLimits.rules required when enabled',
      { rateLimits: { enabled: true, rules: [] } },
      { 'rateLimits.rules': 'validation_required' },
    ],
    [
      'rateLimits rule label empty',
      { rateLimits: { rules: [rule({ label: '' })] } },
      { 'rateLimits.rules.0.label': 'validation_required' },
    ],
    [
      'rateLimits rule label with a space',
      { rateLimits: { rules: [rule({ label: 'bad label' })] } },
      { 'rateLimits.rules.0.label': 'validation_match_invalid' },
    ],
    [
      'rateLimits rule label a plain word',
      { rateLimits: { rules: [rule({ label: 'api' })] } },
      { 'rateLimits.rules.0.label': 'validation_match_invalid' },
    ],
    [
      'rateLimits rule label without a tag',
      { rateLimits: { rules: [rule({ label: 'users:' })] } },
      { 'rateLimits.rules.0.label': 'validation_match_invalid' },
    ],
    [
      'rateLimits rule audience unknown',
      { rateLimits: { rules: [rule({ audience: '@admin' })] } },
      { 'rateLimits.rules.0.audience': 'validation_in_invalid' },
    ],
    [
      'rateLimits rule duration 0',
      { rateLimits: { rules: [rule({ duration: 0 })] } },
      { 'rateLimits.rules.0.duration': 'validation_required' },
    ],
    [
      'rateLimits rule duration negative',
      { rateLimits: { rules: [rule({ duration: -5 })] } },
      { 'rateLimits.rules.0.duration': 'validation_min_greater_equal_than_required' },
    ],
    [
      'rateLimits rule maxRequests 0',
      { rateLimits: { rules: [rule({ maxRequests: 0 })] } },
      { 'rateLimits.rules.0.maxRequests': 'validation_required' },
    ],
    [
      'rateLimits rule maxRequests a string',
      { rateLimits: { rules: [rule({ maxRequests: '5' })] } },
      { 'rateLimits.rules.0.maxRequests': 'validation_invalid_value' },
    ],
    [
      'rateLimits duplicate label and audience',
      { rateLimits: { rules: [rule(), rule({ maxRequests: 9 })] } },
      { 'rateLimits.rules.1.label': 'validation_conflicting_rate_limit_rule' },
    ],
    [
      'rateLimits "" conflicts with @guest',
      { rateLimits: { rules: [rule({ audience: '@guest' }), rule()] } },
      { 'rateLimits.rules.1.label': 'validation_conflicting_rate_limit_rule' },
    ],
    [
      'rateLimits rules not a list',
      { rateLimits: { rules: 'x' } },
      { 'rateLimits.rules': 'validation_invalid_value' },
    ],
    [
      'rateLimits rule not an object',
      { rateLimits: { rules: [5] } },
      { 'rateLimits.rules.0': 'validation_invalid_value' },
    ],
    [
      'rateLimits.excludedIPs item',
      { rateLimits: { excludedIPs: ['10.0.0.1', 'nope', '1.2.3.0/33'] } },
      {
        'rateLimits.excludedIPs.1': 'validation_invlaid_ip_or_subnet',
        'rateLimits.excludedIPs.2': 'validation_invlaid_ip_or_subnet',
      },
    ],
    [
      'rateLimits.excludedIPs not a list',
      { rateLimits: { excludedIPs: '10.0.0.1' } },
      { 'rateLimits.excludedIPs': 'validation_invalid_value' },
    ],
    [
      'rateLimits.enabled a string',
      { rateLimits: { enabled: 'on' } },
      { 'rateLimits.enabled': 'validation_invalid_value' },
    ],
    // trustedProxy
    [
      'trustedProxy.headers not a list',
      { trustedProxy: { headers: 'X-Real-IP' } },
      { 'trustedProxy.headers': 'validation_invalid_value' },
    ],
    [
      'trustedProxy header empty',
      { trustedProxy: { headers: ['X-Real-IP', ''] } },
      { 'trustedProxy.headers.1': 'validation_required' },
    ],
    [
      'trustedProxy header with a space',
      { trustedProxy: { headers: ['X Real IP'] } },
      { 'trustedProxy.headers.0': 'validation_match_invalid' },
    ],
    [
      'trustedProxy header a number',
      { trustedProxy: { headers: [5] } },
      { 'trustedProxy.headers.0': 'validation_invalid_value' },
    ],
    [
      'trustedProxy.useLeftmostIP a string',
      { trustedProxy: { useLeftmostIP: 'no' } },
      { 'trustedProxy.useLeftmostIP': 'validation_invalid_value' },
    ],
    // logs
    [
      'logs.maxDays negative',
      { logs: { maxDays: -1 } },
      { 'logs.maxDays': 'validation_min_greater_equal_than_required' },
    ],
    [
      'logs.minLevel a fraction',
      { logs: { minLevel: 1.5 } },
      { 'logs.minLevel': 'validation_invalid_value' },
    ],
    ['logs.logIP a string', { logs: { logIP: 'x' } }, { 'logs.logIP': 'validation_invalid_value' }],
    [
      'logs.logAuthId a number',
      { logs: { logAuthId: 1 } },
      { 'logs.logAuthId': 'validation_invalid_value' },
    ],
    [
      'logs.maxDataSize negative',
      { logs: { maxDataSize: -1 } },
      { 'logs.maxDataSize': 'validation_min_greater_equal_than_required' },
    ],
    // superuserIPs
    [
      'superuserIPs item',
      { superuserIPs: ['127.0.0.1', 'nope'] },
      { 'superuserIPs.1': 'validation_invlaid_ip_or_subnet' },
    ],
    [
      'superuserIPs not a list',
      { superuserIPs: '127.0.0.1' },
      { superuserIPs: 'validation_invalid_value' },
    ],
    ['superuserIPs null', { superuserIPs: null }, { superuserIPs: 'validation_invalid_value' }],
    // llm
    [
      'llm required fields when enabled',
      { llm: { enabled: true, baseUrl: '', model: '' } },
      { 'llm.baseUrl': 'validation_required', 'llm.model': 'validation_required' },
    ],
    [
      'llm.baseUrl not a URL',
      { llm: { baseUrl: 'api.openai.com' } },
      { 'llm.baseUrl': 'validation_is_url' },
    ],
    ['llm.apiKey a number', { llm: { apiKey: 5 } }, { 'llm.apiKey': 'validation_invalid_value' }],
    [
      'llm.provider null',
      { llm: { provider: null } },
      { 'llm.provider': 'validation_invalid_value' },
    ],
    // sms
    [
      'sms required fields when enabled',
      { sms: { enabled: true } },
      {
        'sms.accountSid': 'validation_required',
        'sms.authToken': 'validation_required',
        'sms.fromNumber': 'validation_required',
      },
    ],
    [
      'sms.fromNumber without +',
      { sms: { fromNumber: '14155550100' } },
      { 'sms.fromNumber': 'validation_match_invalid' },
    ],
    [
      'sms.fromNumber with a leading 0',
      { sms: { fromNumber: '+0123456' } },
      { 'sms.fromNumber': 'validation_match_invalid' },
    ],
    [
      'sms.fromNumber too long',
      { sms: { fromNumber: '+1234567890123456' } },
      { 'sms.fromNumber': 'validation_match_invalid' },
    ],
    // push.vapid
    [
      'push.vapid required fields when enabled',
      { push: { vapid: { enabled: true } } },
      {
        'push.vapid.publicKey': 'validation_required',
        'push.vapid.privateKey': 'validation_required',
        'push.vapid.subject': 'validation_required',
      },
    ],
    [
      'push.vapid.publicKey garbage',
      { push: { vapid: { publicKey: 'abc' } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey padded',
      {
        push: { vapid: { publicKey: Buffer.from(pair.publicKey, 'base64url').toString('base64') } },
      },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey compressed',
      { push: { vapid: { publicKey: compressed } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey off the curve',
      { push: { vapid: { publicKey: offCurve } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey a PEM',
      { push: { vapid: { publicKey: ecPem() } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.privateKey 31 bytes',
      { push: { vapid: { privateKey: Buffer.alloc(31, 1).toString('base64url') } } },
      { 'push.vapid.privateKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.privateKey of another pair',
      { push: { vapid: { publicKey: pair.publicKey, privateKey: other.privateKey } } },
      { 'push.vapid.privateKey': 'validation_vapid_key_mismatch' },
    ],
    [
      'push.vapid.subject http',
      { push: { vapid: { subject: 'http://example.com' } } },
      { 'push.vapid.subject': 'validation_match_invalid' },
    ],
    [
      'push.vapid.subject bad mailto',
      { push: { vapid: { subject: 'mailto:nobody' } } },
      { 'push.vapid.subject': 'validation_match_invalid' },
    ],
    // push.fcm
    [
      'push.fcm.serviceAccountJson required when enabled',
      { push: { fcm: { enabled: true } } },
      { 'push.fcm.serviceAccountJson': 'validation_required' },
    ],
    [
      'push.fcm.serviceAccountJson not JSON',
      { push: { fcm: { serviceAccountJson: '{' } } },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_json' },
    ],
    [
      'push.fcm.serviceAccountJson missing keys',
      { push: { fcm: { serviceAccountJson: '{"project_id":"p"}' } } },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_service_account' },
    ],
    [
      'push.fcm.serviceAccountJson bad private_key',
      {
        push: {
          fcm: {
            serviceAccountJson: JSON.stringify({
              project_id: 'p',
              client_email: 'a@b.co',
              private_key: 'nope',
            }),
          },
        },
      },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_service_account' },
    ],
    [
      'push.fcm.serviceAccountJson an object',
      { push: { fcm: { serviceAccountJson: { project_id: 'p' } } } },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_value' },
    ],
    // push.apns
    [
      'push.apns required fields when enabled',
      { push: { apns: { enabled: true } } },
      {
        'push.apns.key': 'validation_required',
        'push.apns.keyId': 'validation_required',
        'push.apns.teamId': 'validation_required',
        'push.apns.bundleId': 'validation_required',
      },
    ],
    [
      'push.apns.key not a PEM',
      { push: { apns: { key: 'nope' } } },
      { 'push.apns.key': 'validation_invalid_key' },
    ],
    [
      'push.apns.key an RSA key',
      { push: { apns: { key: rsaPem() } } },
      { 'push.apns.key': 'validation_invalid_key' },
    ],
    [
      'push.apns.keyId too short',
      { push: { apns: { keyId: 'ABC' } } },
      { 'push.apns.keyId': 'validation_length_invalid' },
    ],
    [
      'push.apns.teamId bad characters',
      { push: { apns: { teamId: 'ABCDE!GHIJ' } } },
      { 'push.apns.teamId': 'validation_match_invalid' },
    ],
    [
      'push.apns.bundleId with a space',
      { push: { apns: { bundleId: 'com.example app' } } },
      { 'push.apns.bundleId': 'validation_match_invalid' },
    ],
    [
      'push.apns.production a string',
      { push: { apns: { production: 'yes' } } },
      { 'push.apns.production': 'validation_invalid_value' },
    ],
    // push.triggers
    [
      'push.triggers not a list',
      { push: { triggers: {} } },
      { 'push.triggers': 'validation_invalid_value' },
    ],
    [
      'push trigger not an object',
      { push: { triggers: ['x'] } },
      { 'push.triggers.0': 'validation_invalid_value' },
    ],
    [
      'push trigger unknown collection',
      { push: { triggers: [trigger(), trigger({ collection: 'nope' })] } },
      { 'push.triggers.1.collection': 'validation_missing_collection' },
    ],
    [
      'push trigger collection empty',
      { push: { triggers: [trigger({ collection: '' })] } },
      { 'push.triggers.0.collection': 'validation_required' },
    ],
    [
      'push trigger events empty',
      { push: { triggers: [trigger({ events: '' })] } },
      { 'push.triggers.0.events': 'validation_required' },
    ],
    [
      'push trigger events unknown',
      { push: { triggers: [trigger({ events: 'create,drop' })] } },
      { 'push.triggers.0.events': 'validation_in_invalid' },
    ],
    [
      'push trigger events repeated',
      { push: { triggers: [trigger({ events: 'create,create' })] } },
      { 'push.triggers.0.events': 'validation_in_invalid' },
    ],
    [
      'push trigger events a list',
      { push: { triggers: [trigger({ events: ['create'] })] } },
      { 'push.triggers.0.events': 'validation_invalid_value' },
    ],
    [
      'push trigger title a number',
      { push: { triggers: [trigger({ title: 5 })] } },
      { 'push.triggers.0.title': 'validation_invalid_value' },
    ],
    [
      'push trigger body null',
      { push: { triggers: [trigger({ body: null })] } },
      { 'push.triggers.0.body': 'validation_invalid_value' },
    ],
    [
      'push trigger targetField a number',
      { push: { triggers: [trigger({ targetField: 1 })] } },
      { 'push.triggers.0.targetField': 'validation_invalid_value' },
    ],
    [
      'push trigger enabled a string',
      { push: { triggers: [trigger({ enabled: 'yes' })] } },
      { 'push.triggers.0.enabled': 'validation_invalid_value' },
    ],
    // payments
    [
      'payments.webhookSecret a number',
      { payments: { webhookSecret: 5 } },
      { 'payments.webhookSecret': 'validation_invalid_value' },
    ],
    // wrong group types
    ['meta a string', { meta: 'x' }, { meta: 'validation_invalid_value' }],
    ['push a list', { push: [] }, { push: 'validation_invalid_value' }],
    ['push.vapid null', { push: { vapid: null } }, { 'push.vapid': 'validation_invalid_value' }],
    ['logs a number', { logs: 5 }, { logs: 'validation_invalid_value' }],
    // unknown keys
    ['an unknown top-level key', { webhooks: [] }, { webhooks: 'validation_unknown_field' }],
    [
      'an unknown nested key',
      { meta: { appName: 'ok', colour: '#fff' } },
      { 'meta.colour': 'validation_unknown_field' },
    ],
    [
      'an unknown key in a rule',
      { rateLimits: { rules: [rule({ extra: 1 })] } },
      { 'rateLimits.rules.0.extra': 'validation_unknown_field' },
    ],
    [
      'an unknown key in a trigger',
      { push: { triggers: [trigger({ icon: 'x' })] } },
      { 'push.triggers.0.icon': 'validation_unknown_field' },
    ],
    // several groups at once
    [
      'errors of several groups together',
      { meta: { appName: '' }, smtp: { port: 0, enabled: true }, logs: { maxDays: -2 }, foo: 1 },
      {
        'meta.appName': 'validation_required',
        'smtp.port': 'validation_required',
        'logs.maxDays': 'validation_min_greater_equal_than_required',
        foo: 'validation_unknown_field',
      },
    ],
  ]

  it.each(cases)('refuses %s', async (_name, patch, expected) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body: patch })
    expect(res.status, JSON.stringify(res.body)).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.message).toBe(SAVE_FAILED)
    expect(errorPaths(res.body.data).sort(), JSON.stringify(res.body.data)).toEqual(
      Object.keys(expected).sort(),
    )
    for (const [path, code] of Object.entries(expected)) {
      expect(at(res.body.data, path).code, path).toBe(code)
      expect(at(res.body.data, path).message).toMatch(/^[A-Z].*\.$/)
    }
  })

  it('checks the merged result, not only the patch', async () => {
    const first = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { smtp: { host: '' } },
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const enable = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { smtp: { enabled: true } },
    })
    expect(enable.status).toBe(400)
    expect(enable.body.data).toEqual({
      smtp: { host: { code: 'validation_required', message: 'Cannot be blank.' } },
    })
    const restore = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { smtp: { host: 'smtp.example.com' } },
    })
    expect(restore.status).toBe(200)
  })

  it('refuses a __proto__ key without touching anything', async () => {
    const res = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      headers: { 'content-type': 'application/json' },
      raw: '{"__proto__": {"polluted": true}, "meta": {"__proto__": {"x": 1}}}',
    })
    expect(res.status).toBe(400)
    expect(res.body.data.__proto__.code).toBe('validation_unknown_field')
    expect(res.body.data.meta.__proto__.code).toBe('validation_unknown_field')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it.each([
    ['a list', '[1, 2]'],
    ['a string', '"meta"'],
    ['a number', '5'],
    ['null', 'null'],
    ['true', 'true'],
  ])('refuses a body that is %s', async (_name, raw) => {
    const res = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      headers: { 'content-type': 'application/json' },
      raw,
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, message: LOAD_FAILED, data: {} })
  })

  it('left the settings untouched through every refused change', async () => {
    const now = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(now.body).toEqual(before)
  })
})

describe('settings apply on the next request', () => {
  let t: TestServer
  let smtp: TestSmtp

  beforeAll(async () => {
    t = await startServer()
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const patch = async (body: unknown) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const testEmail = async (email: string) => {
    const res = await t.api('POST', '/api/settings/test/email', {
      token: t.suToken,
      body: { email, template: 'verification' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    return smtp.waitForMail((m) => m.to.includes(email))
  }

  it('uses a changed meta.appName, sender and appURL in the very next test email', async () => {
    await patch({
      meta: {
        appName: 'First Name',
        senderName: 'First Sender',
        senderAddress: 'first@example.com',
      },
      smtp: { enabled: true, host: smtp.host, port: smtp.port },
    })
    const first = await testEmail('one@example.com')
    expect(first.subject).toBe('Verify your First Name email')
    expect(first.fromHeader).toContain('first@example.com')
    expect(first.fromHeader).toContain('First Sender')

    await patch({ meta: { appName: 'Second Name', appURL: 'https://second.example.com' } })
    const second = await testEmail('two@example.com')
    expect(second.subject).toBe('Verify your Second Name email')
    expect(second.html).toContain('Second Name team')
    expect(second.html).toContain('https://second.example.com/_/#/auth/confirm-verification/')
    expect(second.html).not.toContain('First Name')
  })
})

describe('settings encrypted at rest (AppConfig.encryptionKey)', () => {
  // NB: needs createApp to pass `config.encryptionKey` to the SettingsService.
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-enc-'))
  const servers: Server[] = []
  const start = async (encryptionKey?: string) => {
    const config = { dataDir: dir, logger: silentLogger, encryptionKey } as AppConfig
    const server = await createServer(config)
    servers.push(server)
    return server
  }
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  })

  it('stores the settings row encrypted and reads it back only with the key', async () => {
    const server = await start('an operator secret')
    await server.app.settings.update({
      smtp: { password: 'pw-not-in-plaintext' },
      meta: { appName: 'Hidden Name' },
    })
    const row = await server.app.db.get<{ value: string }>(
      sql`SELECT value FROM _params WHERE id = 'settings'`,
    )
    expect(row?.value).toBeDefined()
    expect(row!.value).not.toContain('pw-not-in-plaintext')
    expect(row!.value).not.toContain('Hidden Name')
    await server.close()

    const again = await start('an operator secret')
    expect(again.app.settings.get().smtp.password).toBe('pw-not-in-plaintext')
    expect(again.app.settings.get().meta.appName).toBe('Hidden Name')
    await again.close()

    await expect(start()).rejects.toThrow(/encrypted/)
    await expect(start('another secret')).rejects.toThrow(/Cannot decrypt/)
  })
})
