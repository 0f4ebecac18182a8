/**
 * The command line of `svcbase`: the usage text, PocketBase's flags (and svcbase's own) with their
 * types, and parsing them the way PocketBase's Go flags are read.
 */

export const USAGE = `svcbase: a PocketBase-compatible backend (collections, records, rules, auth, files,
realtime) over SQLite or PostgreSQL.

Usage:
  svcbase serve [flags]                                 start the HTTP server
  svcbase superuser create|upsert|update EMAIL PASSWORD create or change a superuser
  svcbase superuser delete EMAIL                        delete a superuser
  svcbase schema export [FILE]                          print (or write) every collection as JSON
  svcbase schema diff FILE                              what applying FILE would change (exit 1 if any)
  svcbase schema apply FILE [--force]                   apply FILE; --force drops omitted fields
  svcbase typegen [--out FILE]                          print (or write) TypeScript types of the
                                                        collections for the pocketbase SDK
  svcbase copy --from=DIR|URL --to=DIR|URL [--noLogs]   copy an app's data into an empty store
                                                        (SQLite folder or postgres:// URL, with
                                                        --fromSchema / --toSchema); storage/ is
                                                        not copied; see docs/postgresql.md
  svcbase migrate [up]                                  apply the new pb_migrations files
  svcbase migrate down [N]                              revert the last N (default 1) applied
  svcbase migrate create NAME                           write an empty migration file
  svcbase migrate collections                           write a snapshot migration of every
                                                        collection
  svcbase migrate history-sync                          forget applied files that are gone
                                                        (down, create, collections ask y/N;
                                                        --force answers yes)
  svcbase help                                          this text
  svcbase --version                                     the version

Flags (PocketBase's, in any of its forms: --flag=value, --flag value, -flag=value; booleans
as --flag or --flag=false):
  --dir=./svc_data        the data folder (data.db, auxiliary.db, storage/)
  --encryptionEnv=VAR     the environment variable holding the settings encryption key
                          (default SVC_ENCRYPTION_KEY); the settings are stored encrypted
  --dev                   print every request and every SQL statement
  --migrationsDir=DIR     PocketBase's pb_migrations files (default <dir>/../pb_migrations),
                          applied at every serve start and by "svcbase migrate"
  --db=postgres://…       keep the data in PostgreSQL instead of SQLite files in --dir
                          (default: the SVC_DATABASE_URL environment variable); see
                          docs/postgresql.md
  --dbSchema=public       the PostgreSQL schema of the data (SVC_DATABASE_SCHEMA)
  -h, --help              this text
  -v, --version           the version

Flags of serve:
  --http=127.0.0.1:8090   the address to listen on (":8090" listens on every interface)
  --origins=*             the CORS allowed origins, comma separated
  --automigrate           apply ./svc_schema.json at start when it exists (never --force), and
                          write a pb_migrations file for each collection changed through the API
                          (without the flag: written when the migrations folder exists;
                          --automigrate=false: never)
  --hooksDir=./svc_hooks  the hook scripts folder (*.js, *.mjs, *.ts, *.pb.js); with --dev
                          a change in it reloads the scripts (default: <dir>/../pb_hooks when it
                          exists, as PocketBase's)
  --publicDir=./svc_public  the static files served at / (outside /api and /_/); default
                          <dir>/../pb_public when it exists
  --indexFallback         missing extensionless paths answer publicDir's index.html (single-page
                          apps); on by default, --indexFallback=false turns it off
  --workers=1             processes sharing the port and the data (all the cores of one
                          machine); see docs/scaling.md

Flags of copy (see docs/postgresql.md "Moving an app from SQLite to PostgreSQL"):
  --from=DIR|URL          the app to copy: a data folder or a postgres:// URL
  --to=DIR|URL            where to: an empty data folder or PostgreSQL schema
  --fromSchema=public     the PostgreSQL schema of --from
  --toSchema=public       the PostgreSQL schema of --to
  --noLogs                leave the request logs behind

Accepted for PocketBase scripts, not built yet (serve prints what each one loses):
  --https, --hooksWatch, --hooksPool, --queryTimeout`

/** A mistake on the command line: printed with the usage, exit status 2. */
export class UsageError extends Error {}

type FlagType = 'string' | 'bool' | 'int' | 'list'

export interface FlagSpec {
  type: FlagType
  /** `serve` only (PocketBase's serve flags); the others are PocketBase's persistent flags. */
  serve?: boolean
}

