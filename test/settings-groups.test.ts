import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { manageSuperuser } from '../src/core/auth/superusers.js'
import { fieldError } from '../src/core/errors.js'
import { silentLogger } from '../src/core/logger.js'
import { isUrl, notUrl, objectGroup } from '../src/core/settings/index.js'
import { createServer, type Server } from '../src/server.js'
import { sql } from '../src/store/sql.js'

/** The settings of the fake feature: a relay with a write-only token. */
type RelaySettings = { enabled: boolean; url: string; token: string; retries: number }

/** The group the fake feature declares: its own defaults, validator and write-only key. */
const relaySettings = objectGroup<RelaySettings>({
  key: 'relay',
  secrets: ['token'],
  defaults: () => ({ enabled: false, url: '', token: '', retries: 3 }),
  check(g) {
    const on = g.boolean('enabled')
    const url = g.requiredString('url', on)
    if (url !== undefined && !isUrl(url)) g.fail('url', notUrl())
    g.requiredString('token', on)
    const retries = g.integer('retries')
    if (retries !== undefined && (retries < 0 || retries > 10))
      g.fail('retries', fieldError('validation_relay_retries', 'Must be between 0 and 10.'))
  },
})

/** A feature that is not part of the server: all it does is declare its settings group. */
const relayFeature = {
  register(app: App): void {
    app.settings.registerGroup(relaySettings)
  },
}

const relayOf = (app: App): RelaySettings =>
  (app.settings.get() as unknown as { relay: RelaySettings }).relay

const SU = { email: 'relay-admin@example.com', password: 'supersecret123' }

/** A server with its own directory and a superuser; `withRelay` registers the fake feature. */
async function start(dir: string, opts: { key?: string; withRelay?: boolean } = {}) {
  const server = await createServer({ dataDir: dir, logger: silentLogger, encryptionKey: opts.key })
  if (opts.withRelay !== false) relayFeature.register(server.app)
  await manageSuperuser(server.app, 'upsert', SU.email, SU.password)
  const login = await server.http.inject({
    method: 'POST',
    url: '/api/collections/_superusers/auth-with-password',
    payload: { identity: SU.email, password: SU.password },
  })
  const token = String(login.json().token)
  const api = async (method: 'GET' | 'PATCH', body?: unknown) => {
    const res = await server.http.inject({
      method,
      url: '/api/settings',
      headers: { authorization: token },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    })
    return { status: res.statusCode, body: res.json(), text: res.body }
  }
  const row = async () =>
    (
      await server.app.db.get<{ value: string }>(
        sql`SELECT value FROM _params WHERE id = 'settings'`,
      )
    )?.value ?? ''
  return { server, api, row }
}

