/**
 * `$http.send` in a `pb_migrations` file (src/features/hooks/pb/http-global.ts): each send is an
 * asynchronous op of the step's replay (migrate/replay.ts), made once between two runs of `up`.
 * PocketBase 0.40.4 applied the same migration against the same local target
 * (test/pocketbase/hooks/http-target.ts) and kept these titles, the target seeing one request
 * to `/hit`:
 *
 *   ["from target migration / hit 1 / {\"hit\":1}",
 *    "GoError: Get \"CLOSED/x\": dial tcp CLOSED_ADDR: connect: connection refused"]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { applyMigrations, MigrationError } from '../src/features/hooks/pb/migrate/runner.js'
import { startServer, type TestServer } from './helpers/server.js'
import { startHttpTarget, type HttpTarget } from './pocketbase/hooks/http-target.js'

const MIGRATION = `migrate((app) => {
  const res = $http.send({ url: "TARGET/name?n=migration" })
  console.log("migration got", res.statusCode)
  const c = new Collection({ type: "base", name: "fetched", fields: [{ name: "title", type: "text" }] })
  app.save(c)
  const r = new Record(c)
  r.set("title", res.json.name)
  app.save(r)
  const second = $http.send({ url: "TARGET/hit", method: "POST", body: "x" })
  r.set("title", r.get("title") + " / hit " + second.json.hit + " / " + toString(second.body))
  app.save(r)
  let err = ""
  try {
    $http.send({ url: "CLOSED/x" })
  } catch (e) {
    err = String(e)
  }
  const r2 = new Record(c)
  r2.set("title", err)
  app.save(r2)
}, (app) => {
  app.delete(app.findCollectionByNameOrId("fetched"))
})
`

const MANY = `migrate((app) => {
  for (let i = 0; i < 51; i++) $http.send({ url: "TARGET/hits" })
})
`

describe('$http.send in pb_migrations files', () => {
  let s: TestServer
  let target: HttpTarget
  const dirs: string[] = []
  const folder = (files: Record<string, string>): string => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-mig-http-'))
    dirs.push(dir)
    for (const [name, text] of Object.entries(files))
      writeFileSync(
        join(dir, name),
        text.replaceAll('TARGET', target.url).replaceAll('CLOSED', target.closed),
      )
    return dir
  }
  const allowPrivate = async (allow: boolean) => {
    const res = await s.api('PATCH', '/api/settings', {
      token: s.suToken,
      body: { webhooks: { allowPrivateNetworks: allow } },
    })
    expect(res.status).toBe(200)
  }

  beforeAll(async () => {
    target = await startHttpTarget()
    s = await startServer()
  })
  afterAll(async () => {
    await s.close()
    await target.close()
    for (const d of dirs) rmSync(d, { recursive: true, force: true })
  })

  it('refuses a loopback target while private networks are not allowed; nothing is kept', async () => {
    const dir = folder({ '1700000000_fetch.js': MIGRATION })
    const err = await applyMigrations(s.server.app, dir).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(MigrationError)
    expect((err as Error).message).toBe(
      `failed to apply migration 1700000000_fetch.js: Get "${target.url}/name?n=migration": refused: 127.0.0.1 resolves to 127.0.0.1 (loopback); private networks are not allowed`,
    )
    expect(s.server.app.collections.all().map((c) => c.name)).not.toContain('fetched')
  })

  it('sends each request once and gives the answers PocketBase gave', async () => {
    await allowPrivate(true)
    const dir = folder({ '1700000000_fetch.js': MIGRATION })
    const log = vi.spyOn(console, 'log').mockImplementation(() => undefined)
    try {
      expect(await applyMigrations(s.server.app, dir)).toEqual(['1700000000_fetch.js'])
      expect(log.mock.calls.filter((c) => String(c[0]).startsWith('migration got'))).toEqual([
        ['migration got 200'],
      ])
    } finally {
      log.mockRestore()
    }
    const list = await s.api('GET', '/api/collections/fetched/records', { token: s.suToken })
    const titles = (list.body.items as { title: string }[]).map((r) =>
      r.title.split(target.closed).join('CLOSED').split(target.closed.slice(7)).join('CLOSED_ADDR'),
    )
    // (Sorted: neither PocketBase nor svcbase promises an order for a list without a sort.)
    expect(titles.sort()).toEqual([
      'GoError: Get "CLOSED/x": dial tcp CLOSED_ADDR: connect: connection refused',
      'from target migration / hit 1 / {"hit":1}',
    ])
    expect(await (await fetch(`${target.url}/hits`)).json()).toEqual({ hits: 1 })
  })

  it('makes at most 50 sends per migration, with a clear error past them', async () => {
    const dir = folder({ '1700000001_many.js': MANY })
    const err = await applyMigrations(s.server.app, dir).catch((e: unknown) => e)
    expect((err as Error).message).toBe(
      "failed to apply migration 1700000001_many.js: $http.send: at most 50 calls per migration (svcbase's limit)",
    )
  })
})
