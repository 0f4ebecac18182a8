/**
 * PocketBase's `*.pb.js` form where svcbase's asynchronous pipeline shows through (issue 13 part
 * 4, docs/hook-scripts.md "Where it differs from PocketBase"): `$app` inside a record hook is the
 * write's transaction, writes need a handler run to be queued on, `$apis` guards, `--dev`
 * reloads of a `*.pb.js` file, and a store without synchronous reads.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manageSuperuser, systemRequest } from '../src/core/auth/superusers.js'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import type { Db } from '../src/store/db.js'
import { createSqliteStore, type Store } from '../src/store/index.js'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  // Two handlers of one hook: the second runs inside the first's e.next().
  'items.pb.js': `onRecordCreate((e) => {
    $app.save(new Record("audit", { action: "in-tx", ref: e.record.getString("title") }))
    e.next()
}, "items")

onRecordCreate((e) => {
    const title = e.record.getString("title")
    // the audit record saved by the handler before, in this same transaction
    const seen = $app.findFirstRecordByFilter("audit", "ref = {:title}", { title: title })
    e.record.set("note", "audit " + seen.getString("action"))
    if (title === "rollback") {
        throw new BadRequestError("Rolled back on purpose.")
    }
    e.next()
}, "items")
`,
  'guards.pb.js': `routerAdd("GET", "/api/pb/admin", (e) => e.json(200, { ok: true }), $apis.requireSuperuserAuth())
routerAdd("GET", "/api/pb/guest", (e) => e.json(200, { ok: true }), $apis.requireGuestOnly())
routerAdd("GET", "/api/pb/members", (e) => e.json(200, { id: e.auth.id }), $apis.requireAuth("members"))
routerAdd("GET", "/api/pb/lookup", (e) => {
    const q = e.requestInfo().query
    const member = $app.findAuthRecordByEmail("members", q.email)
    const items = $app.findRecordsByIds("items", q.ids.split(","))
    return e.json(200, { member: member.email(), titles: items.map((r) => r.getString("title")).sort() })
})
routerAdd("GET", "/api/pb/async", async (e) => {
    await Promise.resolve()
    $app.save(new Record("audit", { action: "after await" }))
})
`,
  'z-forever.pb.js': `routerAdd("GET", "/api/pb/forever", (e) => e.json(200, {}))
while (true) {}
`,
  'z-toplevel.pb.js': `// writes need a handler run

$app.save(new Record("_superusers", { email: "top@example.com" }))
`,
}

describe('*.pb.js: transactions, queues and guards', () => {
  let t: HooksServer
  let memberToken = ''

  beforeAll(async () => {
    t = await startHooksServer(files, { dev: true })
    for (const body of [
      {
        name: 'items',
        type: 'base',
        createRule: '',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'note', type: 'text' },
        ],
      },
      {
        name: 'audit',
        type: 'base',
        fields: [
          { name: 'action', type: 'text' },
          { name: 'ref', type: 'text' },
        ],
      },
      { name: 'members', type: 'auth', createRule: '', fields: [] },
    ]) {
      const made = await t.api('POST', '/api/collections', { token: t.suToken, body })
      expect(made.status, made.text).toBe(200)
    }
    const password = 'member-pass-123'
    const member = await t.api('POST', '/api/collections/members/records', {
      body: { email: 'm@example.com', password, passwordConfirm: password },
    })
    expect(member.status, member.text).toBe(200)
    const login = await t.api('POST', '/api/collections/members/auth-with-password', {
      body: { identity: 'm@example.com', password },
    })
    memberToken = login.body.token as string
  })
  afterAll(() => t?.close())

  const auditRefs = async () => {
    const res = await t.api('GET', '/api/collections/audit/records?perPage=500', {
      token: t.suToken,
    })
    return (res.body.items as { ref: string; action: string }[]).map((r) => r.ref)
  }

  it('runs $app inside onRecordCreate in the write transaction: its saves join it, its finds see them', async () => {
    const kept = await t.api('POST', '/api/collections/items/records', { body: { title: 'keep' } })
    expect(kept.status, kept.text).toBe(200)
    expect(kept.body.note).toBe('audit in-tx')
    expect(await auditRefs()).toContain('keep')
    const failed = await t.api('POST', '/api/collections/items/records', {
      body: { title: 'rollback' },
    })
    expect(failed.status).toBe(400)
    expect(failed.body.message).toBe('Rolled back on purpose.')
    // the audit record saved earlier in the same transaction is rolled back with the item
    expect(await auditRefs()).not.toContain('rollback')
  })

  it('stops a file whose top level runs past 5 s; what it bound is gone, the server runs', async () => {
    expect((await t.api('GET', '/api/pb/forever')).status).toBe(404)
    expect((await t.api('GET', '/api/health')).status).toBe(200)
  })

  it('finds auth records by email (as written, as PocketBase) and records by ids', async () => {
    const a = await t.api('POST', '/api/collections/items/records', { body: { title: 'one' } })
    const b = await t.api('POST', '/api/collections/items/records', { body: { title: 'two' } })
    const ids = [a.body.id, 'missing0000000', b.body.id].join(',')
    // PocketBase compares the email as written unless the email index has COLLATE NOCASE.
    expect((await t.api('GET', `/api/pb/lookup?email=M%40EXAMPLE.com&ids=${ids}`)).status).toBe(404)
    const res = await t.api('GET', `/api/pb/lookup?email=m%40example.com&ids=${ids}`)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ member: 'm@example.com', titles: ['one', 'two'] })
    expect(
      (await t.api('GET', `/api/pb/lookup?email=nobody%40example.com&ids=${ids}`)).status,
    ).toBe(404)
  })

  it('guards routes with $apis.requireSuperuserAuth, requireGuestOnly and requireAuth(collection)', async () => {
    expect((await t.api('GET', '/api/pb/admin')).status).toBe(401)
    expect((await t.api('GET', '/api/pb/admin', { token: memberToken })).status).toBe(403)
    expect((await t.api('GET', '/api/pb/admin', { token: t.suToken })).status).toBe(200)
    expect((await t.api('GET', '/api/pb/guest')).status).toBe(200)
    const guest = await t.api('GET', '/api/pb/guest', { token: memberToken })
    expect(guest.status).toBe(400)
    expect(guest.body.message).toBe('The request can be accessed only by guests.')
    expect((await t.api('GET', '/api/pb/members', { token: t.suToken })).status).toBe(403)
    const member = await t.api('GET', '/api/pb/members', { token: memberToken })
    expect(member.status).toBe(200)
    expect(member.body.id).toMatch(/^[a-z0-9]{15}$/)
  })

  it('refuses a write with no handler run to queue it on: after an await, and at the top level', async () => {
    const res = await t.api('GET', '/api/pb/async')
    expect(res.status).toBe(400)
    const logged = t.logs.find(
      (l) => l.message === 'pb.js handler failed' && String(l.data.script).includes('guards'),
    )
    expect(logged?.data.error).toBe(
      '"$app.save" runs only inside a handler (a route, a hook or a cron job), not at the top level of a *.pb.js file.',
    )
    expect(logged?.data.script).toMatch(/guards\.pb\.js:12:\d+$/)
    const { errors } = t.server.app.services.get('hookScripts').listing()
    expect(errors).toEqual([
      expect.objectContaining({
        file: 'z-forever.pb.js',
        message: 'Script execution timed out after 5000ms',
      }),
      expect.objectContaining({
        file: 'z-toplevel.pb.js',
        line: 3,
        message:
          '"$app.save" runs only inside a handler (a route, a hook or a cron job), not at the top level of a *.pb.js file.',
      }),
    ])
  })

  it('reloads a changed *.pb.js file with --dev, unbinding what the old version bound', async () => {
    // (every reload runs every file: the file that loops for 5 s goes first)
    rmSync(join(t.hooksDir, 'z-forever.pb.js'))
    const hooks = t.server.app.hooks.onRecordCreate.length
    const route = (v: number) =>
      `routerAdd("GET", "/api/pb/version", (e) => e.json(200, { v: ${v} }))\nonRecordCreate((e) => e.next(), "items")\n`
    t.write('v.pb.js', route(1))
    const served = async (v: number) => {
      const res = await t.api('GET', '/api/pb/version')
      return res.status === 200 && res.body.v === v
    }
    // the old version's handler unbound: one handler of v.pb.js at any time once settled
    const settled = async (v: number) => {
      const end = Date.now() + 5000
      while (Date.now() < end) {
        if ((await served(v)) && t.server.app.hooks.onRecordCreate.length === hooks + 1) return
        await new Promise((r) => setTimeout(r, 25))
      }
      throw new Error(`version ${v} not served with ${hooks + 1} handlers within 5 s`)
    }
    await settled(1)
    t.write('v.pb.js', route(2))
    await settled(2)
  })
})

/** A store like SQLite's but without synchronous reads, as an asynchronous driver's would be. */
function withoutSyncReads(store: Store): Store {
  const strip = (db: Db): Db =>
    new Proxy(db, {
      get(target, key, receiver) {
        if (key === 'allSync' || key === 'getSync') return undefined
        if (key === 'transaction')
          return <T>(fn: (tx: Db) => Promise<T>) => target.transaction((tx) => fn(strip(tx)))
        const v = Reflect.get(target, key, receiver) as unknown
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
      },
    })
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'database') return (name: 'main' | 'auxiliary') => strip(target.database(name))
      const v = Reflect.get(target, key, receiver) as unknown
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v
    },
  })
}

