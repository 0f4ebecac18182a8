/**
 * Vector search (`nearestTo`, docs/vectors.md): a fresh svcbase process (its own data dir) with
 * 100 000 records × 384 dimensions (float32 BLOBs written straight into the SQLite file of the
 * stopped server, as svcbase writes them), then sequential `nearestTo` lists over HTTP with
 * `nearestLimit=10`, unfiltered (public listRule) and with a filter keeping 10 % (an indexed
 * column). Each is reported beside its physical floor, measured here in the same run: one pass of
 * a plain dot-product loop with a top-10 selection over the same vectors, pre-normalised in one
 * Float32Array in this process's memory (for the filtered row: over the 10 % it keeps).
 */
import Database from 'better-sqlite3'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { api, superuserToken } from './api.js'
import { percentile } from './load.js'
import { round, type ScenarioRow } from './report.js'
import type { Context, Step } from './scenarios.js'
import { formatDate, prng } from './seed.js'
import { createSuperuser, startSvcbase } from './servers.js'

const ROWS = Number(process.env.BENCH_VECTOR_ROWS ?? 100_000)
const DIMS = 384
const K = 10
/** Sequential queries measured per row (after a warm-up that also builds the index). */
const QUERIES = Number(process.env.BENCH_VECTOR_QUERIES ?? 100)
const WARMUP = 5
const SU = { email: 'vector-bench@example.com', password: 'vector-bench-password' }
const COLLECTION = 'vec100k'

/**
 * The floor: one pass of a dot-product loop (unrolled by four, float64 accumulators: the fastest
 * plain JavaScript form we know) over normalised vectors, with a top-k kept sorted.
 */
function floorTopK(
  data: Float32Array,
  rows: ArrayLike<number>,
  q: Float64Array,
  k: number,
): number[] {
  const bestS: number[] = []
  const bestR: number[] = []
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]!
    const off = r * DIMS
    let a0 = 0
    let a1 = 0
    let a2 = 0
    let a3 = 0
    for (let j = 0; j < DIMS; j += 4) {
      a0 += q[j]! * data[off + j]!
      a1 += q[j + 1]! * data[off + j + 1]!
      a2 += q[j + 2]! * data[off + j + 2]!
      a3 += q[j + 3]! * data[off + j + 3]!
    }
    const s = a0 + a1 + (a2 + a3)
    if (bestS.length === k && s <= bestS[k - 1]!) continue
    let p = bestS.length === k ? k - 1 : bestS.length
    while (p > 0 && bestS[p - 1]! < s) {
      bestS[p] = bestS[p - 1]!
      bestR[p] = bestR[p - 1]!
      p--
    }
    bestS[p] = s
    bestR[p] = r
  }
  return bestR
}

function normalise(v: Float32Array): Float32Array {
  let sum = 0
  for (const x of v) sum += x * x
  const inv = 1 / Math.sqrt(sum)
  return v.map((x) => x * inv)
}

async function timeHttp(url: string, queries: string[]): Promise<number[]> {
  const times: number[] = []
  for (const [i, path] of queries.entries()) {
    const t0 = performance.now()
    const res = await fetch(url + path)
    const body = (await res.json()) as { items?: unknown[] }
    const ms = performance.now() - t0
    if (res.status !== 200 || body.items?.length !== K)
      throw new Error(`${path.slice(0, 80)} → ${res.status}: ${JSON.stringify(body).slice(0, 300)}`)
    if (i >= WARMUP) times.push(ms)
  }
  return times.sort((a, b) => a - b)
}

function timeFloor(data: Float32Array, rows: ArrayLike<number>, queries: Float32Array[]): number[] {
  const times: number[] = []
  for (const [i, q] of queries.entries()) {
    const q64 = Float64Array.from(q)
    const t0 = performance.now()
    floorTopK(data, rows, q64, K)
    if (i >= WARMUP) times.push(performance.now() - t0)
  }
  return times.sort((a, b) => a - b)
}

