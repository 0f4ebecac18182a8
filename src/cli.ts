#!/usr/bin/env node
import { parseArgs } from 'node:util'
import { resolve } from 'node:path'
import { createApp } from './core/app.js'
import { countSuperusers, describeError, manageSuperuser } from './core/auth/superusers.js'
import { createServer } from './server.js'

const USAGE = `Usage:
  svcbase serve [--http=127.0.0.1:8090] [--dir=./svc_data] [--hooksDir=./svc_hooks] [--dev]
  svcbase superuser create|upsert|update EMAIL PASSWORD [--dir=./svc_data]
  svcbase superuser delete EMAIL [--dir=./svc_data]`

/** PocketBase flags accepted for script compatibility and ignored (DECISIONS "CLI"). */
const IGNORED = [
  'automigrate',
  'migrationsDir',
  'publicDir',
  'encryptionEnv',
  'queryTimeout',
  'origins',
  'https',
]

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      http: { type: 'string', default: '127.0.0.1:8090' },
      dir: { type: 'string', default: './svc_data' },
      hooksDir: { type: 'string', default: './svc_hooks' },
      dev: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      ...Object.fromEntries(IGNORED.map((k) => [k, { type: 'string' as const }])),
    },
  })
}

function splitAddress(addr: string): { host: string; port: number } {
  const i = addr.lastIndexOf(':')
  const host = i > 0 ? addr.slice(0, i).replace(/^\[|\]$/g, '') : '127.0.0.1'
  const port = Number(i >= 0 ? addr.slice(i + 1) : addr)
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`invalid --http address "${addr}"`)
  return { host, port }
}

async function serve(values: ReturnType<typeof parse>['values']): Promise<void> {
  for (const k of IGNORED)
    if (values[k as keyof typeof values] !== undefined)
      console.warn(`warning: --${k} is accepted for PocketBase compatibility and ignored`)
  const { host, port } = splitAddress(String(values.http))
  const server = await createServer({
    dataDir: resolve(String(values.dir)),
    hooksDir: resolve(String(values.hooksDir)),
    dev: Boolean(values.dev),
    encryptionKey: process.env.SVC_ENCRYPTION_KEY || undefined,
  })
  const address = await server.http.listen({ host, port })
  console.log(`svcbase serving ${address}/api/ with data in ${resolve(String(values.dir))}`)
  if ((await countSuperusers(server.app)) === 0) {
    console.log(`No superuser yet. Create one with "svcbase superuser create EMAIL PASSWORD",`)
    console.log(
      `or POST ${address}/api/setup {email, password, passwordConfirm, token} with the one-time setup token:`,
    )
    console.log(`  ${server.setupToken}`)
  }
  const stop = () => {
    server.close().then(
      () => process.exit(0),
      () => process.exit(1),
    )
  }
  process.once('SIGINT', stop)
  process.once('SIGTERM', stop)
}

async function superuser(positionals: string[], dir: string): Promise<void> {
  const [action, email, password] = positionals
  if (
    !action ||
    !['create', 'upsert', 'update', 'delete'].includes(action) ||
    !email ||
    (action !== 'delete' && !password)
  ) {
    throw new Error(USAGE)
  }
  const app = await createApp({
    dataDir: resolve(dir),
    logger: { debug() {}, info() {}, warn: console.warn, error: console.error },
    encryptionKey: process.env.SVC_ENCRYPTION_KEY || undefined,
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
  const { values, positionals } = parse(argv)
  const [command, ...rest] = positionals
  if (values.help || !command) {
    console.log(USAGE)
    return
  }
  if (command === 'serve') return serve(values)
  if (command === 'superuser') return superuser(rest, String(values.dir))
  throw new Error(`unknown command "${command}"\n${USAGE}`)
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(describeError(err))
  process.exit(1)
})