/** PocketBase's flags (root and `serve`), by name. */
export const FLAGS = {
  dir: { type: 'string' },
  encryptionEnv: { type: 'string' },
  dev: { type: 'bool' },
  help: { type: 'bool' },
  version: { type: 'bool' },
  hooksDir: { type: 'string' },
  hooksWatch: { type: 'bool' },
  hooksPool: { type: 'int' },
  migrationsDir: { type: 'string' },
  automigrate: { type: 'bool' },
  force: { type: 'bool' },
  out: { type: 'string' },
  publicDir: { type: 'string' },
  indexFallback: { type: 'bool' },
  queryTimeout: { type: 'int' },
  db: { type: 'string' },
  dbSchema: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  fromSchema: { type: 'string' },
  toSchema: { type: 'string' },
  noLogs: { type: 'bool' },
  http: { type: 'string', serve: true },
  https: { type: 'string', serve: true },
  origins: { type: 'list', serve: true },
  workers: { type: 'int', serve: true },
} satisfies Record<string, FlagSpec>

export type FlagName = keyof typeof FLAGS
type FlagValue = string | boolean | number | string[]

/** One-letter aliases (PocketBase's `-h` and `-v`). */
const SHORT: Record<string, FlagName> = { h: 'help', v: 'version' }

/** A parsed command line: the flags given (only those) and the positional arguments. */
export interface CommandLine {
  flags: Partial<Record<FlagName, FlagValue>>
  positionals: string[]
}

/** Go's strconv.ParseBool, which Go's flag package and pflag use for booleans. */
function parseBool(name: string, text: string): boolean {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return true
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(text)) return false
  throw new UsageError(`invalid value "${text}" for --${name}: expected true or false`)
}

function parseInt10(name: string, text: string): number {
  if (!/^[+-]?\d+$/.test(text.trim()))
    throw new UsageError(`invalid value "${text}" for --${name}: expected a whole number`)
  return Number(text)
}

/**
 * Parses arguments the way PocketBase's flags are read: `--flag=value`, `--flag value` (not for
 * booleans), `-flag` with one dash, bare booleans and `--bool=false`; flags may come anywhere,
 * `--` ends them. A flag given twice keeps the last value; list flags (`--origins`) collect
 * comma-separated items across repeats.
 */
export function parseCommandLine(argv: string[]): CommandLine {
  const flags: CommandLine['flags'] = {}
  const positionals: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === '--') {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith('-') || arg === '-') {
      positionals.push(arg)
      continue
    }
    const body = arg.replace(/^--?/, '')
    const eq = body.indexOf('=')
    const rawName = eq === -1 ? body : body.slice(0, eq)
    if (rawName === '' || rawName.startsWith('-')) throw new UsageError(`bad flag syntax: ${arg}`)
    const name: FlagName | undefined =
      rawName in FLAGS ? (rawName as FlagName) : arg.startsWith('--') ? undefined : SHORT[rawName]
    if (!name) throw new UsageError(`unknown flag: ${arg}`)
    const spec: FlagSpec = FLAGS[name]
    let text: string
    if (eq !== -1) {
      text = body.slice(eq + 1)
    } else if (spec.type === 'bool') {
      flags[name] = true
      continue
    } else {
      const next = argv[i + 1]
      if (next === undefined) throw new UsageError(`flag needs a value: --${name}`)
      text = next
      i++
    }
    if (spec.type === 'bool') flags[name] = parseBool(name, text)
    else if (spec.type === 'int') flags[name] = parseInt10(name, text)
    else if (spec.type === 'list') {
      const items = text
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== '')
      flags[name] = [...((flags[name] as string[] | undefined) ?? []), ...items]
    } else flags[name] = text
  }
  return { flags, positionals }
}

/**
 * Splits `--http`: `host:port`, `[v6]:port`, `:port` (every interface, as in Go) or a bare
 * port (loopback).
 */
export function splitAddress(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':')
  const rawHost = i >= 0 ? addr.slice(0, i).replace(/^\[|\]$/g, '') : '127.0.0.1'
  const portText = i >= 0 ? addr.slice(i + 1) : addr
  const port = Number(portText)
  if (portText === '' || !Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(
      `invalid --http address "${addr}": expected HOST:PORT, e.g. 127.0.0.1:8090 or 0.0.0.0:8090`,
    )
  return { host: rawHost === '' ? '0.0.0.0' : rawHost, port }
}
