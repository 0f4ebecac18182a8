import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { checkSms, sendTwilio } from './service.js'
import type { SmsSettings } from './settings.js'

const servers: Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections()
    await new Promise((r) => s.close(r))
  }
})

/** A local server answering with `handler`; resolves to settings pointing at it. */
async function provider(handler: Parameters<typeof createServer>[1]): Promise<SmsSettings> {
  const server = createServer(handler)
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  return {
    enabled: true,
    accountSid: 'AC1',
    authToken: 'tok',
    fromNumber: '+15005550006',
    apiUrl: `http://127.0.0.1:${port}/`,
  }
}

const message = { to: '+14155550100', body: 'hi' }

describe('sendTwilio', () => {
  it('gives up after the timeout when the provider does not answer', async () => {
    const settings = await provider(() => {
      // never answers
    })
    const started = Date.now()
    await expect(sendTwilio(settings, message, 200)).rejects.toThrow(/no answer within 0.2 s/)
    expect(Date.now() - started).toBeLessThan(2000)
  })

  it('does not follow a redirect', async () => {
    const settings = await provider((_req, res) => {
      res.writeHead(302, { location: 'http://127.0.0.1:1/elsewhere' }).end()
    })
    await expect(sendTwilio(settings, message, 2000)).rejects.toThrow(/answered 302/)
  })

  it('reports a non-JSON error answer as text, cut short', async () => {
    const settings = await provider((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' }).end('x'.repeat(100_000))
    })
    const err = (await sendTwilio(settings, message, 2000).then(
      () => null,
      (e: unknown) => e,
    )) as Error
    expect(err.message).toMatch(/answered 503: x+$/)
    expect(err.message.length).toBeLessThan(400)
  })

  it('posts to the AccountSid path with the trailing slash of apiUrl dropped', async () => {
    let path = ''
    const settings = await provider((req, res) => {
      path = req.url ?? ''
      res.writeHead(201, { 'content-type': 'application/json' }).end('{"sid":"SM1"}')
    })
    await expect(sendTwilio(settings, message, 2000)).resolves.toEqual({ sid: 'SM1' })
    expect(path).toBe('/2010-04-01/Accounts/AC1/Messages.json')
  })
})

describe('checkSms', () => {
  it('takes E.164 numbers and 1-1600 characters', () => {
    expect(checkSms({ to: '+14155550100', body: 'x'.repeat(1600) })).toEqual({})
    expect(Object.keys(checkSms({ to: '+1', body: 'x' }))).toEqual(['to'])
    expect(Object.keys(checkSms({ to: '+14155550100', body: 'x'.repeat(1601) }))).toEqual(['body'])
  })
})
