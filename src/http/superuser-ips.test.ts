import { describe, expect, it } from 'vitest'
import { compileIpList, parseIpOrSubnet, validateIpList } from './superuser-ips.js'

const invalid = { code: 'validation_invlaid_ip_or_subnet', message: 'Invalid IP or CIDR subnet.' }

describe('validateIpList', () => {
  it.each([
    ['empty', [], {}],
    ['undefined', undefined, {}],
    ['null', null, {}],
    [
      'IPv4, IPv6 and subnets',
      ['127.0.0.1', '::1', '10.0.0.0/8', '2001:db8::/32', '0.0.0.0/0'],
      {},
    ],
    ['a host address with a prefix', ['10.1.2.3/24'], {}],
    [
      'bad entries by index',
      ['10.0.0.1', 'nope', '10.0.0.0/33', 7],
      { 1: invalid, 2: invalid, 3: invalid },
    ],
    ['an IPv6 prefix over 128', ['::/129'], { 0: invalid }],
    ['a prefix with a sign', ['10.0.0.0/+8'], { 0: invalid }],
    ['two slashes', ['10.0.0.0/8/8'], { 0: invalid }],
    ['a zone id', ['fe80::1%eth0'], { 0: invalid }],
    ['a hostname', ['localhost'], { 0: invalid }],
    ['an empty string', [''], { 0: invalid }],
  ])('%s', (_name, list, expected) => {
    expect(validateIpList(list)).toEqual(expected)
  })

  it('reports a non-array under the empty key', () => {
    expect(validateIpList('10.0.0.1')).toEqual({
      '': { code: 'validation_invalid_value', message: 'Must be a list of IPs or CIDR subnets.' },
    })
  })
})

describe('compileIpList', () => {
  const blocks = compileIpList(['10.1.2.3', '192.168.0.0/16', '2001:db8::/32', 'junk'])
  it.each([
    ['10.1.2.3', 'ipv4', true],
    ['10.1.2.4', 'ipv4', false],
    ['192.168.200.1', 'ipv4', true],
    ['2001:db8:ffff::1', 'ipv6', true],
    ['2001:db9::1', 'ipv6', false],
  ] as const)('%s listed: %s', (ip, family, expected) => {
    expect(blocks.check(ip, family)).toBe(expected)
  })

  it('parses entries', () => {
    expect(parseIpOrSubnet(' 10.0.0.0/8 ')).toEqual({
      address: '10.0.0.0',
      family: 'ipv4',
      prefix: 8,
    })
    expect(parseIpOrSubnet('::1')).toEqual({ address: '::1', family: 'ipv6' })
    expect(parseIpOrSubnet('10.0.0.0/')).toBeNull()
  })
})
