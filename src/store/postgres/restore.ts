/**
 * A restore on PostgreSQL (`Store.restore`), run while the app is stopped: each live schema is
 * renamed aside, the snapshot's dumps are restored with `pg_restore` into fresh schemas of the
 * live names, and the old schemas wait until the restarted app runs: `undo` drops the restored
 * ones and renames the old ones back; `done` drops the old ones.
 *
 * A dump names its schema inside (pg_dump qualifies every object), so a dump taken from another
 * schema (another data folder's) is restored under its own name, then renamed to the live one;
 * that name must be free meanwhile.
 */
import { randomBytes } from 'node:crypto'
import { readdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import pg from 'pg'
import type { DatabaseName } from '../store.js'
import { quoteSchema } from './database.js'
import { connectionArgs, dumpedSchema, dumpFileNames, parseToc, runPgTool } from './pg-tools.js'
import type { PostgresLocation } from './snapshot.js'

/** What a restore leaves to finish once the restarted app runs (or fails to). */
export interface RestoreDone {
  /** Puts the data in place before the restore back. */
  undo(): Promise<void>
  /** Drops the data the restore replaced. */
  done(): Promise<void>
}

/** Runs statements on a connection of its own. */
async function withClient<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url })
  client.on('error', () => {})
  await client.connect()
  try {
    return await fn(client)
  } finally {
    await client.end().catch(() => {})
  }
}

async function schemaExists(c: pg.Client, name: string): Promise<boolean> {
  const r = await c.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [name])
  return r.rowCount !== 0
}

/** One database's step: which dump, which live schema, where the old one went. */
interface Step {
  db: DatabaseName
  dump: string
  live: string
  aside: string
  /** The schema the dump restores into. */
  dumped: string
  /** The restore list: every entry but the schema itself (created here, so `public` works). */
  list: string
  movedAside: boolean
  /** True once this restore created the fresh schema (undo drops it). */
  created: boolean
}

/**
 * Replaces the live schemas of `opts` with the dumps in `dir` (as `checkPostgresSnapshot`
 * accepted them; a missing `auxiliary.pgdump` leaves an empty auxiliary schema). On failure
 * everything is put back before it rejects.
 */
export async function restorePostgres(opts: PostgresLocation, dir: string): Promise<RestoreDone> {
  const tag = randomBytes(5).toString('hex')
  const present = new Set(await readdir(dir))
  const steps: Step[] = []
  for (const db of ['main', 'auxiliary'] as const) {
    const file = dumpFileNames[db]
    const dump = join(dir, file)
    const live = opts.schemas[db]
    const step: Step = {
      db,
      dump,
      live,
      aside: `svc_restore_${tag}_${db === 'main' ? 'm' : 'a'}`,
      dumped: live,
      list: '',
      movedAside: false,
      created: false,
    }
    if (present.has(file)) {
      const toc = parseToc(await runPgTool('pg_restore', ['--list', dump]))
      step.dumped = dumpedSchema(toc) ?? live
      quoteSchema(step.dumped)
      step.list = join(dir, `${file}.list`)
      const kept = toc.filter(
        (e) => e.kind !== 'SCHEMA' && !(e.kind === 'COMMENT' && e.name.startsWith('SCHEMA ')),
      )
      await writeFile(step.list, kept.map((e) => e.line).join('\n') + '\n')
    } else step.dump = ''
    steps.push(step)
  }
  const { dbname, env } = connectionArgs(opts.url)

  const undo = () =>
    withClient(opts.url, async (c) => {
      for (const s of steps) {
        if (s.created) {
          for (const name of new Set([s.live, s.dumped])) {
            if (await schemaExists(c, name))
              await c.query(`DROP SCHEMA ${quoteSchema(name)} CASCADE`)
          }
          s.created = false
        }
        if (s.movedAside) {
          await c.query(`ALTER SCHEMA ${quoteSchema(s.aside)} RENAME TO ${quoteSchema(s.live)}`)
          s.movedAside = false
        }
      }
    })

  try {
    await withClient(opts.url, async (c) => {
      for (const s of steps) {
        if (s.dumped !== s.live && (await schemaExists(c, s.dumped))) {
          throw new Error(
            `the backup's schema ${s.dumped} exists already in the database: drop or rename it first`,
          )
        }
      }
      for (const s of steps) {
        if (await schemaExists(c, s.live)) {
          await c.query(`ALTER SCHEMA ${quoteSchema(s.live)} RENAME TO ${quoteSchema(s.aside)}`)
          s.movedAside = true
        }
      }
      for (const s of steps) {
        await c.query(`CREATE SCHEMA ${quoteSchema(s.dumped)}`)
        s.created = true
      }
    })
    for (const s of steps) {
      if (s.dump === '') continue
      await runPgTool(
        'pg_restore',
        [
          '--single-transaction',
          '--exit-on-error',
          '--no-owner',
          '--no-privileges',
          `--use-list=${s.list}`,
          `--dbname=${dbname}`,
          s.dump,
        ],
        env,
      )
    }
    await withClient(opts.url, async (c) => {
      for (const s of steps) {
        if (s.dumped !== s.live) {
          await c.query(`ALTER SCHEMA ${quoteSchema(s.dumped)} RENAME TO ${quoteSchema(s.live)}`)
        }
      }
    })
  } catch (err) {
    await undo()
    throw err
  }

  return {
    undo,
    done: () =>
      withClient(opts.url, async (c) => {
        for (const s of steps) {
          if (s.movedAside) await c.query(`DROP SCHEMA ${quoteSchema(s.aside)} CASCADE`)
          s.movedAside = false
        }
      }),
  }
}
