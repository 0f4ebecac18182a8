#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import { createApp } from './core/create-app.js'
import { countSuperusers, describeError, manageSuperuser } from './core/auth/superusers.js'
import { automigrate, schemaCommand } from './cli-schema.js'
import { IpcCluster, MAX_WORKERS, notifyReady, runPrimary, workerRole } from './cluster/index.js'
import { typegenCommand } from './cli-typegen.js'
import { copyCommand } from './cli-copy.js'
import { createServer } from './server.js'

/** The package version (package.json sits one folder up from both `src/` and `dist/`). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
}

const USAGE = `svcbase: a PocketBase-compatible backend (collections, records, rules, auth, files,
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
  svcbase help                                          this text
  svcbase --version                                     the version

Flags (PocketBase's, in any of its forms: --flag=value, --flag value, -flag=value; booleans
as --flag or --flag=false):
  --dir=./svc_data        the data folder (data.db, auxiliary.db, storage/)
  --encryptionEnv=VAR     the environment variable holding the settings encryption key
                          (default SVC_ENCRYPTION_KEY); the settings are stored encrypted
  --dev                   print every request and every SQL statement
  --db=postgres://…       keep the data in PostgreSQL instead of SQLite files in --dir
                          (default: the SVC_DATABASE_URL environment variable); see
                          docs/postgresql.md
  --dbSchema=public       the PostgreSQL schema of the data (SVC_DATABASE_SCHEMA)
  -h, --help              this text
  -v, --version           the version

Flags of serve:
  --http=127.0.0.1:8090   the address to listen on (":8090" listens on every interface)
  --origins=*             the CORS allowed origins, comma separated
  --automigrate           apply ./svc_schema.json at start when it exists (never --force)
  --hooksDir=./svc_hooks  the hook scripts folder (*.js, *.mjs, *.ts, *.pb.js); with --dev
                          a change in it reloads the scripts
  --publicDir=./svc_public  the static files served at / (outside /api and /_/)
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
  --https, --hooksWatch, --hooksPool, --migrationsDir, --queryTimeout`

/** A mistake on the command line: printed with the usage, exit status 2. */
class UsageError extends Error {}

type FlagType = 'string' | 'bool' | 'int' | 'list'

interface FlagSpec {
  type: FlagType
  /** `serve` only (PocketBase's serve flags); the others are PocketBase's persistent flags. */
  serve?: boolean
}

