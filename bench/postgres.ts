/**
 * The PostgreSQL rows of `npm run bench`: svcbase on PostgreSQL (`serve --db=…`) against the bare
 * Fastify + pg baseline (`baseline-postgres-server.ts`) on the same server, for view, list and
 * create, so they read as ratios like the SQLite rows. A throwaway PostgreSQL cluster is started
 * by `scripts/postgres.sh` (fsync on, synchronous_commit off: as SQLite's WAL with
 * synchronous=NORMAL, a commit waits for no disk flush); the seeded SQLite rows are copied into
 * svcbase's tables, and from there into the `baseline` schema.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { superuserToken } from './api.js'
import type { ScenarioRow } from './report.js'
import { allSteps, type Context } from './scenarios.js'
import { defineCollections } from './seed.js'
import {
  createSuperuser,
  ROOT,
  startPostgresBaseline,
  startSvcbase,
  type ServerProcess,
} from './servers.js'

/** The steps measured again on PostgreSQL, by their label in `scenarios.ts`. */
const STEPS = ['view one record', 'list 20 of 10k, skipTotal', 'create, no rule']
/**
 * The tables copied with their rows (the scenarios read posts10k; creates name users as authors),
 * and the one only made for the baseline (creates write into it).
 */
const TABLES = ['users', 'posts10k']
const EMPTY_TABLES = ['creates_open']
const PG_PORT = '55499'

/**
 * Copies `table` from the seeded SQLite file into the same svcbase table on PostgreSQL (no rows
 * when `sqlite` is null), and from there into the baseline's schema.
 */
async function copyTable(sqlite: Database.Database | null, client: pg.Client, table: string) {
  const cols = await client.query<{ column_name: string; data_type: string }>(
    `SELECT column_name, data_type FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name = $1 AND column_name <> '_rowid_'
      ORDER BY ordinal_position`,
    [table],
  )
  const names = cols.rows.map((c) => c.column_name)
  const types = new Map(cols.rows.map((c) => [c.column_name, c.data_type]))
  const rows = (sqlite?.prepare(`SELECT * FROM "${table}" ORDER BY rowid`).all() ?? []) as Record<
    string,
    unknown
  >[]
  const convert = (name: string, v: unknown) => (types.get(name) === 'boolean' ? Boolean(v) : v)
  await client.query(`DELETE FROM "${table}"`)
  for (let i = 0; i < rows.length; i += 500) {
    const chunk = rows.slice(i, i + 500)
    const params: unknown[] = []
    const tuples = chunk.map((r) => {
      const ph = names.map((n) => {
        params.push(convert(n, r[n]))
        return `$${params.length}`
      })
      return `(${ph.join(', ')})`
    })
    await client.query(
      `INSERT INTO "${table}" (${names.map((n) => `"${n}"`).join(', ')}) VALUES ${tuples.join(', ')}`,
      params,
    )
  }
  // The baseline's own copy, without svcbase's hidden insertion-order column.
  await client.query(
    `CREATE TABLE baseline."${table}" (LIKE public."${table}" INCLUDING DEFAULTS INCLUDING INDEXES)`,
  )
  await client.query(`ALTER TABLE baseline."${table}" DROP COLUMN IF EXISTS _rowid_`)
  // The baseline sorts by `created DESC` (PostgreSQL's own NULL order): a plain index serves it.
  if (names.includes('created')) {
    await client.query(`CREATE INDEX ON baseline."${table}" (created)`)
  }
  const list = names.map((n) => `"${n}"`).join(', ')
  await client.query(
    `INSERT INTO baseline."${table}" (${list}) SELECT ${list} FROM public."${table}"`,
  )
  await client.query(`ANALYZE public."${table}"; ANALYZE baseline."${table}"`)
}

/**
 * Runs the PostgreSQL rows: `sqliteFile` is a copy of the seeded `data.db` (its ids are the ones
 * in `ctx.data`), `tmp` a scratch folder. Stops everything it started.
 */
export async function postgresRows(
  ctx: Context,
  sqliteFile: string,
  tmp: string,
  superuser: { email: string; password: string },
): Promise<ScenarioRow[]> {
  // NB: a folder of its own under the system tmp: the postgres user must reach it, and `tmp`
  // (mkdtemp, mode 700) is closed to it.
  const pgDir = mkdtempSync(join(tmpdir(), 'svcbase-bench-pg-'))
  execFileSync('bash', [join(ROOT, 'scripts', 'postgres.sh'), 'start', pgDir], {
    env: { ...process.env, SVC_PG_PORT: PG_PORT, SVC_PG_FSYNC: 'on' },
    stdio: 'pipe',
  })
  const env = readFileSync(join(pgDir, 'env'), 'utf8')
  const url = /SVC_TEST_PG_URL=(\S+)/.exec(env)![1]!
  let svc: ServerProcess | null = null
  let base: ServerProcess | null = null
  try {
    const dir = join(tmp, 'pg-data')
    const db = [`--db=${url}`]
    createSuperuser(dir, superuser.email, superuser.password, db)
    svc = await startSvcbase(dir, { extraArgs: db })
    await defineCollections(svc.url, await superuserToken(svc.url, superuser))
    const client = new pg.Client({ connectionString: url })
    await client.connect()
    const sqlite = new Database(sqliteFile, { readonly: true })
    try {
      await client.query('CREATE SCHEMA baseline')
      for (const t of TABLES) await copyTable(sqlite, client, t)
      for (const t of EMPTY_TABLES) await copyTable(null, client, t)
    } finally {
      sqlite.close()
      await client.end()
    }
    ctx.log(`  PostgreSQL at ${url}: svcbase pid ${svc.pid}, rows copied`)
    base = await startPostgresBaseline(url, ['posts10k', 'creates_open'])
    const pgCtx: Context = { ...ctx, svc, baseline: base }
    const rows: ScenarioRow[] = []
    for (const step of allSteps().filter((s) => STEPS.includes(s.label))) {
      for (const r of await step.run(pgCtx)) {
        rows.push({ ...r, name: `PostgreSQL: ${r.name}` })
      }
    }
    return rows
  } finally {
    await svc?.stop()
    await base?.stop()
    execFileSync('bash', [join(ROOT, 'scripts', 'postgres.sh'), 'stop', pgDir], { stdio: 'pipe' })
    rmSync(pgDir, { recursive: true, force: true })
  }
}