async function vectorSearch(ctx: Context): Promise<ScenarioRow[]> {
  const tmp = mkdtempSync(join(tmpdir(), 'svcbase-vector-bench-'))
  const dir = join(tmp, 'data')
  createSuperuser(dir, SU.email, SU.password)
  let svc = await startSvcbase(dir)
  try {
    const token = await superuserToken(svc.url, SU)
    await api(
      svc.url,
      'POST',
      '/api/collections',
      {
        name: COLLECTION,
        type: 'base',
        listRule: '',
        viewRule: '',
        fields: [
          { name: 'grp', type: 'number' },
          { name: 'emb', type: 'vector', options: { dimensions: DIMS } },
        ],
        indexes: [`CREATE INDEX idx_${COLLECTION}_grp ON ${COLLECTION} (grp)`],
      },
      token,
    )
    await svc.stop()
    // Seed: random vectors, float32 little-endian BLOBs, as svcbase stores them.
    const seedStart = performance.now()
    const rand = prng(384)
    const raw = new Float32Array(ROWS * DIMS)
    for (let i = 0; i < raw.length; i++) raw[i] = rand() * 2 - 1
    const db = new Database(join(dir, 'data.db'))
    db.pragma('journal_mode = WAL')
    const columns = (db.pragma(`table_info("${COLLECTION}")`) as { name: string }[]).map(
      (c) => c.name,
    )
    const now = formatDate(Date.now())
    const insert = db.prepare(
      `INSERT INTO "${COLLECTION}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
    )
    const ids: string[] = []
    const idRand = prng(15)
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'
    db.transaction(() => {
      for (let i = 0; i < ROWS; i++) {
        let id = ''
        for (let j = 0; j < 15; j++) id += alphabet[Math.floor(idRand() * 36)]
        ids.push(id)
        const row: Record<string, unknown> = {
          id,
          grp: i % 10,
          emb: Buffer.from(raw.buffer, i * DIMS * 4, DIMS * 4),
        }
        for (const c of columns) if (!(c in row)) row[c] = now
        insert.run(row)
      }
    })()
    db.pragma('wal_checkpoint(TRUNCATE)')
    db.close()
    const seedS = (performance.now() - seedStart) / 1000
    ctx.log(`  ${ROWS} × ${DIMS} vectors seeded in ${round(seedS)} s`)
    svc = await startSvcbase(dir)
    // The floor's data: the same vectors, pre-normalised, in one Float32Array.
    const data = new Float32Array(ROWS * DIMS)
    for (let r = 0; r < ROWS; r++)
      data.set(normalise(raw.subarray(r * DIMS, (r + 1) * DIMS)), r * DIMS)
    const all = Int32Array.from({ length: ROWS }, (_, i) => i)
    const tenth = Int32Array.from({ length: Math.ceil(ROWS / 10) }, (_, i) => i * 10 + 3).filter(
      (r) => r < ROWS,
    )
    const qRand = prng(99)
    const queries = Array.from({ length: QUERIES + WARMUP }, () =>
      normalise(Float32Array.from({ length: DIMS }, () => qRand() * 2 - 1)),
    )
    const paths = (filter: string) =>
      queries.map(
        (q) =>
          `/api/collections/${COLLECTION}/records?nearestLimit=${K}&nearestTo=${encodeURIComponent(
            `emb:[${Array.from(q, (x) => x.toFixed(6)).join(',')}]`,
          )}${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`,
      )
    const buildStart = performance.now()
    await fetch(svc.url + paths('')[0]!).then((r) => r.arrayBuffer())
    const buildS = (performance.now() - buildStart) / 1000
    const rssAfterBuild = svc.rssMb()
    const floorAll = timeFloor(data, all, queries)
    const httpAll = await timeHttp(svc.url, paths(''))
    const floorTenth = timeFloor(data, tenth, queries)
    const httpTenth = await timeHttp(svc.url, paths('grp = 3'))
    const floorAll2 = timeFloor(data, all, queries)
    // The floor measured before and after the HTTP runs, so drift falls on both.
    const floor = round(
      percentile(
        [...floorAll, ...floorAll2].sort((a, b) => a - b),
        50,
      ),
    )
    const p50 = round(percentile(httpAll, 50))
    const ratio = Math.round((p50 / floor) * 100) / 100
    const tenthFloor = round(percentile(floorTenth, 50))
    const tenthP50 = round(percentile(httpTenth, 50))
    const base = `${ROWS} records × ${DIMS} dims, nearestLimit=${K}, ${QUERIES} sequential queries (1 connection)`
    return [
      {
        name: `vector search floor: in-process dot-product loop + top-${K} over ${ROWS} × ${DIMS}`,
        reqPerSec: null,
        p50Ms: floor,
        p99Ms: round(percentile(floorAll, 99)),
        note: 'one pass over the same vectors pre-normalised in one Float32Array, in the bench process',
      },
      {
        name: `vector search nearestTo, unfiltered (${ROWS} × ${DIMS}) vs the floor`,
        reqPerSec: round(1000 / (httpAll.reduce((s, x) => s + x, 0) / httpAll.length)),
        p50Ms: p50,
        p99Ms: round(percentile(httpAll, 99)),
        connections: 1,
        ratio,
        target: 'p50 ≤ 1.5 × floor and ≤ 50 ms',
        met: ratio <= 1.5 && p50 <= 50,
        rssMb: round(rssAfterBuild),
        note:
          `${base}; ratio = HTTP p50 ÷ floor p50 (${floor} ms); seeded in ${round(seedS)} s; ` +
          `first query (index built from SQLite) ${round(buildS)} s; RSS after the build`,
      },
      {
        name: `vector search nearestTo with a filter keeping 10 % (grp = 3, indexed)`,
        reqPerSec: round(1000 / (httpTenth.reduce((s, x) => s + x, 0) / httpTenth.length)),
        p50Ms: tenthP50,
        p99Ms: round(percentile(httpTenth, 99)),
        connections: 1,
        ratio: Math.round((tenthP50 / tenthFloor) * 100) / 100,
        note:
          `${base}; ratio = HTTP p50 ÷ the floor over the ${tenth.length} rows the filter keeps ` +
          `(${tenthFloor} ms); the candidate ids come from one SQL query`,
      },
    ]
  } finally {
    await svc.stop()
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** The vector search rows (`BENCH_ONLY=vector`). */
export function vectorSteps(): Step[] {
  return [{ label: 'vector search (100k × 384)', run: vectorSearch }]
}
