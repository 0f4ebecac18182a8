import { connect } from 'node:net'
import { describe, expect, it } from 'vitest'
import { startServer } from './helpers/server.js'

describe('closing the server', () => {
  it('does not wait for a client that stopped sending its body', async () => {
    const t = await startServer()
    const { hostname, port } = new URL(t.url)
    const socket = connect({ host: hostname, port: Number(port) })
    await new Promise<void>((ok) => socket.once('connect', ok))
    const closed = new Promise<void>((ok) => socket.once('close', () => ok()))
    socket.on('error', () => {})
    // A request head promising 1000 bytes of body, and only 10 of them.
    socket.write(
      'POST /api/collections/users/records HTTP/1.1\r\nHost: x\r\n' +
        'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":"',
    )
    await new Promise((ok) => setTimeout(ok, 200))
    // Before the grace period, close() waited for Node's 300 s request timeout: the hook timed out.
    await t.close()
    await closed
    expect(socket.destroyed).toBe(true)
  })

  it('closes with an idle keep-alive connection open; later requests are refused', async () => {
    const t = await startServer()
    const res = await fetch(`${t.url}/api/health`)
    expect(res.status).toBe(200)
    await res.text()
    await t.close()
    await expect(fetch(`${t.url}/api/health`)).rejects.toThrow()
  })
})
