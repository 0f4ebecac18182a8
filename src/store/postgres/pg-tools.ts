/**
 * Running PostgreSQL's client programs (`pg_dump`, `pg_restore`) for snapshots and restores:
 * found in `SVC_PG_BINDIR`, Debian's `/usr/lib/postgresql/<version>/bin` or the PATH; started
 * with `execFile` (never a shell), the connection given as a URL with its password moved to the
 * environment (`PGPASSWORD`), so `ps` never shows it.
 */
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseName } from '../store.js'

/** The file of each database's dump inside a snapshot folder (pg_dump's custom format). */
export const dumpFileNames: Readonly<Record<DatabaseName, string>> = {
  main: 'data.pgdump',
  auxiliary: 'auxiliary.pgdump',
}

/** Where the client programs are: an explicit folder, the newest Debian one, else the PATH. */
function binDir(): string | null {
  const explicit = process.env.SVC_PG_BINDIR
  if (explicit) return explicit
  const debian = '/usr/lib/postgresql'
  if (!existsSync(debian)) return null
  const versions = readdirSync(debian)
    .filter((v) => /^\d+$/.test(v) && existsSync(join(debian, v, 'bin', 'pg_dump')))
    .sort((a, b) => Number(b) - Number(a))
  return versions[0] ? join(debian, versions[0], 'bin') : null
}

/** The path of a client program. */
export function pgProgram(name: 'pg_dump' | 'pg_restore'): string {
  const dir = binDir()
  return dir ? join(dir, name) : name
}

/** A connection URL without its password, and the environment that carries the password. */
export function connectionArgs(url: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' }
  let dbname = url
  try {
    const u = new URL(url)
    if (u.password) {
      env.PGPASSWORD = decodeURIComponent(u.password)
      u.password = ''
      dbname = u.toString()
    }
  } catch {
    // Not a URL (a key=value string): passed as it is.
  }
  return { dbname, env }
}

/** A client program that failed: its name and what it printed. */
export class PgToolError extends Error {
  constructor(program: string, detail: string) {
    super(`${program} failed: ${detail.trim().split('\n').slice(0, 5).join('; ') || 'no output'}`)
    this.name = 'PgToolError'
  }
}

/** Runs a client program; resolves to its standard output. */
export function runPgTool(
  name: 'pg_dump' | 'pg_restore',
  args: readonly string[],
  env: NodeJS.ProcessEnv = { PATH: process.env.PATH ?? '/usr/bin:/bin' },
): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      pgProgram(name),
      args,
      { env, maxBuffer: 64 * 1024 * 1024, windowsHide: true },
      (err, stdout, stderr) => {
        if (err) {
          const detail = String(stderr || '') || err.message
          reject(new PgToolError(name, detail))
        } else resolve(String(stdout))
      },
    )
  })
}

/** One entry of a dump's table of contents (`pg_restore --list`). */
export interface TocEntry {
  /** The whole line, as pg_restore printed it (for a list file given back with `-L`). */
  line: string
  /** `SCHEMA`, `TABLE`, `TABLE DATA`, `INDEX`, `COMMENT`, … */
  kind: string
  /** The schema of the object, or '-' for a schema itself. */
  schema: string
  /** The object's name. */
  name: string
}

const KINDS = [
  'TABLE DATA',
  'SEQUENCE SET',
  'SEQUENCE OWNED BY',
  'FK CONSTRAINT',
  'DEFAULT ACL',
  'TABLE',
  'SCHEMA',
  'COMMENT',
  'INDEX',
  'CONSTRAINT',
  'TRIGGER',
  'FUNCTION',
  'VIEW',
  'SEQUENCE',
  'DEFAULT',
  'ACL',
]

/** Parses `pg_restore --list` output into its entries (comment lines left out). */
export function parseToc(listing: string): TocEntry[] {
  const out: TocEntry[] = []
  for (const line of listing.split('\n')) {
    const m = /^\d+; \d+ \d+ (.*)$/.exec(line)
    if (!m) continue
    const rest = m[1]!
    const kind = KINDS.find((k) => rest.startsWith(`${k} `)) ?? rest.split(' ')[0]!
    const tail = rest.slice(kind.length + 1)
    // `<schema> <name> <owner>`: the name may hold spaces, the schema and owner do not.
    const parts = /^(\S+) (.+) (\S+)$/.exec(tail)
    out.push({ line, kind, schema: parts?.[1] ?? '', name: parts?.[2] ?? tail })
  }
  return out
}

/** The schema a dump of one schema holds (from its `SCHEMA` entry or its tables). */
export function dumpedSchema(toc: readonly TocEntry[]): string | null {
  const schema = toc.find((e) => e.kind === 'SCHEMA')
  if (schema) return schema.name
  return toc.find((e) => e.kind === 'TABLE')?.schema ?? null
}
