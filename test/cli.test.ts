import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/create-app.js'
import { authenticateWithPassword } from '../src/core/auth/password-auth.js'
import { silentLogger } from '../src/core/logger.js'
import { SVCBASE_READY } from '../bench/servers.js'

/** The CLI from its sources (a stale `dist/` must not hide a change). */
const CLI = ['--import', 'tsx', 'src/cli.ts']
const root = mkdtempSync(join(tmpdir(), 'svcbase-cli-'))
const dir = join(root, 'data')
afterAll(() => rmSync(root, { recursive: true, force: true }))

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs the CLI to its end; never rejects (the exit code is in the result). */
function runCli(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...CLI, ...args],
      { cwd: process.cwd(), env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        resolve({ code, stdout, stderr })
      },
    )
  })
}

const cli = (...args: string[]) => runCli([...args, `--dir=${dir}`])

/** A `serve` process started by a test, with everything it printed so far. */
interface Served {
  url: string
  out: () => string
  err: () => string
  stop: () => Promise<void>
}

const running: ChildProcess[] = []
afterEach(async () => {
  await Promise.all(running.splice(0).map(stopChild))
})

function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => {
    child.once('exit', () => resolve())
    child.kill('SIGTERM')
  })
}

/**
 * Starts `svcbase serve ARGS` and resolves once it printed the address it serves, or rejects
 * with its output when it exits first.
 */
function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [...CLI, 'serve', ...args], {
    cwd: process.cwd(),
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  running.push(child)
  let out = ''
  let err = ''
  return new Promise((resolve, reject) => {
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = SVCBASE_READY.exec(out)
      if (m)
        resolve({
          url: m[1]!,
          out: () => out,
          err: () => err,
          stop: () => stopChild(child),
        })
    })
    child.once('exit', (code) =>
      reject(new Error(`serve exited with ${code} before listening:\n${out}\n${err}`)),
    )
  })
}

/** A TCP port free right now (the OS picks it). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

async function canSignIn(email: string, password: string): Promise<boolean> {
  const app = await createApp({ dataDir: dir, logger: silentLogger })
  try {
    await authenticateWithPassword(app, app.collections.get('_superusers'), {
      identity: email,
      password,
    })
    return true
  } catch {
    return false
  } finally {
    await app.close()
  }
}

/** Signs in as a superuser over HTTP; returns the token. */
async function signIn(url: string, email: string, password: string): Promise<string> {
  const res = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: email, password }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { token: string }).token
}

describe('svcbase CLI: superusers', () => {
  it('creates, updates, upserts and deletes superusers', async () => {
    const created = await cli('superuser', 'create', 'ops@example.com', 'firstpassword')
    expect(created.stdout).toContain('create done')
    expect(await canSignIn('ops@example.com', 'firstpassword')).toBe(true)
    const again = await cli('superuser', 'create', 'ops@example.com', 'firstpassword')
    expect(again.code).toBe(1)
    expect(again.stderr).toContain('already exists')
    expect((await cli('superuser', 'update', 'ops@example.com', 'secondpassword')).code).toBe(0)
    expect(await canSignIn('ops@example.com', 'firstpassword')).toBe(false)
    expect(await canSignIn('ops@example.com', 'secondpassword')).toBe(true)
    await cli('superuser', 'upsert', 'two@example.com', 'thirdpassword')
    expect(await canSignIn('two@example.com', 'thirdpassword')).toBe(true)
    const short = await cli('superuser', 'create', 'bad@example.com', 'short')
    expect(short.code).toBe(1)
    expect(short.stderr).toContain('password')
    await cli('superuser', 'delete', 'ops@example.com')
    expect(await canSignIn('ops@example.com', 'secondpassword')).toBe(false)
    const only = await cli('superuser', 'delete', 'two@example.com')
    expect(only.stderr).toContain("can't delete the only existing superuser")
  })

  it('explains a wrong superuser command and refuses serve-only flags', async () => {
    const missing = await cli('superuser', 'create', 'x@example.com')
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain('error: superuser create needs EMAIL PASSWORD')
    const action = await cli('superuser', 'promote', 'x@example.com')
    expect(action.stderr).toContain('unknown superuser action "promote"')
    const http = await cli('superuser', 'create', 'x@example.com', 'password123', '--http=:1')
    expect(http.code).toBe(2)
    expect(http.stderr).toContain('unknown flag for "superuser": --http')
  })
})