describe('*.pb.js on a store without synchronous reads', () => {
  it('fails a find with a clear error naming it, while writes still work', async () => {
    const project = mkdtempSync(join(tmpdir(), 'svcbase-pb-nosync-'))
    const hooksDir = join(project, 'hooks')
    mkdirSync(hooksDir)
    writeFileSync(
      join(hooksDir, 'find.pb.js'),
      `routerAdd("GET", "/api/pb/find", (e) => e.json(200, $app.findRecordById("_superusers", "x")))
routerAdd("POST", "/api/pb/write", (e) => {
    $app.save(new Record("_superusers", { email: "second@example.com", password: "second-pass-123" }))
    return e.json(200, { queued: true })
})
`,
    )
    const dataDir = join(project, 'data')
    const errors: Record<string, unknown>[] = []
    const server = await createServer({
      dataDir,
      hooksDir,
      logger: { ...silentLogger, error: (_m, data = {}) => void errors.push(data) },
      store: withoutSyncReads(createSqliteStore({ dir: dataDir })),
    })
    try {
      const url = await server.http.listen({ host: '127.0.0.1', port: 0 })
      await manageSuperuser(server.app, 'create', 'first@example.com', 'first-pass-123')
      const find = await fetch(`${url}/api/pb/find`)
      expect(find.status).toBe(500)
      expect(errors).toContainEqual({
        script: expect.stringMatching(/find\.pb\.js:1:\d+$/),
        error:
          '"$app.findRecordById" needs synchronous reads, which this store does not offer; use an ES module hook script (await app.records…) with this store.',
      })
      const write = await fetch(`${url}/api/pb/write`, { method: 'POST' })
      expect(write.status).toBe(200)
      const su = server.app.collections.get('_superusers')
      const list = await server.app.records.list(su, {}, systemRequest(server.app))
      expect(list.items.map((r) => r.email).sort()).toEqual([
        'first@example.com',
        'second@example.com',
      ])
    } finally {
      await server.close()
      rmSync(project, { recursive: true, force: true })
    }
  })
})
