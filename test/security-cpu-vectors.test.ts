/**
 * Security #32, `nearestTo` ranking on the event loop: guests ranking 4096-d queries at once over a
 * few thousand stored vectors held the loop for the sum of their rankings (the issue: 4 guests,
 * `/api/health` at 1.6 s). Rankings now take turns and yield every 10 ms. The server runs in this
 * thread: the gaps of a 10 ms timer are the stalls of its event loop while the guests, a child
 * process (so their requests keep arriving while the server works), rank; the answers are
 * compared with a brute-force ranking computed here.
 */
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join as joinPath } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { vectorToBlob } from '../src/core/fields/vector.js'
import { ident, join, param, sql } from '../src/store/sql.js'
import { prng } from './helpers/fuzz.js'
import { trackLoopGaps } from './helpers/loop-gaps.js'
import { startServer, type TestServer } from './helpers/server.js'

const DIMS = 4096
const ROWS = 8000
const GUESTS = 12
/** Far below the base's stall (the sum of the guests' rankings), far above a hiccup. */
const STALL_BOUND_MS = 400

/** The guests: a child process sending every query at once, printing each status and ids. */
const GUESTS_SCRIPT = `
const { readFileSync } = require('node:fs')
const { url, queries, extra } = JSON.parse(readFileSync(process.argv[1], 'utf8'))
Promise.all(queries.map(async (q) => {
  const near = encodeURIComponent('emb:' + JSON.stringify(q))
  const res = await fetch(url + '/api/collections/docs/records?nearestTo=' + near + '&nearestLimit=10&fields=id' + extra)
  const body = await res.json()
  return { status: res.status, ids: (body.items || []).map((r) => r.id) }
})).then((out) => process.stdout.write(JSON.stringify(out)))
`

const rand = prng(32).next
const randomVector = (): number[] => Array.from({ length: DIMS }, () => rand() * 2 - 1)
const f32 = (v: number[]): number[] => v.map((x) => Math.fround(x))

function cosine(a: number[], b: number[]): number {
  let dot = 0
  let na = 0
  let nb = 0
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!
    na += a[i]! * a[i]!
    nb += b[i]! * b[i]!
  }
  return dot / Math.sqrt(na * nb)
}

describe('security #32: nearestTo ranking', () => {
  let t: TestServer
  const stored: { id: string; v: number[] }[] = []
  const tmp = mkdtempSync(joinPath(tmpdir(), 'svc-cpu-vectors-'))

  /** Every query sent at once by a child process; the gaps of this loop meanwhile. */
  async function guestsRank(
    queries: number[][],
    extra = '',
  ): Promise<{ worst: number; answers: { status: number; ids: string[] }[] }> {
    const file = joinPath(tmp, 'queries.json')
    writeFileSync(file, JSON.stringify({ url: t.url, queries, extra }))
    const gaps = trackLoopGaps()
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', GUESTS_SCRIPT, file], {
      maxBuffer: 16 * 1024 * 1024,
    })
    return { worst: gaps.stop(), answers: JSON.parse(stdout) }
  }

  const rank = (q: number[], extra = '') =>
    t.api(
      'GET',
      `/api/collections/docs/records?nearestTo=${encodeURIComponent(`emb:${JSON.stringify(q)}`)}&nearestLimit=10${extra}`,
      { token: null },
    )
  const expected = (q: number[], filter?: (i: number) => boolean): string[] =>
    stored
      .filter((_, i) => !filter || filter(i))
      .map((d) => ({ id: d.id, s: cosine(f32(q), d.v) }))
      .sort((a, b) => b.s - a.s)
      .slice(0, 10)
      .map((x) => x.id)

  beforeAll(async () => {
    t = await startServer()
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        type: 'base',
        listRule: '',
        viewRule: '',
        fields: [
          { name: 'n', type: 'number' },
          { name: 'emb', type: 'vector', dimensions: DIMS },
        ],
      },
    })
    expect(made.status).toBe(200)
    // Seeded in SQL (a few thousand 80 kB JSON bodies would take the test's time for nothing).
    const app = t.server.app
    const collection = app.collections.get('docs')
    const db = app.dbFor(collection)
    const now = new Date().toISOString().replace('T', ' ')
    for (let start = 0; start < ROWS; start += 500) {
      const rows = []
      for (let i = start; i < Math.min(ROWS, start + 500); i++) {
        const id = `doc${String(i).padStart(12, '0')}`
        const v = f32(randomVector())
        stored.push({ id, v })
        rows.push(
          sql`(${join([param(id), param(i), param(vectorToBlob(v)), param(now), param(now)])})`,
        )
      }
      await db.run(
        sql`INSERT INTO ${ident('docs')} (${join(['id', 'n', 'emb', 'created', 'updated'].map((c) => ident(c)))}) VALUES ${join(rows)}`,
      )
    }
    // The index is built by the first search.
    const first = randomVector()
    const res = await rank(first)
    expect(res.status).toBe(200)
    expect(res.body.items.map((r: { id: string }) => r.id)).toEqual(expected(first))
  }, 120_000)
  afterAll(async () => {
    await t.close()
    rmSync(tmp, { recursive: true, force: true })
  })

  it('guests ranking at once never hold the event loop for long, and get the same answers', async () => {
    const queries = Array.from({ length: GUESTS }, randomVector)
    const { worst, answers } = await guestsRank(queries)
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(200)
      expect(res.ids).toEqual(expected(queries[i]!))
    }
    expect(worst).toBeLessThan(STALL_BOUND_MS)
  }, 120_000)

  it('a filtered ranking (candidates from SQL) is sliced too, with the same answers', async () => {
    const queries = Array.from({ length: GUESTS }, randomVector)
    const { worst, answers } = await guestsRank(queries, '&filter=n%20%3E%3D%20100')
    for (const [i, res] of answers.entries()) {
      expect(res.status).toBe(200)
      expect(res.ids).toEqual(expected(queries[i]!, (n) => n >= 100))
    }
    expect(worst).toBeLessThan(STALL_BOUND_MS)
  }, 120_000)

  it('records written while guests rank land in the index once the rankings end', async () => {
    const q = randomVector()
    const created = t.api('POST', '/api/collections/docs/records', {
      token: t.suToken,
      body: { n: -1, emb: q },
    })
    const during = await Promise.all([rank(randomVector()), rank(randomVector()), created])
    expect(during.map((r) => r.status)).toEqual([200, 200, 200])
    const after = await rank(q)
    expect(after.body.items[0].id).toBe(during[2].body.id)
  })
})
