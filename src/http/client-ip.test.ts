import { describe, expect, it } from 'vitest'
import { clientIp, normalizeIp } from './client-ip.js'

describe('normalizeIp', () => {
  it.each([
    ['10.0.0.1', '10.0.0.1'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::1', '0000:0000:0000:0000:0000:0000:0000:0001'],
    ['::', '0000:0000:0000:0000:0000:0000:0000:0000'],
    ['2001:DB8::', '2001:0db8:0000:0000:0000:0000:0000:0000'],
    ['2001:db8:1:2:3:4:5:6', '2001:0db8:0001:0002:0003:0004:0005:0006'],
    ['64:ff9b::192.0.2.1', '0064:ff9b:0000:0000:0000:0000:c000:0201'],
    ['not-an-ip', 'not-an-ip'],
    [undefined, ''],
  ])('%s → %s', (input, expected) => {
    expect(normalizeIp(input)).toBe(expected)
  })
})

describe('clientIp', () => {
  const req = (rawHeaders: string[], ip = '10.0.0.9') =>
    ({ ip, raw: { rawHeaders } }) as unknown as Parameters<typeof clientIp>[0]
  const none = { headers: [], useLeftmostIP: false }
  const xff = { headers: ['X-Forwarded-For'], useLeftmostIP: false }

  it.each([
    ['no trusted headers: the peer', [], none, '10.0.0.9'],
    ['an untrusted header is ignored', ['X-Forwarded-For', '1.1.1.1'], none, '10.0.0.9'],
    ['rightmost valid entry', ['x-forwarded-for', '1.1.1.1, 2.2.2.2, junk'], xff, '2.2.2.2'],
    [
      'leftmost valid entry',
      ['X-FORWARDED-FOR', 'junk, 1.1.1.1, 2.2.2.2'],
      { ...xff, useLeftmostIP: true },
      '1.1.1.1',
    ],
    [
      'the last occurrence of the header',
      ['X-Forwarded-For', '1.1.1.1', 'X-Forwarded-For', '3.3.3.3'],
      { ...xff, useLeftmostIP: true },
      '3.3.3.3',
    ],
    ['no valid entry: the peer', ['X-Forwarded-For', 'junk, '], xff, '10.0.0.9'],
    [
      'headers in order',
      ['X-Forwarded-For', '1.1.1.1', 'CF-Connecting-IP', '4.4.4.4'],
      { headers: ['cf-connecting-ip', 'x-forwarded-for'], useLeftmostIP: false },
      '4.4.4.4',
    ],
  ])('%s', (_name, rawHeaders, proxy, expected) => {
    expect(clientIp(req(rawHeaders), proxy)).toBe(expected)
  })
})
