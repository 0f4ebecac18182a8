import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import {
  checkTarget,
  classifyAddress,
  guardedRequest,
  parseIPv6,
  parseTargetUrl,
  SsrfError,
} from './ssrf.js'

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.255', 'carrierGradeNat'],
    ['0.0.0.0', 'unspecified'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['ff02::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:169.254.169.254', 'linkLocal'],
    ['64:ff9b::7f00:1', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['::127.0.0.1', 'reserved'],
    ['not an ip', 'reserved'],
  ])('%s is %s', (ip, range) => {
    expect(classifyAddress(ip)).toBe(range)
  })

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '172.15.255.255',
    '172.32.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '169.253.1.1',
    '11.0.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '::ffff:8.8.8.8',
  ])('%s is public', (ip) => {
    expect(classifyAddress(ip)).toBe('unicast')
  })

  it('parses IPv6 forms to 16 bytes', () => {
    expect(parseIPv6('::1')).toEqual([...Array(15).fill(0), 1])
    expect(parseIPv6('::ffff:1.2.3.4')?.slice(10)).toEqual([0xff, 0xff, 1, 2, 3, 4])
    expect(parseIPv6('1:2:3:4:5:6:7:8')).toEqual([0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0, 7, 0, 8])
    expect(parseIPv6('1.2.3.4')).toBeNull()
  })
})

describe('checkTarget and parseTargetUrl', () => {
  const off = { allowPrivateNetworks: false }

  it('refuses other schemes and user info', () => {
    expect(() => parseTargetUrl('ftp://example.com/')).toThrow(/only http: and https:/)
    expect(() => parseTargetUrl('http://u:p@example.com/')).toThrow(/user info/)
    expect(() => parseTargetUrl('nope')).toThrow(SsrfError)
  })

  it('refuses literal and resolved private addresses, every address checked', async () => {
    for (const u of [
      'http://127.0.0.1/',
      'http://10.0.0.8/',
      'http://169.254.169.254/',
      'http://[::1]/',
    ])
      await expect(checkTarget(new URL(u), off)).rejects.toThrow(/private networks are not allowed/)
    await expect(checkTarget(new URL('http://localhost:9/'), off)).rejects.toThrow(/loopback/)
    const mixed = async () => [
      { address: '8.8.8.8', family: 4 as const },
      { address: '10.0.0.1', family: 4 as const },
    ]
    await expect(
      checkTarget(new URL('http://mixed.example/'), { ...off, resolve: mixed }),
    ).rejects.toThrow(/10\.0\.0\.1 \(private\)/)
    expect(await checkTarget(new URL('http://127.0.0.1/'), { allowPrivateNetworks: true })).toEqual(
      { address: '127.0.0.1', family: 4 },
    )
  })
})

describe('guardedRequest', () => {
  it('connects to the checked address only: a second resolution (DNS rebinding) is never asked', async () => {
    const seen: { host?: string; local: string }[] = []
    const server = http.createServer((req, res) => {
      seen.push({ host: req.headers.host, local: req.socket.localAddress ?? '' })
      res.writeHead(302, { location: 'http://127.0.0.1/' }).end('moved')
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.2', r))
    const port = (server.address() as AddressInfo).port
    let calls = 0
    // The first answer is allow-listed; any later one would be loopback.
    const resolve = async () =>
      calls++ === 0
        ? [{ address: '127.0.0.2', family: 4 as const }]
        : [{ address: '127.0.0.1', family: 4 as const }]
    try {
      const res = await guardedRequest(`http://rebind.example:${port}/hook`, {
        allowPrivateNetworks: false,
        allowAddresses: ['127.0.0.2'],
        resolve,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
        timeoutMs: 5000,
      })
      // The redirect is answered, not followed.
      expect(res.status).toBe(302)
      expect(res.address).toBe('127.0.0.2')
      expect(calls).toBe(1)
      expect(seen).toEqual([{ host: `rebind.example:${port}`, local: '127.0.0.2' }])
    } finally {
      server.close()
    }
  })

  it('gives up after the timeout', async () => {
    const server = http.createServer(() => {
      // never answers
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    const port = (server.address() as AddressInfo).port
    const started = Date.now()
    try {
      await expect(
        guardedRequest(`http://127.0.0.1:${port}/`, {
          allowPrivateNetworks: true,
          method: 'POST',
          headers: {},
          timeoutMs: 200,
        }),
      ).rejects.toThrow(/timed out after 200 ms/)
      expect(Date.now() - started).toBeLessThan(2000)
    } finally {
      server.closeAllConnections()
      server.close()
    }
  })
})
