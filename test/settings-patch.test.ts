/**
 * PATCH /api/settings: deep merge, write-only secrets (stored, never returned, kept when omitted,
 * cleared with ""), a full valid configuration of every group, and the settings bus event.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BusEvent } from '../src/core/events.js'
import { sql } from '../src/store/sql.js'
import { SECRET_PATHS } from './helpers/settings-groups.js'
import { startServer, type TestServer } from './helpers/server.js'
import {
  at,
  ecPem,
  merge,
  nest,
  rsaPem,
  serviceAccount,
  vapidPair,
} from './helpers/settings-fixtures.js'

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
      timeout: 60,
      embeddingModel: 'text-embedding-3-small',
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
