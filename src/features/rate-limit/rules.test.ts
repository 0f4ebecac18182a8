import { describe, expect, it } from 'vitest'
import { compileRules, parseLabel, selectRule, type RateLimitTarget } from './rules.js'

/** A rule list from `label[@audience]` shorthands, each 10 per 1 s. */
const rules = (...specs: string[]) =>
  compileRules(
    specs.map((s) => {
      const [label, audience = ''] = s.split('|')
      return { label, audience, duration: 1, maxRequests: 10 }
    }),
  )

const target = (over: Partial<RateLimitTarget> = {}): RateLimitTarget => ({
  method: 'GET',
  path: '/api/health',
  collection: null,
  tags: [],
  authenticated: false,
  ...over,
})

const DEFAULTS = ['*:auth', '*:create', '/api/batch', '/api/']
const PASSWORD = target({
  method: 'POST',
  path: '/api/collections/users/auth-with-password',
  collection: 'users',
  tags: ['authWithPassword', 'auth'],
})
const CREATE = target({
  method: 'POST',
  path: '/api/collections/posts/records',
  collection: 'posts',
  tags: ['create'],
})

describe('parseLabel', () => {
  it.each([
    ['/api/', { kind: 'path', method: null, path: '/api/', prefix: true }],
    ['/api/batch', { kind: 'path', method: null, path: '/api/batch', prefix: false }],
    ['POST /api/batch', { kind: 'path', method: 'POST', path: '/api/batch', prefix: false }],
    ['GET /api/files/', { kind: 'path', method: 'GET', path: '/api/files/', prefix: true }],
    ['users:auth', { kind: 'tag', collection: 'users', tag: 'auth' }],
    ['*:create', { kind: 'tag', collection: null, tag: 'create' }],
    ['list', { kind: 'bareTag', tag: 'list' }],
    ['api/', null],
    ['users:', null],
    ['get /api/', null],
    ['a b c', null],
  ])('%s', (label, expected) => {
    expect(parseLabel(label)).toEqual(expected)
  })
})

describe('compileRules', () => {
  it('keeps well-formed rules with their configured index and drops the rest', () => {
    const compiled = compileRules([
      { label: '/api/', audience: '', duration: 10, maxRequests: 300 },
      { label: 'bad label!', audience: '', duration: 1, maxRequests: 1 },
      { label: '/api/x', audience: '@nobody', duration: 1, maxRequests: 1 },
      { label: '/api/y', audience: '', duration: 0, maxRequests: 1 },
      { label: '/api/z', audience: '', duration: 1, maxRequests: 0 },
      { label: '/api/w', duration: 1, maxRequests: '5' },
      null,
      'x',
      { label: ' *:auth ', duration: 3, maxRequests: 2.7 },
    ])
    expect(compiled.map((r) => [r.label, r.audience, r.maxRequests, r.index])).toEqual([
      ['/api/', '', 300, 0],
      ['*:auth', '', 2, 8],
    ])
  })

  it('answers an empty list for anything but an array', () => {
    expect(compileRules(undefined)).toEqual([])
    expect(compileRules({ label: '/api/' })).toEqual([])
  })
})

