import { existsSync, readFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { resolve } from 'node:path'
import type { App } from '../core/app.js'
import { openApp } from './app.js'
import { countSuperusers, describeError, manageSuperuser } from '../core/auth/superusers.js'
import { automigrate, schemaCommand } from './schema.js'
import { IpcCluster, MAX_WORKERS, notifyReady, runPrimary, workerRole } from '../cluster/index.js'
import { typegenCommand } from './typegen.js'
import { copyCommand } from './copy.js'
import { defaultMigrationsDir, migrateCommand } from './migrate.js'
import { bindAutomigrate } from '../features/hooks/pb/migrate/automigrate.js'
import { applyMigrations } from '../features/hooks/pb/migrate/runner.js'
import { releaseYoungGenerationWhenBusy } from './heap.js'
import { createServer } from '../server.js'
import {
  FLAGS,
  parseCommandLine,
  splitAddress,
  USAGE,
  UsageError,
  type CommandLine,
  type FlagName,
  type FlagSpec,
} from './args.js'

export { parseCommandLine, splitAddress, type CommandLine } from './args.js'

/** The package version (package.json sits one folder up from both `src/` and `dist/`). */
function version(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string
  }
  return pkg.version
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

/**
 * Applies the `pb_migrations` files not applied yet; a failure stops the start with
 * PocketBase's `failed to apply migration <file>: <error>` (nothing of the run kept).
 */
async function applyPbMigrations(
  server: { app: App; close(): Promise<void> },
  migrationsDir: string,
  hooksDir: string,
): Promise<void> {
  try {
    const applied = await applyMigrations(server.app, migrationsDir, hooksDir)
    for (const file of applied) console.log(`Applied migration ${file}`)
  } catch (err) {
    await server.close()
    // A PocketBase folder opened for the first time is put back as it was.
    await server.app.settleFirstOpen(false)
    throw err
  }
  await server.app.settleFirstOpen(true)
}

/**
 * A folder of the app: the flag's, else PocketBase's beside the data folder when it exists
 * (`<dir>/../pb_hooks` for a `pb_data`), else svcbase's default.
 */
function appFolder(flag: unknown, dataDir: string, pocketBase: string, fallback: string): string {
  if (typeof flag === 'string') return resolve(flag)
  const beside = resolve(dataDir, '..', pocketBase)
  return existsSync(beside) ? beside : resolve(fallback)
}

async function serve(cl: CommandLine): Promise<void> {
  const f = cl.flags
  const dir = resolve((f.dir as string | undefined) ?? './svc_data')
  const hooksDir = appFolder(f.hooksDir, dir, 'pb_hooks', './svc_hooks')
  const publicDir = appFolder(f.publicDir, dir, 'pb_public', './svc_public')
  const migrationsDir = resolve(
    (f.migrationsDir as string | undefined) ?? defaultMigrationsDir(dir),
  )
  // As PocketBase's (default on), migration files are written for an app that keeps them: one
  // whose migrations folder exists. `--automigrate` also applies ./svc_schema.json.
  const writeMigrations =
    f.automigrate === true || (f.automigrate === undefined && existsSync(migrationsDir))
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
      // Settled once the migrations applied (a failure there puts a PocketBase folder back).
      holdFirstOpen: true,
      // With PostgreSQL the store's own cluster links the workers (and other machines).
      cluster: role.worker && !process.env.SVC_DATABASE_URL ? new IpcCluster() : undefined,
    },
    {
      origins,
      // A restore restarts the server in this process, with the same arguments.
      async onRestarted(restarted) {
        if (f.automigrate === true) await automigrate(restarted)
        await applyPbMigrations(restarted, migrationsDir, hooksDir)
        if (writeMigrations) bindAutomigrate(restarted.app, migrationsDir)
        console.log(`svcbase restarted in process ${process.pid}, serving the restored data`)
      },
      onFatal(err) {
        console.error(`svcbase could not start again after a restore: ${String(err)}`)
        process.exit(1)
      },
    },
  )
  if (f.automigrate === true && role.first) await automigrate(server)
  // PocketBase applies the new pb_migrations files at every start (whatever --automigrate).
  if (role.first) await applyPbMigrations(server, migrationsDir, hooksDir)
  else await server.app.settleFirstOpen(true)
  // With automigrate, a collection changed through the API writes a pb_migrations file.
  if (writeMigrations) bindAutomigrate(server.app, migrationsDir)
  await server.listen({ host, port })
  // Loading is over: once requests keep it busy, the full young generation (see heap.ts).
  releaseYoungGenerationWhenBusy()
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
  lines.push(`Dashboard: ${url}/_/`)
  if ((await countSuperusers(server.app)) === 0) {
    lines.push(
      `No superuser yet. Create the first one in the dashboard (the link carries a one-time token):`,
      `  ${url}/_/#/pbinstall/${server.setupToken}`,
      `or with "svcbase superuser create EMAIL PASSWORD",`,
      `or POST ${url}/api/setup {email, password, passwordConfirm, token} with the setup token:`,
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
  const app = await openApp({
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
  if (command === 'migrate') {
    refuseServeFlags('migrate', cl)
    return migrateCommand(cl.positionals, {
      dir: cl.flags.dir as string | undefined,
      migrationsDir: cl.flags.migrationsDir as string | undefined,
      hooksDir: cl.flags.hooksDir as string | undefined,
      force: cl.flags.force === true,
      encryptionKey: encryptionKey(cl.flags),
      usageError: (message) => new UsageError(message),
    })
  }
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
