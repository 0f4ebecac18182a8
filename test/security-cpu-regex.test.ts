/**
 * Security #32, user regexes: a text field's `pattern` is matched by re2js (RE2, linear time)
 * instead of the backtracking JS engine, a long match runs on the CPU worker pool, and a pattern
 * RE2 refuses (lookaround, backreference) is refused with a 400 when the collection is saved, as
 * PocketBase (Go's regexp) does. The server runs in this thread: the gaps of a 10 ms timer are the
 * stalls of its event loop while the attack runs.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trackLoopGaps } from './helpers/loop-gaps.js'
import { startServer, type TestServer } from './helpers/server.js'

/** Far below the seconds a backtracking engine takes, far above a scheduling hiccup. */
const STALL_BOUND_MS = 500

describe('security #32: user regex patterns', () => {
  let t: TestServer

  const collection = (name: string, pattern: string, max = 0) =>
    t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name,
        type: 'base',
        createRule: '',
        fields: [{ name: 'code', type: 'text', pattern, max }],
      },
    })
  const create = (name: string, code: string) =>
    t.api('POST', `/api/collections/${name}/records`, { token: null, body: { code } })

  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(async () => {
    await t.close()
  })

  it("a superuser's ^(a+)+$ and a guest's a…ab answer 400 without stalling the server", async () => {
    expect((await collection('nested', '^(a+)+$')).status).toBe(200)
    expect((await create('nested', 'aaaa')).status).toBe(200)
    // 28 a's take the backtracking engine seconds; RE2 a few microseconds.
    const gaps = trackLoopGaps()
    const res = await create('nested', 'a'.repeat(28) + 'b')
    const worst = gaps.stop()
    expect(res.status).toBe(400)
    expect(res.body.data.code.code).toBe('validation_invalid_format')
    expect(worst).toBeLessThan(STALL_BOUND_MS)
    // The exact input (2^40 steps for a backtracking engine: it would never answer).
    const gaps2 = trackLoopGaps()
    const res2 = await create('nested', 'a'.repeat(40) + 'b')
    expect(gaps2.stop()).toBeLessThan(STALL_BOUND_MS)
    expect(res2.status).toBe(400)
    expect(res2.body.data.code.code).toBe('validation_invalid_format')
  })

  it('a long value against a large pattern is matched off the event loop, same answer', async () => {
    // Program size ~4000 × 5000 runes: about half a second of RE2 simulation, on a worker.
    expect((await collection('large', '(?i)(\\pL|\\d){10,1000}z')).status).toBe(200)
    const gaps = trackLoopGaps()
    const [miss, hit, shortHit] = await Promise.all([
      create('large', 'é'.repeat(5000)),
      create('large', 'é'.repeat(4990) + 'Z'),
      create('large', 'x'.repeat(10) + 'z'),
    ])
    const worst = gaps.stop()
    expect(miss.status).toBe(400)
    expect(miss.body.data.code.code).toBe('validation_invalid_format')
    expect(hit.status).toBe(200)
    expect(shortHit.status).toBe(200)
    expect(worst).toBeLessThan(STALL_BOUND_MS)
  })

  it('patterns RE2 refuses are refused with a 400 when the collection is saved', async () => {
    for (const [pattern, reason] of [
      ['^(?=a)a$', 'invalid or unsupported Perl syntax: `(?=`'],
      ['(?<!x)y', 'invalid named capture: `(?<!x)y`'],
      ['^(a)\\1$', 'invalid escape sequence: `\\1`'],
      ['a{1001}', 'invalid repeat count: `{1001}`'],
    ]) {
      const res = await collection('refused', pattern!)
      expect(res.status, pattern).toBe(400)
      expect(res.body.data.fields['1'].pattern).toEqual({
        code: 'validation_invalid_regex',
        message: `Error parsing regexp: ${reason}.`,
      })
    }
    // Patched onto an existing collection too.
    const made = await collection('patched', '^ok$')
    const patched = await t.api('PATCH', `/api/collections/${made.body.id}`, {
      token: t.suToken,
      body: {
        fields: [...made.body.fields.slice(0, 1), { name: 'code', type: 'text', pattern: '(?=x)' }],
      },
    })
    expect(patched.status).toBe(400)
    expect(patched.body.data.fields['1'].pattern.code).toBe('validation_invalid_regex')
  })

  it('answers stay those of Go regexp syntax (flags, named groups, classes, \\A \\z)', async () => {
    const cases: [string, string, boolean][] = [
      ['(?i)^abc$', 'ABC', true],
      ['^(?P<year>\\d{4})-\\d{2}$', '2024-05', true],
      ['^(?P<year>\\d{4})-\\d{2}$', '2024-5', false],
      ['\\Aab\\z', 'ab', true],
      ['\\Aab\\z', 'abc', false],
      ['^[[:alpha:]]+$', 'abc', true],
      ['^[[:alpha:]]+$', 'ab1', false],
      ['^\\pL+$', 'héllo', true],
      ['^\\pL+$', 'he llo', false],
      ['^.$', '😀', true],
      ['^\\Q.*\\E$', '.*', true],
      ['^\\Q.*\\E$', 'ab', false],
      ['b', 'abc', true],
      ['^[a-z0-9_]{3,8}$', 'ok_name', true],
      ['^[a-z0-9_]{3,8}$', 'No', false],
    ]
    let n = 0
    for (const [pattern, value, matches] of cases) {
      const name = `go${n++}`
      expect((await collection(name, pattern)).status, pattern).toBe(200)
      const res = await create(name, value)
      expect(res.status, `${pattern} on ${value}`).toBe(matches ? 200 : 400)
    }
  })
})