describe('selectRule', () => {
  const cases: {
    name: string
    rules: string[]
    target: RateLimitTarget
    expected: string | null
  }[] = [
    { name: 'no rules', rules: [], target: target(), expected: null },
    { name: 'prefix covers a path below it', rules: DEFAULTS, target: target(), expected: '/api/' },
    {
      name: 'exact path beats the prefix',
      rules: DEFAULTS,
      target: target({ method: 'POST', path: '/api/batch' }),
      expected: '/api/batch',
    },
    {
      name: 'exact path beats the prefix whatever the configured order',
      rules: ['/api/', '/api/batch'],
      target: target({ method: 'POST', path: '/api/batch' }),
      expected: '/api/batch',
    },
    {
      name: 'an exact path is not a prefix',
      rules: ['/api/batch', '/api/'],
      target: target({ path: '/api/batch/x' }),
      expected: '/api/',
    },
    {
      name: 'method-specific exact path beats the plain exact path',
      rules: ['/api/batch', 'POST /api/batch'],
      target: target({ method: 'POST', path: '/api/batch' }),
      expected: 'POST /api/batch',
    },
    {
      name: 'a method label does not match another method',
      rules: ['GET /api/batch', '/api/'],
      target: target({ method: 'POST', path: '/api/batch' }),
      expected: '/api/',
    },
    {
      name: 'exact path beats a collection tag',
      rules: ['users:auth', '/api/collections/users/auth-with-password'],
      target: PASSWORD,
      expected: '/api/collections/users/auth-with-password',
    },
    {
      name: '*:tag beats the prefix',
      rules: DEFAULTS,
      target: PASSWORD,
      expected: '*:auth',
    },
    {
      name: 'collection:tag beats *:tag',
      rules: ['/api/', '*:auth', 'users:auth'],
      target: PASSWORD,
      expected: 'users:auth',
    },
    {
      name: 'collection names compare case-insensitively',
      rules: ['*:auth', 'Users:auth'],
      target: PASSWORD,
      expected: 'Users:auth',
    },
    {
      name: 'another collection tag does not match',
      rules: ['/api/', 'clients:auth'],
      target: PASSWORD,
      expected: '/api/',
    },
    {
      name: 'the earlier route tag is the more specific',
      rules: ['users:auth', 'users:authWithPassword'],
      target: PASSWORD,
      expected: 'users:authWithPassword',
    },
    {
      name: 'any collection tag beats every wildcard tag',
      rules: ['*:authWithPassword', 'users:auth'],
      target: PASSWORD,
      expected: 'users:auth',
    },
    {
      name: '*:tag beats a bare tag',
      rules: ['auth', '*:auth'],
      target: PASSWORD,
      expected: '*:auth',
    },
    {
      name: 'a bare tag beats the prefix',
      rules: ['/api/', 'auth'],
      target: PASSWORD,
      expected: 'auth',
    },
    {
      name: '*:create on record create',
      rules: DEFAULTS,
      target: CREATE,
      expected: '*:create',
    },
    {
      name: '*:tag applies to a tagged route without a collection',
      rules: DEFAULTS,
      target: target({ method: 'POST', path: '/api/api-keys', tags: ['create'] }),
      expected: '*:create',
    },
    {
      name: 'a collection tag needs a collection',
      rules: ['/api/', 'posts:create'],
      target: target({ method: 'POST', path: '/api/api-keys', tags: ['create'] }),
      expected: '/api/',
    },
    {
      name: 'longest prefix wins, not the first configured',
      rules: ['/api/', '/api/collections/', '/api/collections/posts/'],
      target: CREATE,
      expected: '/api/collections/posts/',
    },
    {
      name: 'a prefix label covers the path without its trailing slash',
      rules: ['/api/', '/api/collections/posts/records/'],
      target: CREATE,
      expected: '/api/collections/posts/records/',
    },
    {
      name: 'a prefix matches only at the path boundary it names',
      rules: ['/api/', '/api/coll/'],
      target: CREATE,
      expected: '/api/',
    },
    {
      name: 'method-specific prefix beats the same plain prefix',
      rules: ['/api/', 'POST /api/'],
      target: CREATE,
      expected: 'POST /api/',
    },
    {
      name: 'a longer plain prefix beats a shorter method prefix',
      rules: ['POST /api/', '/api/collections/'],
      target: CREATE,
      expected: '/api/collections/',
    },
    {
      name: 'a guest rule skips authenticated requests; the next most specific applies',
      rules: ['*:create|@guest', '/api/'],
      target: { ...CREATE, authenticated: true },
      expected: '/api/',
    },
    {
      name: 'a guest rule applies to guests',
      rules: ['*:create|@guest', '/api/'],
      target: CREATE,
      expected: '*:create',
    },
    {
      name: 'an auth rule skips guests',
      rules: ['/api/batch|@auth', '/api/|@guest'],
      target: target({ method: 'POST', path: '/api/batch' }),
      expected: '/api/',
    },
    {
      name: 'nothing applies when every audience misses',
      rules: ['/api/|@auth'],
      target: target(),
      expected: null,
    },
    {
      name: 'the same label for the own audience beats the everyone rule',
      rules: ['/api/', '/api/|@auth'],
      target: target({ authenticated: true }),
      expected: '/api/|@auth',
    },
    {
      name: 'the everyone rule serves the other audience',
      rules: ['/api/', '/api/|@auth'],
      target: target(),
      expected: '/api/|',
    },
    {
      name: 'for equal labels and audiences the first configured wins',
      rules: ['/api/|@guest', '/api/|@guest'],
      target: target(),
      expected: '/api/|@guest#0',
    },
    {
      name: 'paths outside a label are not matched',
      rules: ['/api/'],
      target: target({ path: '/metrics' }),
      expected: null,
    },
  ]

  it.each(cases)('$name', ({ rules: specs, target: t, expected }) => {
    const picked = selectRule(rules(...specs), t)
    if (expected === null) return expect(picked).toBeNull()
    const [label, rest] = expected.split('|')
    expect(picked?.label).toBe(label)
    if (rest === undefined) return
    const [audience, index] = rest.split('#')
    expect(picked?.audience).toBe(audience)
    if (index !== undefined) expect(picked?.index).toBe(Number(index))
  })
})