describe('svcbase CLI: help, version and usage errors', () => {
  const version = (
    JSON.parse(readFileSync(join(process.cwd(), 'package.json'), 'utf8')) as { version: string }
  ).version

  it('prints the version for --version, -v and version', async () => {
    for (const args of [['--version'], ['-v'], ['version'], ['serve', '--version']]) {
      const res = await runCli(args)
      expect(res).toEqual({ code: 0, stdout: `svcbase version ${version}\n`, stderr: '' })
    }
  })

  it('prints the usage with every flag for help, --help, -h and no command', async () => {
    for (const args of [['help'], ['--help'], ['-h'], ['serve', '--help'], []]) {
      const res = await runCli(args)
      expect(res.code).toBe(0)
      expect(res.stderr).toBe('')
      expect(res.stdout).toContain('Usage:')
      for (const flag of ['--http', '--origins', '--encryptionEnv', '--dev', '--automigrate'])
        expect(res.stdout).toContain(flag)
    }
  })

  it('answers an unknown flag or command with its name, the usage and exit status 2', async () => {
    const flag = await runCli(['serve', '--frobnicate'])
    expect(flag.code).toBe(2)
    expect(flag.stdout).toBe('')
    expect(flag.stderr).toMatch(/^error: unknown flag: --frobnicate\n\n/)
    expect(flag.stderr).toContain('Usage:')
    // Not Node's parseArgs wording.
    expect(flag.stderr).not.toContain('ERR_PARSE_ARGS')
    const command = await runCli(['frobnicate'])
    expect(command.code).toBe(2)
    expect(command.stderr).toMatch(/^error: unknown command "frobnicate"\n\n/)
    const value = await runCli(['serve', '--http'])
    expect(value.code).toBe(2)
    expect(value.stderr).toMatch(/^error: flag needs a value: --http\n/)
    const bool = await runCli(['serve', '--dev=maybe'])
    expect(bool.stderr).toMatch(/^error: invalid value "maybe" for --dev: expected true or false/)
    const int = await runCli(['serve', '--queryTimeout=soon'])
    expect(int.stderr).toMatch(/^error: invalid value "soon" for --queryTimeout/)
    const address = await runCli(['serve', '--http=localhost'])
    expect(address.stderr).toMatch(/^error: invalid --http address "localhost"/)
  })
})

