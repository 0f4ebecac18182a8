/**
 * APNs end to end: the real CLI (`svcbase serve`) as a child process that trusts the APNs
 * double's self-signed certificate through NODE_EXTRA_CA_CERTS (set to that certificate only),
 * ios rows in `_push_subscriptions`, and `POST /api/push/send` over real HTTP; the HTTP/2 double
 * verifies the ES256 provider token, topic and push type, and answers 410 for a dead device.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { apnsKey, startApnsDouble, type ApnsDouble } from './helpers/push-doubles.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const KEY_ID = 'ABC123DEFG'
const TEAM_ID = 'TEAM456789'
const BUNDLE = 'com.example.app'
const hex = (n: number) => n.toString(16).padStart(64, '0')
const root = mkdtempSync(join(tmpdir(), 'svcbase-apns-'))
const dir = join(root, 'data')

let apns: ApnsDouble
let child: ChildProcess | undefined
let url = ''
let token = ''
const key = apnsKey()

function run(args: string[]): Promise<number> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...CLI, ...args], { cwd: process.cwd() }, (err) =>
      resolve(err ? 1 : 0),
    )
  })
}

function serve(caFile: string): Promise<string> {
  const c = spawn(
    process.execPath,
    [...CLI, 'serve', `--dir=${dir}`, '--http=127.0.0.1:0', '--automigrate'],
    {
      cwd: process.cwd(),
      env: { ...process.env, NODE_EXTRA_CA_CERTS: caFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  child = c
  let out = ''
  let err = ''
  return new Promise((resolve, reject) => {
    c.stderr.on('data', (d: Buffer) => (err += d.toString()))
    c.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      const m = SVCBASE_READY.exec(out)
      if (m) resolve(m[1]!)
    })
    c.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}\n${err}`)))
  })
}

async function api(method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await res.text()
  return { status: res.status, body: text ? JSON.parse(text) : null }
}

beforeAll(async () => {
  apns = await startApnsDouble({
    publicKey: key.publicKey,
    keyId: KEY_ID,
    teamId: TEAM_ID,
    bundleId: BUNDLE,
  })
  const caFile = join(root, 'apns-ca.pem')
  writeFileSync(caFile, apns.cert)
  expect(
    await run(['superuser', 'create', 'ops@example.com', 'opspassword1', `--dir=${dir}`]),
  ).toBe(0)
  url = await serve(caFile)
  const login = await api('POST', '/api/collections/_superusers/auth-with-password', {
    identity: 'ops@example.com',
    password: 'opspassword1',
  })
  expect(login.status).toBe(200)
  token = login.body.token as string
  const s = await api('PATCH', '/api/settings', {
    push: {
      apns: {
        enabled: true,
        key: key.p8,
        keyId: KEY_ID,
        teamId: TEAM_ID,
        bundleId: BUNDLE,
        apiUrl: apns.url,
      },
    },
  })
  expect(s.status, JSON.stringify(s.body)).toBe(200)
}, 60_000)

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const c = child
    await new Promise<void>((r) => {
      c.once('exit', () => r())
      c.kill('SIGTERM')
    })
  }
  await apns?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('APNs through POST /api/push/send (serve as a child process)', () => {
  it('delivers to ios rows with one provider token and disables the 410 device', async () => {
    const rows: Record<string, string> = {}
    for (const n of [1, 2, 3]) {
      const r = await api('POST', '/api/collections/_push_subscriptions/records', {
        platform: 'ios',
        recordRef: 'user-ios',
        token: hex(n),
      })
      expect(r.status, JSON.stringify(r.body)).toBe(200)
      rows[hex(n)] = r.body.id as string
    }
    apns.dead.add(hex(3))
    const res = await api('POST', '/api/push/send', {
      title: 'Hi',
      body: 'There',
      data: { screen: 'inbox' },
      recordRef: 'user-ios',
      platform: 'ios',
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).toEqual({ sent: 2, failed: 1 })
    expect(apns.delivered.map((d) => d.token).sort()).toEqual([hex(1), hex(2)])
    expect(apns.delivered[0]!.payload).toEqual({
      aps: { alert: { title: 'Hi', body: 'There' }, sound: 'default' },
      screen: 'inbox',
    })
    expect(apns.delivered.every((d) => d.headers['apns-topic'] === BUNDLE)).toBe(true)
    expect(apns.refused).toEqual(['410 Unregistered'])
    expect(apns.jwts.size).toBe(1)
    const dead = await api('GET', `/api/collections/_push_subscriptions/records/${rows[hex(3)]}`)
    expect(dead.body.enabled).toBe(false)
    const again = await api('POST', '/api/push/send', {
      title: 'Hi',
      body: 'Again',
      recordRef: 'user-ios',
      platform: 'ios',
    })
    expect(again.body).toEqual({ sent: 2, failed: 0 })
    expect(apns.jwts.size).toBe(1)
    expect(apns.connections).toBe(1)
  })
})
