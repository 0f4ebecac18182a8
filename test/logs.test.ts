import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { LogWriter } from '../src/features/logs/index.js'
import { ident, sql } from '../src/store/sql.js'
import { formatDate } from '../src/tools/dates.js'
import { newId } from '../src/tools/ids.js'
import { startServer, type TestServer } from './helpers/server.js'

const HOUR_RE = /^\d{4}-\d{2}-\d{2} \d{2}:00:00\.000Z$/
const DATE_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('request logs', () => {
  let t: TestServer
  let user: { id: string; token: string }
  let suId: string

  /** Writes every queued log, then empties `_logs`. */
  const reset = async () => {
    await t.server.app.services.get('logs').flush()
    await t.server.app.auxDb.run(sql`DELETE FROM _logs`)
  }
  const flush = () => t.server.app.services.get('logs').flush()
  const setLogs = async (logs: Record<string, unknown>) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body: { logs } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  /** Every stored log, oldest first, through the API. */
  const allLogs = async (filter = '') => {
    const q = new URLSearchParams({ perPage: '1000', sort: '@rowid', filter })
    const res = await t.api('GET', `/api/logs?${q.toString()}`, { token: t.suToken })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.items as {
      id: string
      created: string
      data: Record<string, any>
      message: string
      level: number
    }[]
  }
  /** Inserts a log row directly, as an old entry would be stored. */
  const insertRow = async (created: string, message = 'old', data: unknown = { type: 'test' }) => {
    const id = newId()
    await t.server.app.auxDb.run(
      sql`INSERT INTO _logs (id, level, message, data, created, updated) VALUES (${id}, 0, ${message}, ${JSON.stringify(data)}, ${created}, ${created})`,
    )
    return id
  }

  beforeAll(async () => {
    t = await startServer()
    const email = 'logger@example.com'
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: email, password: 'password123' },
    })
    expect(login.status).toBe(200)
    user = { id: created.body.id, token: login.body.token }
    const sus = await t.api('GET', '/api/collections/_superusers/records', { token: t.suToken })
    suId = sus.body.items[0].id
  })
  afterAll(async () => {
    await t?.close()
  })

  it('stores exactly one row per request for 10,000 requests', async () => {
    await reset()
    const total = 10_000
    const concurrency = 50
    const started = performance.now()
    let next = 0
    const worker = async () => {
      while (next < total) {
        const n = next++
        const res = await fetch(`${t.url}/api/health?n=${n}`)
        expect(res.status).toBe(200)
        await res.arrayBuffer()
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    const sent = performance.now()
    await flush()
    const flushed = performance.now()
    console.log(
      `10,000 requests: sent in ${Math.round(sent - started)} ms, flushed ${Math.round(flushed - sent)} ms later`,
    )
    expect(t.server.app.services.get('logs').writer.dropped).toBe(0)
    expect(t.server.app.services.get('logs').writer.pending).toBe(0)
    const row = await t.server.app.auxDb.get<{ n: number; urls: number }>(
      sql`SELECT COUNT(*) AS n, COUNT(DISTINCT ${t.server.app.auxDb.dialect.jsonExtract(ident('data'), ['url'])}) AS urls FROM _logs`,
    )
    expect(row).toEqual({ n: total, urls: total })
    const res = await t.api('GET', '/api/logs?perPage=1&filter=data.url~%27/api/health%27', {
      token: t.suToken,
    })
    expect(res.body.totalItems).toBe(total)
  }, 180_000)

  it('writes in the background without an explicit flush', async () => {
    await reset()
    expect((await t.api('GET', '/api/health?background=1')).status).toBe(200)
    const deadline = Date.now() + 5000
    let rows: { n: number } | undefined
    do {
      await new Promise((r) => setTimeout(r, 50))
      rows = await t.server.app.auxDb.get<{ n: number }>(sql`SELECT COUNT(*) AS n FROM _logs`)
    } while (rows?.n === 0 && Date.now() < deadline)
    expect(rows?.n).toBe(1)
  })

  it('stores the request in PocketBase’s shape', async () => {
    await reset()
    const res = await t.api('GET', '/api/health?x=%C3%A9t%C3%A9', {
      headers: { 'user-agent': 'log-test/1.0', referer: 'http://example.com/page' },
    })
    expect(res.status).toBe(200)
    await flush()
    const [log, ...rest] = await allLogs()
    expect(rest).toEqual([])
    expect(Object.keys(log!)).toEqual(['id', 'created', 'data', 'message', 'level'])
    expect(log!.id).toMatch(/^[a-z0-9]{15}$/)
    expect(log!.created).toMatch(DATE_RE)
    expect(log!.level).toBe(0)
    expect(log!.message).toBe('GET /api/health?x=été')
    expect(log!.data).toEqual({
      type: 'request',
      url: '/api/health?x=%C3%A9t%C3%A9',
      method: 'GET',
      status: 200,
      execTime: expect.any(Number),
      referer: 'http://example.com/page',
      userAgent: 'log-test/1.0',
      auth: '',
      userIP: '127.0.0.1',
      remoteIP: expect.stringMatching(/127\.0\.0\.1$/),
    })
    expect(log!.data.execTime).toBeGreaterThanOrEqual(0)
  })

  it('logs failures at error level with the error and its details', async () => {
    await reset()
    expect((await t.api('GET', '/api/nope')).status).toBe(404)
    const bad = await t.api('POST', '/api/collections/users/records', { body: { email: 'x' } })
    expect(bad.status).toBe(400)
    await flush()
    const logs = await allLogs()
    expect(logs.map((l) => [l.message, l.level, l.data.status])).toEqual([
      ['GET /api/nope', 8, 404],
      ['POST /api/collections/users/records', 8, 400],
    ])
    expect(logs[1]!.data.error).toBe(bad.body.message)
    expect(logs[1]!.data.details).toEqual(bad.body.data)
  })

  it('never logs /metrics, the realtime stream or successful logs API calls', async () => {
    await reset()
    expect((await t.api('GET', '/metrics')).status).toBe(200)
    const abort = new AbortController()
    const stream = await fetch(`${t.url}/api/realtime`, { signal: abort.signal })
    abort.abort()
    await stream.body?.cancel().catch(() => {})
    expect((await t.api('GET', '/api/logs', { token: t.suToken })).status).toBe(200)
    expect((await t.api('GET', '/api/logs/stats', { token: t.suToken })).status).toBe(200)
    expect((await t.api('GET', '/api/logs', { token: user.token })).status).toBe(403)
    expect((await t.api('GET', '/api/health')).status).toBe(200)
    // The stream's response ends when the client goes away; give its hook a moment.
    await new Promise((r) => setTimeout(r, 200))
    await flush()
    const logs = await allLogs()
    expect(logs.map((l) => `${l.message} ${l.data.status}`)).toEqual([
      'GET /api/logs 403',
      'GET /api/health 200',
    ])
  })

  it('honours logIP and logAuthId', async () => {
    await reset()
    await t.api('GET', '/api/health', { token: t.suToken })
    await t.api('GET', '/api/health', { token: user.token })
    await setLogs({ logIP: false, logAuthId: true })
    try {
      await t.api('GET', '/api/health', { token: t.suToken })
      await t.api('GET', '/api/health', { token: user.token })
      await t.api('GET', '/api/health')
    } finally {
      await setLogs({ logIP: true, logAuthId: false })
    }
    await flush()
    const logs = (await allLogs()).filter((l) => l.message === 'GET /api/health')
    expect(logs).toHaveLength(5)
    const [su1, user1, su2, user2, guest] = logs.map((l) => l.data)
    expect(su1).toMatchObject({ auth: '_superusers', userIP: '127.0.0.1' })
    expect(su1).not.toHaveProperty('authId')
    expect(user1).toMatchObject({ auth: 'users', userIP: '127.0.0.1' })
    expect(user1).toHaveProperty('remoteIP')
    expect(user1).not.toHaveProperty('authId')
    expect(su2).toMatchObject({ auth: '_superusers', authId: suId })
    expect(user2).toMatchObject({ auth: 'users', authId: user.id })
    expect(guest).toMatchObject({ auth: '', authId: '' })
    for (const d of [su2, user2, guest]) {
      expect(d).not.toHaveProperty('userIP')
      expect(d).not.toHaveProperty('remoteIP')
    }
  })

  it('drops entries below minLevel and stores nothing when maxDays is 0', async () => {
    await reset()
    await setLogs({ minLevel: 4 })
    try {
      expect((await t.api('GET', '/api/health')).status).toBe(200)
      expect((await t.api('GET', '/api/missing')).status).toBe(404)
    } finally {
      await setLogs({ minLevel: 0 })
    }
    await flush()
    expect((await allLogs()).map((l) => [l.message, l.level])).toEqual([
      ['GET /api/missing', 8],
      ['PATCH /api/settings', 0],
    ])

    await reset()
    await setLogs({ maxDays: 0 })
    try {
      await t.api('GET', '/api/health')
      await t.api('GET', '/api/missing')
    } finally {
      await setLogs({ maxDays: 5 })
    }
    await flush()
    expect((await allLogs()).map((l) => l.message)).toEqual(['PATCH /api/settings'])
  })

  it('truncates data beyond maxDataSize and long headers always', async () => {
    await reset()
    const agent = 'agent-'.repeat(1000)
    await t.api('GET', '/api/health?long=1', { headers: { 'user-agent': agent } })
    await setLogs({ maxDataSize: 300 })
    try {
      await t.api('GET', '/api/health?long=2', { headers: { 'user-agent': agent } })
      await t.api('GET', '/api/health?short=1', { headers: { 'user-agent': 'tiny' } })
    } finally {
      await setLogs({ maxDataSize: 0 })
    }
    await flush()
    const rows = await t.server.app.auxDb.all<{ message: string; data: string }>(
      sql`SELECT message, data FROM _logs WHERE message LIKE 'GET /api/health%' ORDER BY created, message`,
    )
    expect(rows.map((r) => r.message)).toEqual([
      'GET /api/health?long=1',
      'GET /api/health?long=2',
      'GET /api/health?short=1',
    ])
    const [unlimited, limited, small] = rows.map((r) => JSON.parse(r.data))
    // Referer and user agent are cut at 2000 characters (PocketBase's limit).
    expect(unlimited.userAgent).toBe(agent.slice(0, 2000))
    expect(unlimited).not.toHaveProperty('truncated')
    // Measured as compact JSON.
    expect(Buffer.byteLength(JSON.stringify(limited))).toBeLessThanOrEqual(300)
    expect(limited.truncated).toBe(true)
    expect(limited.status).toBe(200)
    expect(limited.url).toBe('/api/health?long=2')
    expect(agent.startsWith(limited.userAgent)).toBe(true)
    expect(limited.userAgent.length).toBeGreaterThan(0)
    expect(small.userAgent).toBe('tiny')
    expect(small).not.toHaveProperty('truncated')
  })

  it('lists logs with paging, sort and filters over level, message, data.* and created', async () => {
    await reset()
    await t.api('GET', '/api/health?a=1')
    await t.api('GET', '/api/nope')
    await t.api('POST', '/api/health')
    await t.api('GET', '/api/health?a=2', { token: user.token })
    await flush()
    const list = async (query: Record<string, string>) => {
      const res = await t.api('GET', `/api/logs?${new URLSearchParams(query).toString()}`, {
        token: t.suToken,
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body
    }
    const page = await list({ perPage: '2', sort: '@rowid' })
    expect(Object.keys(page)).toEqual(
      expect.arrayContaining(['items', 'page', 'perPage', 'totalItems', 'totalPages']),
    )
    expect(page).toMatchObject({ page: 1, perPage: 2, totalItems: 4, totalPages: 2 })
    expect(page.items.map((l: any) => l.message)).toEqual(['GET /api/health?a=1', 'GET /api/nope'])
    const page2 = await list({ perPage: '2', page: '2', sort: '@rowid' })
    expect(page2.items.map((l: any) => l.message)).toEqual([
      'POST /api/health',
      'GET /api/health?a=2',
    ])
    expect((await list({ perPage: '5000' })).perPage).toBe(1000)
    expect((await list({ skipTotal: '1' })).totalItems).toBe(-1)

    const messages = async (filter: string) =>
      (await list({ filter, sort: '@rowid' })).items.map((l: any) => l.message)
    expect(await messages('level = 8')).toEqual(['GET /api/nope', 'POST /api/health'])
    expect(await messages('data.status >= 400')).toEqual(['GET /api/nope', 'POST /api/health'])
    expect(await messages("data.method = 'POST'")).toEqual(['POST /api/health'])
    expect(await messages("data.auth = 'users'")).toEqual(['GET /api/health?a=2'])
    expect(await messages("message ~ 'a=1'")).toEqual(['GET /api/health?a=1'])
    expect(await messages("created < '2000-01-01 00:00:00.000Z'")).toEqual([])
    expect(await messages("created > '2000-01-01 00:00:00.000Z'")).toHaveLength(4)
    const desc = await list({ sort: '-data.status,@rowid' })
    expect(desc.items.map((l: any) => l.data.status)).toEqual([404, 404, 200, 200])

    const bad = await t.api('GET', '/api/logs?filter=level%20%3D%3D%3D', { token: t.suToken })
    expect(bad.status).toBe(400)
    expect(bad.body.code).toBe(400)
  })

  it('views one log, 404 when missing', async () => {
    await reset()
    await t.api('GET', '/api/health?view=1')
    await flush()
    const [log] = await allLogs()
    const res = await t.api('GET', `/api/logs/${log!.id}`, { token: t.suToken })
    expect(res.status).toBe(200)
    expect(res.body).toEqual(log)
    expect(Object.keys(res.body)).toEqual(['id', 'created', 'data', 'message', 'level'])
    const missing = await t.api('GET', '/api/logs/doesnotexist123', { token: t.suToken })
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({
      code: 404,
      status: 404,
      message: "The requested resource wasn't found.",
      data: {},
    })
  })

  it('counts logs per hour, with an optional filter', async () => {
    await reset()
    await insertRow('2024-05-01 13:10:00.000Z', 'a', { status: 200 })
    await insertRow('2024-05-01 13:59:59.999Z', 'b', { status: 404 })
    await insertRow('2024-05-01 15:00:00.000Z', 'c', { status: 404 })
    await t.api('GET', '/api/health')
    await flush()
    const res = await t.api('GET', '/api/logs/stats', { token: t.suToken })
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(3)
    expect(res.body.slice(0, 2)).toEqual([
      { total: 2, date: '2024-05-01 13:00:00.000Z' },
      { total: 1, date: '2024-05-01 15:00:00.000Z' },
    ])
    expect(Object.keys(res.body[0])).toEqual(['total', 'date'])
    expect(res.body[2].total).toBe(1)
    expect(res.body[2].date).toMatch(HOUR_RE)
    expect(res.body[2].date.slice(0, 13)).toBe(formatDate(new Date()).slice(0, 13))

    const filtered = await t.api('GET', '/api/logs/stats?filter=data.status%3D404', {
      token: t.suToken,
    })
    expect(filtered.status).toBe(200)
    expect(filtered.body).toEqual([
      { total: 1, date: '2024-05-01 13:00:00.000Z' },
      { total: 1, date: '2024-05-01 15:00:00.000Z' },
    ])
    const bad = await t.api('GET', '/api/logs/stats?filter=(((', { token: t.suToken })
    expect(bad.status).toBe(400)
    expect(bad.body.data).toEqual({})
  })

  it('answers 401 without a token and 403 for non-superusers', async () => {
    for (const path of ['/api/logs', '/api/logs/stats', '/api/logs/abc']) {
      const guest = await t.api('GET', path)
      expect(guest.status, path).toBe(401)
      expect(guest.body).toEqual({
        code: 401,
        status: 401,
        message: 'The request requires valid record authorization token.',
        data: {},
      })
      const other = await t.api('GET', path, { token: user.token })
      expect(other.status, path).toBe(403)
      expect(other.body).toEqual({
        code: 403,
        status: 403,
        message: 'The authorized record is not allowed to perform this action.',
        data: {},
      })
    }
  })

  it('retention deletes rows older than maxDays and keeps the rest', async () => {
    await reset()
    const day = 86_400_000
    const now = Date.now()
    const ago = (ms: number) => formatDate(new Date(now - ms))
    await insertRow(ago(30 * day), 'month')
    await insertRow(ago(5 * day + 60_000), 'five days and a minute')
    const kept = [
      await insertRow(ago(5 * day - 60_000), 'almost five days'),
      await insertRow(ago(day), 'one day'),
      await insertRow(ago(0), 'now'),
    ]
    expect(t.server.app.services.get('logs').job).toEqual({
      id: '__svcLogsCleanup__',
      expression: '0 * * * *',
    })
    expect(await t.server.app.services.get('logs').cleanup(new Date(now))).toBe(2)
    const rows = await t.server.app.auxDb.all<{ id: string }>(sql`SELECT id FROM _logs`)
    expect(rows.map((r) => r.id).sort()).toEqual([...kept].sort())

    await setLogs({ maxDays: 2 })
    try {
      expect(await t.server.app.services.get('logs').cleanup(new Date(now))).toBe(1)
    } finally {
      await setLogs({ maxDays: 5 })
    }
    expect(await t.server.app.services.get('logs').cleanup(new Date(now))).toBe(0)
  })

  it('bounds the queue, counting what it drops', async () => {
    await reset()
    const writer = new LogWriter(t.server.app, { maxQueue: 10, flushInterval: 60_000 })
    let accepted = 0
    for (let i = 0; i < 15; i++) if (writer.add(0, `bounded ${i}`, { i })) accepted++
    expect(accepted).toBe(10)
    expect(writer.dropped).toBe(5)
    await writer.close()
    expect(writer.written).toBe(10)
    expect(writer.add(0, 'after close', {})).toBe(false)
    const row = await t.server.app.auxDb.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM _logs WHERE message LIKE 'bounded %'`,
    )
    expect(row?.n).toBe(10)
  })

  it('leaves what arrives during a batch for the next flush unless it fills a batch', async () => {
    await reset()
    const writer = new LogWriter(t.server.app, { batchSize: 100, flushInterval: 60_000 })
    // A full batch starts a write at once; five more arrive while it is on its way.
    for (let i = 0; i < 100; i++) writer.add(0, `batched ${i}`, { i })
    for (let i = 100; i < 105; i++) writer.add(0, `batched ${i}`, { i })
    while (writer.written < 100) await new Promise((r) => setTimeout(r, 5))
    await new Promise((r) => setTimeout(r, 100))
    // One batch went; the five wait for the flush interval instead of a batch of their own.
    expect(writer.written).toBe(100)
    expect(writer.pending).toBe(5)
    await writer.close()
    expect(writer.written).toBe(105)
    const row = await t.server.app.auxDb.get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM _logs WHERE message LIKE 'batched %'`,
    )
    expect(row?.n).toBe(105)
  })

  it('flushes the queue when the server closes', async () => {
    const other = await startServer()
    for (let i = 0; i < 25; i++) await other.api('GET', `/api/health?closing=${i}`)
    // No flush: closing the server must write what is queued.
    await other.server.close()
    const app = await createApp({ dataDir: other.dir, logger: silentLogger })
    try {
      const row = await app.auxDb.get<{ n: number }>(
        sql`SELECT COUNT(*) AS n FROM _logs WHERE message LIKE 'GET /api/health?closing=%'`,
      )
      expect(row?.n).toBe(25)
    } finally {
      await app.close()
      rmSync(other.dir, { recursive: true, force: true })
    }
  })
})
