import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'
import { randomStringByRegex } from './regex-gen.js'

describe('randomStringByRegex', () => {
  it.each([
    '[a-z0-9]{30}',
    'a|b|c',
    '(foo|ba[rz])+x?',
    '\\d{3}-\\w{2,4}\\.\\s',
    '[^a-z]{5}',
    '.{3}',
    '[[:upper:]][[:^digit:]]',
    '\\x41\\x{42}',
    '(?i)abc',
    'a{2,}b*',
    '[\\d_-]{4}',
    '(?:a(?:b|c)){2}',
    '(?P<y>\\d{4})-[01]\\d',
    '[\\]a]{3}',
    '[a\\-z]{5}',
  ])('makes strings %s matches (RE2)', (pattern) => {
    const re = RE2JS.compile(`^(?:${pattern})$`)
    for (let i = 0; i < 200; i++) {
      const s = randomStringByRegex(pattern)
      expect(re.matches(s), JSON.stringify(s)).toBe(true)
    }
  })

  it('refuses anchors and word boundaries as PocketBase does, and what RE2 refuses', () => {
    expect(() => randomStringByRegex('^a')).toThrow('unsupported pattern operator 9')
    expect(() => randomStringByRegex('a$')).toThrow('unsupported pattern operator 10')
    expect(() => randomStringByRegex('\\bx')).toThrow('unsupported pattern operator 11')
    expect(() => randomStringByRegex('(')).toThrow(/randomStringByRegex/)
    expect(() => randomStringByRegex('a{1001}')).toThrow(/randomStringByRegex/)
  })

  it('stops past 64 KiB of output', () => {
    expect(() => randomStringByRegex('[a-z]{1000}'.repeat(70))).toThrow(/65536 characters/)
  })
})