/** PocketBase's flags (root and `serve`), by name. */
const FLAGS = {
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

type FlagName = keyof typeof FLAGS
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

/** The URL of the address a server really listens on (the port chosen by the OS for 0). */
function listeningUrl(info: AddressInfo | string | null): string {
  if (!info || typeof info === 'string') return String(info)
  const host = info.family === 'IPv6' ? `[${info.address}]` : info.address
  return `http://${host}:${info.port}`
}

/** The settings encryption key: from the variable `--encryptionEnv` names, else SVC_ENCRYPTION_KEY. */
function encryptionKey(flags: CommandLine['flags']): string | undefined {
  const name = flags.encryptionEnv as string | undefined
  if (name === undefined) return process.env.SVC_ENCRYPTION_KEY || undefined
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new UsageError(`invalid --encryptionEnv "${name}": expected an environment variable name`)
  const key = process.env[name]
  if (!key)
    throw new UsageError(
      `--encryptionEnv=${name}: the environment variable ${name} is not set or empty; set it to the settings encryption key`,
    )
  return key
}

/** Warnings for the PocketBase flags svcbase accepts but has not built: what each one loses. */
function unsupportedWarnings(cl: CommandLine): string[] {
  const f = cl.flags
  const out: string[] = []
  if (f.https !== undefined)
    out.push(
      `--https=${String(f.https)}: HTTPS with automatic certificates is not built; svcbase serves plain HTTP on --http only (put a TLS proxy in front)`,
    )
  const domains = cl.positionals.slice(1)
  if (domains.length > 0)
    out.push(
      `serve ${domains.join(' ')}: domain arguments are for automatic HTTPS certificates, which are not built; they are ignored`,
    )
  if (f.hooksWatch === true && f.dev !== true)
    out.push('--hooksWatch: ignored; hook scripts reload on change with --dev only')
  if (f.hooksPool !== undefined)
    out.push(
      "--hooksPool: ignored; hook scripts run on the server's own event loop, there is no pool",
    )
  if (f.migrationsDir !== undefined)
    out.push(
      `--migrationsDir: migration files are not built; nothing in ${String(f.migrationsDir)} is applied`,
    )
  if (f.queryTimeout !== undefined)
    out.push(
      `--queryTimeout=${String(f.queryTimeout)}: query timeouts are not built; SQL queries run without a time limit`,
    )
  return out
}

/** Refuses `serve`'s flags on other commands (PocketBase does too). */
function refuseServeFlags(command: string, cl: CommandLine): void {
  for (const name of Object.keys(cl.flags) as FlagName[]) {
    const spec: FlagSpec = FLAGS[name]
    if (spec.serve) throw new UsageError(`unknown flag for "${command}": --${name}`)
  }
}

async function serve(cl: CommandLine): Promise<void> {
  const f = cl.flags
  const dir = resolve((f.dir as string | undefined) ?? './svc_data')
  const hooksDir = resolve((f.hooksDir as string | undefined) ?? './svc_hooks')
  const publicDir = resolve((f.publicDir as string | undefined) ?? './svc_public')
  const { host, port } = splitAddress((f.http as string | undefined) ?? '127.0.0.1:8090')
  const origins = f.origins as string[] | undefined
  if (origins && origins.length === 0)
    throw new UsageError('--origins needs at least one origin (or * for any)')
  const key = encryptionKey(f)
  const workers = (f.workers as number | undefined) ?? 1
  if (workers < 1 || workers > MAX_WORKERS)
    throw new UsageError(`invalid --workers=${workers}: expected 1 to ${MAX_WORKERS} processes`)
  const role = workerRole()
  if (!role.worker)
    for (const warning of unsupportedWarnings(cl)) console.warn(`warning: ${warning}`)
  // The primary of `--workers N` only forks and coordinates; its workers run this function.
  if (workers > 1 && !role.worker) return runPrimary({ workers })
  const server = await createServer(
    {
      dataDir: dir,
      hooksDir,
      publicDir,
      indexFallback: f.indexFallback !== false,
      dev: f.dev === true,
      encryptionKey: key,
      // With PostgreSQL the store's own cluster links the workers (and other machines).
      cluster: role.worker && !process.env.SVC_DATABASE_URL ? new IpcCluster() : undefined,
    },
    {
      origins,
      // A restore restarts the server in this process, with the same arguments.
      async onRestarted(restarted) {
        if (f.automigrate === true) await automigrate(restarted)
        console.log(`svcbase restarted in process ${process.pid}, serving the restored data`)
      },
      onFatal(err) {
        console.error(`svcbase could not start again after a restore: ${String(err)}`)
        process.exit(1)
      },
    },
  )
  if (f.automigrate === true && role.first) await automigrate(server)
  await server.listen({ host, port })
  const url = listeningUrl(server.http.server.address())
  // One write, so whoever reads the output sees these lines together.
  const lines = [`svcbase ${version()} serving ${url}/api/ with data in ${dir}`]
  if (origins && !origins.includes('*')) lines.push(`CORS allowed origins: ${origins.join(', ')}`)
  if (f.dev === true) lines.push('dev mode: every request and SQL statement is printed')
  lines.push(
    existsSync(publicDir)
      ? `static files from ${publicDir} at ${url}/`
      : `no ${publicDir} (yet): nothing static is served until it exists`,
  )
  if ((await countSuperusers(server.app)) === 0) {
    lines.push(
      `No superuser yet. Create one with "svcbase superuser create EMAIL PASSWORD",`,
      `or POST ${url}/api/setup {email, password, passwordConfirm, token} with the one-time setup token:`,
      `  ${server.setupToken}`,
    )
  }
  // NB: the first worker prints for all (the others start once it is ready).
  if (role.first) console.log(lines.join('\n'))
  notifyReady()
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

async function superuser(cl: CommandLine): Promise<void> {
  refuseServeFlags('superuser', cl)
  const [, action, email, password, ...extra] = cl.positionals
  if (!action || !['create', 'upsert', 'update', 'delete'].includes(action))
    throw new UsageError(
      action
        ? `unknown superuser action "${action}": expected create, upsert, update or delete`
        : 'superuser needs an action: create, upsert, update or delete',
    )
  const wanted = action === 'delete' ? 'EMAIL' : 'EMAIL PASSWORD'
  if (!email || (action !== 'delete' && !password))
    throw new UsageError(`superuser ${action} needs ${wanted}`)
  if (extra.length > 0 || (action === 'delete' && password !== undefined))
    throw new UsageError(`superuser ${action} takes only ${wanted}`)
  const app = await createApp({
    dataDir: resolve((cl.flags.dir as string | undefined) ?? './svc_data'),
    logger: { debug() {}, info() {}, warn: console.warn, error: console.error },
    encryptionKey: encryptionKey(cl.flags),
  })
  try {
    await manageSuperuser(app, action as 'create', email, password)
    console.log(`superuser ${email}: ${action} done`)
  } finally {
    await app.close()
  }
}

/** Runs the CLI with the given arguments. */
export async function main(argv: string[]): Promise<void> {
  const cl = parseCommandLine(argv)
  // NB: through the environment, so every command and every worker process opens the same store.
  if (typeof cl.flags.db === 'string') process.env.SVC_DATABASE_URL = cl.flags.db
  if (typeof cl.flags.dbSchema === 'string') process.env.SVC_DATABASE_SCHEMA = cl.flags.dbSchema
  const command = cl.positionals[0]
  if (cl.flags.version === true || command === 'version') {
    console.log(`svcbase version ${version()}`)
    return
  }
  if (cl.flags.help === true || command === 'help') {
    console.log(USAGE)
    return
  }
  if (!command) {
    console.log(USAGE)
    return
  }
  if (cl.flags.out !== undefined && command !== 'typegen')
    throw new UsageError(`--out belongs to typegen, not "${command}"`)
  const copyFlags = (['from', 'to', 'fromSchema', 'toSchema', 'noLogs'] as const).filter(
    (name) => cl.flags[name] !== undefined,
  )
  if (copyFlags.length > 0 && command !== 'copy')
    throw new UsageError(`--${copyFlags[0]} belongs to copy, not "${command}"`)
  if (command === 'serve') return serve(cl)
  if (command === 'superuser') return superuser(cl)
  if (command === 'schema') {
    refuseServeFlags('schema', cl)
    const ctx = { dir: cl.flags.dir as string | undefined, force: cl.flags.force === true }
    const usageError = (message: string) => new UsageError(message)
    return schemaCommand(cl.positionals, {
      ...ctx,
      usageError,
      encryptionKey: encryptionKey(cl.flags),
    })
  }
  if (command === 'typegen') {
    refuseServeFlags('typegen', cl)
    return typegenCommand(cl.positionals, {
      usageError: (message) => new UsageError(message),
      dir: cl.flags.dir as string | undefined,
      out: cl.flags.out as string | undefined,
      encryptionKey: encryptionKey(cl.flags),
    })
  }
  if (command === 'copy') {
    refuseServeFlags('copy', cl)
    if (cl.flags.db !== undefined || cl.flags.dbSchema !== undefined || cl.flags.dir !== undefined)
      throw new UsageError(
        'copy takes --from and --to (with --fromSchema, --toSchema), not --dir or --db',
      )
    return copyCommand(cl.positionals, {
      usageError: (message) => new UsageError(message),
      from: cl.flags.from as string | undefined,
      to: cl.flags.to as string | undefined,
      fromSchema: cl.flags.fromSchema as string | undefined,
      toSchema: cl.flags.toSchema as string | undefined,
      noLogs: cl.flags.noLogs === true,
      encryptionKey: encryptionKey(cl.flags),
    })
  }
  throw new UsageError(`unknown command "${command}"`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof UsageError) {
    console.error(`error: ${err.message}\n\n${USAGE}`)
    process.exit(2)
  }
  console.error(describeError(err))
  process.exit(1)
})