describe('svcbase CLI: serve flags in PocketBase forms', () => {
  const serveDir = join(root, 'serve')

  it('accepts a bare --automigrate, also with --dev (no ./svc_schema.json here: nothing applied)', async () => {
    const a = await serve([`--dir=${serveDir}`, '--http=127.0.0.1:0', '--automigrate'])
    expect(a.out()).toContain('automigrate: no svc_schema.json')
    expect(a.err()).not.toContain('--automigrate')
    await a.stop()
    const b = await serve(['--dev', '--automigrate', `--dir=${serveDir}`, '--http=127.0.0.1:0'])
    expect(b.out()).toContain('automigrate: no svc_schema.json')
    await b.stop()
  })

  it('reads --flag value, -flag=value, -flag and --bool=false', async () => {
    const s = await serve([
      '-dir',
      serveDir,
      '--http',
      '127.0.0.1:0',
      '-dev',
      '--automigrate=false',
      '--indexFallback=true',
    ])
    expect(s.out()).toContain(`with data in ${serveDir}`)
    expect(s.out()).toContain('dev mode')
    // --automigrate=false asks for nothing svcbase lacks: no warning for it.
    expect(s.err()).not.toContain('--automigrate')
    // --indexFallback=true is built (docs/static.md): no warning.
    expect(s.err()).not.toContain('--indexFallback')
    expect((await fetch(`${s.url}/api/health`)).status).toBe(200)
  })

  it('warns what each unsupported PocketBase flag loses', async () => {
    const hooks = join(root, 'hooks')
    mkdirSync(hooks, { recursive: true })
    writeFileSync(join(hooks, 'main.pb.js'), '// a hook\n')
    writeFileSync(
      join(hooks, 'route.ts'),
      "export default (app: any) => app.routerAdd('GET', '/api/from-cli', (e: any) => e.json(200, { ok: true }))\n",
    )
    const s = await serve([
      `--dir=${serveDir}`,
      '--http=127.0.0.1:0',
      '--https=127.0.0.1:8443',
      `--hooksDir=${hooks}`,
      '--hooksWatch',
      '--hooksPool=4',
      '--migrationsDir=./pb_migrations',
      '--publicDir=./pb_public',
      '--queryTimeout=10',
    ])
    const err = s.err()
    expect(err).toContain('--https=127.0.0.1:8443: HTTPS with automatic certificates is not built')
    // --hooksDir works: the script's route answers; --hooksWatch and --hooksPool are ignored
    expect(err).not.toContain('--hooksDir')
    expect(await (await fetch(`${s.url}/api/from-cli`)).json()).toEqual({ ok: true })
    expect(err).toContain('--hooksWatch: ignored; hook scripts reload on change with --dev only')
    expect(err).toContain('--hooksPool: ignored')
    expect(err).not.toContain('--migrationsDir') // built: docs/migrations.md
    expect(err).not.toContain('--publicDir') // built: docs/static.md
    expect(err).toContain('--queryTimeout=10: query timeouts are not built')
  })

  it('prints the address it really listens on (--http=0.0.0.0:PORT)', async () => {
    const port = await freePort()
    const s = await serve([`--dir=${serveDir}`, `--http=0.0.0.0:${port}`])
    expect(s.url).toBe(`http://0.0.0.0:${port}`)
    expect(s.out()).toContain(`serving http://0.0.0.0:${port}/api/`)
    expect((await fetch(`http://127.0.0.1:${port}/api/health`)).status).toBe(200)
    // Port 0 prints the port the OS chose, not 0.
    const any = await serve([`--dir=${serveDir}`, '--http=127.0.0.1:0'])
    expect(any.url).toMatch(/^http:\/\/127\.0\.0\.1:[1-9]\d*$/)
    expect((await fetch(`${any.url}/api/health`)).status).toBe(200)
  })

  it('--origins sets the CORS allow-list', async () => {
    const s = await serve([
      `--dir=${serveDir}`,
      '--http=127.0.0.1:0',
      '--origins=https://app.example.com, https://admin.example.com',
    ])
    const allowed = await fetch(`${s.url}/api/health`, {
      headers: { origin: 'https://admin.example.com' },
    })
    expect(allowed.headers.get('access-control-allow-origin')).toBe('https://admin.example.com')
    const refused = await fetch(`${s.url}/api/health`, {
      headers: { origin: 'https://evil.example.com' },
    })
    expect(refused.status).toBe(200)
    expect(refused.headers.get('access-control-allow-origin')).toBeNull()
    const preflight = await fetch(`${s.url}/api/collections/users/records`, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://evil.example.com',
        'access-control-request-method': 'POST',
      },
    })
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull()
    await s.stop()
    // Without --origins any origin is allowed, as before.
    const open = await serve([`--dir=${serveDir}`, '--http=127.0.0.1:0'])
    const any = await fetch(`${open.url}/api/health`, {
      headers: { origin: 'https://evil.example.com' },
    })
    expect(any.headers.get('access-control-allow-origin')).toBe('*')
  })

  it('--encryptionEnv=VAR stores the settings encrypted with the key in VAR', async () => {
    const encDir = join(root, 'encrypted')
    const env = { MY_SETTINGS_KEY: 'a-settings-key-from-my-vault', SVC_ENCRYPTION_KEY: '' }
    const flag = '--encryptionEnv=MY_SETTINGS_KEY'
    const su = await runCli(
      ['superuser', 'create', 'enc@example.com', 'password123', `--dir=${encDir}`, flag],
      env,
    )
    expect(su.code).toBe(0)
    const s = await serve([`--dir=${encDir}`, '--http=127.0.0.1:0', flag], env)
    const token = await signIn(s.url, 'enc@example.com', 'password123')
    const patch = await fetch(`${s.url}/api/settings`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ meta: { appName: 'Plaintext Never' } }),
    })
    expect(patch.status).toBe(200)
    await s.stop()

    const db = new Database(join(encDir, 'data.db'), { readonly: true })
    const row = db.prepare(`SELECT value FROM _params WHERE id = 'settings'`).get() as {
      value: string
    }
    db.close()
    expect(row.value).not.toContain('Plaintext Never')
    expect(row.value).not.toContain('appName')

    // The key is needed to start again; another variable holding it works too.
    const without = await runCli(['serve', `--dir=${encDir}`, '--http=127.0.0.1:0'], {
      SVC_ENCRYPTION_KEY: '',
    })
    expect(without.code).toBe(1)
    expect(without.stderr).toContain('The stored settings are encrypted')
    const again = await serve([`--dir=${encDir}`, '--http=127.0.0.1:0', '--encryptionEnv', 'K2'], {
      K2: env.MY_SETTINGS_KEY,
      SVC_ENCRYPTION_KEY: '',
    })
    const t2 = await signIn(again.url, 'enc@example.com', 'password123')
    const settings = await fetch(`${again.url}/api/settings`, {
      headers: { authorization: `Bearer ${t2}` },
    })
    expect(((await settings.json()) as { meta: { appName: string } }).meta.appName).toBe(
      'Plaintext Never',
    )
  })

  it('--encryptionEnv naming an unset variable is a usage error, not plaintext settings', async () => {
    const res = await runCli(['serve', `--dir=${serveDir}`, '--encryptionEnv=NOT_SET_ANYWHERE'], {
      NOT_SET_ANYWHERE: '',
    })
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(
      /^error: --encryptionEnv=NOT_SET_ANYWHERE: the environment variable NOT_SET_ANYWHERE is not set or empty/,
    )
  })

  it('--dev prints each request and the SQL statements', async () => {
    const s = await serve([`--dir=${serveDir}`, '--http=127.0.0.1:0', '--dev'])
    const res = await fetch(`${s.url}/api/collections/users/records?perPage=1&marker=dev-test`)
    expect(res.status).toBe(200)
    await s.stop()
    const lines = s
      .out()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { message: string; sql?: string; status?: number })
    const request = lines.find((l) => l.message.includes('marker=dev-test'))
    expect(request).toMatchObject({
      message: 'GET /api/collections/users/records?perPage=1&marker=dev-test',
      status: 200,
    })
    const sql = lines.filter((l) => l.message === 'SQL').map((l) => l.sql!)
    expect(sql.some((q) => /^SELECT .*FROM "?users"?/s.test(q))).toBe(true)
  })

  it('prints no request or SQL lines without --dev', async () => {
    const s = await serve([`--dir=${serveDir}`, '--http=127.0.0.1:0'])
    await fetch(`${s.url}/api/collections/users/records?perPage=1`)
    await s.stop()
    expect(s.out()).not.toContain('"SQL"')
    expect(s.out()).not.toContain('GET /api/collections/users/records')
  })
})
