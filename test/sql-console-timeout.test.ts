/**
 * The SQL console's 10 s limit (SPEC §8, issue 13 part 6), with the real 10 s: a read and a
 * write that never end are cancelled (their processes killed, the write rolled back) and answer
 * a clear 400, `/api/health` answers fast meanwhile, a third statement is refused 429, and
 * record creates wait for the console's write (serialised) and then succeed.
 */
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const NEVER_ENDS =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c'
const NEVER_ENDS_WRITE =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) INSERT INTO scratch SELECT x FROM c WHERE x = 1 OR x < 0'
const CANCELLED = 'The SQL statement was cancelled: it ran longer than 10 seconds.'

/** The console processes this test process started and that are still alive. */
function consoleChildren(): string[] {
  let out = ''
  try {
    out = execFileSync('ps', ['-o', 'pid=,args=', '--ppid', String(process.pid)], {
      encoding: 'utf8',
    })
  } catch {
    // ps exits 1 when no process matches
  }
  return out.split('\n').filter((line) => line.includes('--max-old-space-size=256'))
}

describe('SQL console cancellation at 10 s', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: 'CREATE TABLE scratch (v INTEGER)', write: true },
    })
    expect(res.status).toBe(200)
    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        type: 'base',
        createRule: '',
        fields: [{ name: 'text', type: 'text' }],
      },
    })
  })
  afterAll(() => t.close())

  it('cancels a read and a write that never end, while the server answers fast', async () => {
    const started = Date.now()
    const sent = (sql: string, write: boolean) =>
      t
        .api('POST', '/api/sql', { token: t.suToken, body: { sql, write } })
        .then((res) => ({ ...res, after: Date.now() - started }))
    const read = sent(NEVER_ENDS, false)
    const write = sent(NEVER_ENDS_WRITE, true)
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(consoleChildren()).toHaveLength(2)

    // At most two statements at once.
    const third = await t.api('POST', '/api/sql', { token: t.suToken, body: { sql: 'SELECT 1' } })
    expect(third.status).toBe(429)
    expect(third.body.message).toBe(
      'The SQL console is running as many statements as it may; try again once one has finished.',
    )

    // A record create waits for the console's write to end (serialised with it).
    const create = t
      .api('POST', '/api/collections/notes/records', { body: { text: 'during' } })
      .then((res) => ({ ...res, after: Date.now() - started }))

    // Health answers fast all along.
    const latencies: number[] = []
    let done = false
    void Promise.all([read, write]).then(() => (done = true))
    while (!done) {
      const t0 = Date.now()
      const health = await t.api('GET', '/api/health')
      expect(health.status).toBe(200)
      latencies.push(Date.now() - t0)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(latencies.length).toBeGreaterThan(40)
    expect(Math.max(...latencies)).toBeLessThan(1000)
    const sorted = [...latencies].sort((a, b) => a - b)
    console.log(
      `health during two cancelled statements: ${latencies.length} requests, median ${sorted[Math.floor(sorted.length / 2)]} ms, max ${sorted[sorted.length - 1]} ms`,
    )

    for (const res of [await read, await write]) {
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, status: 400, message: CANCELLED, data: {} })
      expect(res.after).toBeGreaterThanOrEqual(10_000)
      expect(res.after).toBeLessThan(13_000)
    }
    const created = await create
    expect(created.status).toBe(200)
    expect(created.after).toBeGreaterThanOrEqual(9_500)

    // Really cancelled: no console process is left, and the write was rolled back.
    expect(consoleChildren()).toEqual([])
    const rows = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: 'SELECT count(*) AS n FROM scratch' },
    })
    expect(rows.body.rows).toEqual([{ n: 0 }])
    const write2 = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: 'INSERT INTO scratch VALUES (7)', write: true },
    })
    expect(write2.body).toEqual({ rowsAffected: 1 })
  }, 30_000)
})