describe('a settings group declared by a feature', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-groups-'))
  let s: Awaited<ReturnType<typeof start>>

  beforeAll(async () => {
    s = await start(dir)
  })
  afterAll(async () => {
    await s.server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('shows its defaults in GET, after the built-in groups, without its write-only key', async () => {
    const res = await s.api('GET')
    expect(res.status).toBe(200)
    expect(res.body.relay).toEqual({ enabled: false, url: '', retries: 3 })
    expect(Object.keys(res.body).slice(-2)).toEqual(['audit', 'relay'])
    expect(res.body.meta.appName).toBe('svcbase')
  })

  it('validates a PATCH through its own validator and stores nothing refused', async () => {
    const before = await s.row()
    const res = await s.api('PATCH', { relay: { enabled: true, url: 'not a url', retries: 11 } })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual({
      relay: {
        url: { code: 'validation_is_url', message: 'Must be a valid URL.' },
        token: { code: 'validation_required', message: 'Cannot be blank.' },
        retries: { code: 'validation_relay_retries', message: 'Must be between 0 and 10.' },
      },
    })
    const wrongType = await s.api('PATCH', { relay: 'on' })
    expect(wrongType.status).toBe(400)
    expect(wrongType.body.data).toEqual({
      relay: { code: 'validation_invalid_value', message: 'Must be an object.' },
    })
    expect(await s.row()).toBe(before)
    expect(relayOf(s.server.app).enabled).toBe(false)
  })

  it('stores its write-only key but never returns it, and keeps it when omitted', async () => {
    const token = 'relay-token-6b1f0e'
    const patch = { relay: { enabled: true, url: 'https://relay.example.com', token } }
    const res = await s.api('PATCH', patch)
    expect(res.status, res.text).toBe(200)
    expect(res.body.relay).toEqual({ enabled: true, url: 'https://relay.example.com', retries: 3 })
    expect(res.text).not.toContain(token)
    const read = await s.api('GET')
    expect(read.body.relay).not.toHaveProperty('token')
    expect(read.text).not.toContain(token)
    expect(relayOf(s.server.app).token).toBe(token)
    // Without an encryption key the row holds the JSON as it is.
    expect(await s.row()).toContain(token)
    expect((await s.api('PATCH', { relay: { retries: 0 } })).status).toBe(200)
    expect(relayOf(s.server.app)).toEqual({ ...patch.relay, retries: 0 })
  })

  it('ignores unknown groups (as PocketBase) and refuses unknown keys inside a group', async () => {
    const res = await s.api('PATCH', { relays: {}, relay: { colour: 'red' }, meta: { x: 1 } })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual({
      relay: { colour: { code: 'validation_unknown_field', message: 'Unknown field.' } },
      meta: { x: { code: 'validation_unknown_field', message: 'Unknown field.' } },
    })
  })

  it('cannot take a key that is already registered', () => {
    expect(() => s.server.app.settings.registerGroup({ ...relaySettings })).toThrow(/already/)
    expect(() => s.server.app.settings.registerGroup({ ...relaySettings, key: 'meta' })).toThrow(
      /already/,
    )
  })
})

describe('a feature group at rest', () => {
  const dirs: string[] = []
  const servers: Server[] = []
  const newDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-groups-rest-'))
    dirs.push(dir)
    return dir
  }
  const open = async (dir: string, opts: { key?: string; withRelay?: boolean }) => {
    const s = await start(dir, opts)
    servers.push(s.server)
    return s
  }

  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => undefined)
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  })

  it('is encrypted with the key and read back by the next start', async () => {
    const key = 'relay operator secret'
    const dir = newDir()
    const first = await open(dir, { key })
    const token = 'relay-token-at-rest-93a2'
    const url = 'https://relay-at-rest.example.com'
    expect((await first.api('PATCH', { relay: { url, token } })).status).toBe(200)
    const row = await first.row()
    expect(row).not.toContain(token)
    expect(row).not.toContain(url)
    expect(JSON.parse(row)).toMatch(/^svcenc:v1:/)
    await first.server.close()

    const second = await open(dir, { key })
    expect(relayOf(second.server.app)).toEqual({ enabled: false, url, token, retries: 3 })
    const read = await second.api('GET')
    expect(read.body.relay).toEqual({ enabled: false, url, retries: 3 })
    expect(read.text).not.toContain(token)
  })

  it('survives a run without its feature: the stored group is written back untouched', async () => {
    const dir = newDir()
    const first = await open(dir, {})
    const relay = {
      enabled: false,
      url: 'https://kept.example.com',
      token: 'kept-token',
      retries: 1,
    }
    expect((await first.api('PATCH', { relay })).status).toBe(200)
    await first.server.close()

    const without = await open(dir, { withRelay: false })
    const res = await without.api('PATCH', { meta: { appName: 'Changed meanwhile' } })
    expect(res.status).toBe(200)
    expect(res.body).not.toHaveProperty('relay')
    // A group no feature reads is ignored in a PATCH (as PocketBase ignores unknown keys).
    expect((await without.api('PATCH', { relay: {} })).status).toBe(200)
    await without.server.close()

    const again = await open(dir, {})
    expect(relayOf(again.server.app)).toEqual(relay)
    expect(again.server.app.settings.get().meta.appName).toBe('Changed meanwhile')
  })
})
