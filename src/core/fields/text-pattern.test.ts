import { RE2JS } from 're2js'
import { describe, expect, it } from 'vitest'

import {
  compilePattern,
  generateFromPattern,
  matchesPattern,
  patternError,
} from './text-pattern.js'

describe('generateFromPattern', () => {
  const cases: { pattern: string; check: RegExp }[] = [
    { pattern: '[a-z0-9]{15}', check: /^[a-z0-9]{15}$/ },
    { pattern: '^[A-Z]{3}$', check: /^[A-Z]{3}$/ },
    { pattern: 'inv-\\d{4}', check: /^inv-\d{4}$/ },
    { pattern: '(foo|bar)_[a-f]{2,4}', check: /^(foo|bar)_[a-f]{2,4}$/ },
    { pattern: '[^a-z]{6}', check: /^[^a-z]{6}$/ },
    { pattern: 'x?y+', check: /^x?y{1,10}$/ },
    { pattern: '[\\w-]{8}', check: /^[\w-]{8}$/ },
  ]
  it.each(cases)('$pattern', ({ pattern, check }) => {
    for (let i = 0; i < 20; i++) {
      const s = generateFromPattern(pattern)
      expect(s).toMatch(check)
      expect(matchesPattern(pattern, s)).toBe(true)
    }
  })

  it.each(['(a)\\1', '(?=a)b', '[a-', '\\b', '{2}x'])('rejects %s', (pattern) => {
    expect(() => generateFromPattern(pattern)).toThrow(SyntaxError)
  })

  it('reads a brace that is no repeat as a literal, as RE2 does', () => {
    expect(generateFromPattern('a{3')).toBe('a{3')
    expect(generateFromPattern('{x}')).toBe('{x}')
  })
})

describe('compilePattern', () => {
  it('translates Go flags and named groups', () => {
    expect(compilePattern('(?i)^abc$').test('ABC')).toBe(true)
    expect(compilePattern('^(?P<year>\\d{4})$').test('2024')).toBe(true)
    expect(compilePattern('^(?P<year>\\d{4})$').test('20245')).toBe(false)
    expect(compilePattern('\\Aab\\z').test('ab')).toBe(true)
    expect(compilePattern('[[:alpha:]]+').test('abc')).toBe(true)
    expect(compilePattern('\\pL+').test('é')).toBe(true)
  })

  it('matches the plainest patterns without re2js, as re2js does', () => {
    const values = ['abc123', 'ABC', '', 'a_b', 'é', 'abc\n', 'x'.repeat(20), '12']
    for (const pattern of ['^[a-z0-9]+$', '^[A-Za-z0-9_]*$', '^[a-z]{2,5}$', '^[0-9]{2}$']) {
      const re2 = RE2JS.compile(pattern)
      for (const v of values)
        expect(compilePattern(pattern).test(v), `${pattern} ${v}`).toBe(re2.test(v))
    }
  })

  it('reports invalid patterns', () => {
    expect(patternError('([a-z')).not.toBeNull()
    expect(patternError('^ok$')).toBeNull()
  })

  it('refuses what RE2 refuses, as Go does', () => {
    expect(patternError('(a)\\1')).toBe('invalid escape sequence: `\\1`')
    expect(patternError('(?=a)b')).toBe('invalid or unsupported Perl syntax: `(?=`')
    expect(patternError('a{1001}')).toBe('invalid repeat count: `{1001}`')
  })

  it('matches in linear time', () => {
    expect(matchesPattern('^(a+)+$', 'a'.repeat(100_000) + 'b')).toBe(false)
  })
})
