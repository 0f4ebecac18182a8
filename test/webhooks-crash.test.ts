/**
 * The durable outbox through the real CLI as a child process: svcbase is killed with SIGKILL
 * after a change committed and while its delivery is in flight (the receiver holds the request);
 * after a restart on the same data the delivery goes out again with the same webhook-id and is
 * acknowledged exactly once.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { startReceiver, waitFor } from './helpers/webhook-receiver.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const SECRET = `whsec_${Buffer.from('crash-test-secret-0123456789').toString('base64')}`
const root = mkdtempSync(join(tmpdir(), 'svcbase-webhooks-crash-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

function runCli(args: string[]): Promise<number | null> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...CLI, ...args], { stdio: 'ignore' })
    child.once('exit', (code) => resolve(code))
  })
}

/** Starts `svcbase serve` on `dir`; resolves with the child, its URL and a superuser client. */
async function serve(dir: string) {
  const child: ChildProcess = spawn(
    process.execPath,
    [...CLI, 'serve', '--http=127.0.0.1:0', `--dir=${dir}`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitFor(() => SVCBASE_READY.test(out), 30_000)
  const url = SVCBASE_READY.exec(out)![1]!
  const login = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: 'admin@example.com', password: 'supersecret123' }),
  })
  const token = ((await login.json()) as { token: string }).token
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.text()
    return { status: res.status, body: text ? JSON.parse(text) : null }
  }
  return { child, exited, api, output: () => out }
}

describe('webhooks outbox across kill -9', () => {
  it('delivers a change committed before the crash exactly once after the restart', async () => {
    const dir = join(root, 'data')
    expect(
      await runCli(['superuser', 'create', 'admin@example.com', 'supersecret123', `--dir=${dir}`]),
    ).toBe(0)
    // The first delivery is held open (svcbase is killed meanwhile); later ones are answered.
    const receiver = await startReceiver(SECRET, (n) => (n === 1 ? 'hang' : 200))
    let first = await serve(dir)
    try {
      expect(
        (await first.api('PATCH', '/api/settings', { webhooks: { allowPrivateNetworks: true } }))
          .status,
      ).toBe(200)
      const coll = await first.api('POST', '/api/collections', {
        name: 'orders',
        type: 'base',
        fields: [{ name: 'total', type: 'number' }],
      })
      expect(coll.status).toBe(200)
      const hook = await first.api('POST', '/api/collections/_webhooks/records', {
        name: 'orders',
        url: receiver.url,
        collection: 'orders',
        events: 'create',
        secret: SECRET,
        enabled: true,
      })
      expect(hook.status).toBe(200)
      const order = await first.api('POST', '/api/collections/orders/records', { total: 42 })
      expect(order.status).toBe(200)
      // Committed (answered) and in flight: the receiver holds the request.
      await waitFor(() => receiver.received.length === 1)
      const heldId = receiver.received[0]!.id
      first.child.kill('SIGKILL')
      await first.exited
      expect(receiver.acknowledged()).toHaveLength(0)

      first = await serve(dir)
      await waitFor(() => receiver.acknowledged().length === 1, 20_000)
      const delivered = receiver.acknowledged()[0]!
      expect(delivered.id).toBe(heldId)
      expect(delivered.svcOk && delivered.standardOk).toBe(true)
      expect(delivered.body.record.id).toBe(order.body.id)
      expect(delivered.body.record.total).toBe(42)
      await waitFor(
        async () =>
          (await first.api('GET', '/api/collections/_webhook_outbox/records')).body.totalItems ===
          0,
      )
      // Nothing more arrives: exactly one acknowledged delivery for the one change.
      await new Promise((r) => setTimeout(r, 500))
      expect(receiver.acknowledged()).toHaveLength(1)
      const row = await first.api('GET', `/api/collections/_webhooks/records/${hook.body.id}`)
      expect(row.body.lastStatus).toBe('200')
      expect(row.body.secret).toBeUndefined()
    } finally {
      first.child.kill('SIGTERM')
      await first.exited
      await receiver.close()
    }
  }, 90_000)
})
