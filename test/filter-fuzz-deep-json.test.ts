/**
 * Deep JSON: random values 0–200 levels deep sent through every body format, then filters and
 * `fields` paths over the stored values. Nothing deeper than the limit is stored, nothing faults.
 * Set FUZZ_SEED to explore other values (test/helpers/fuzz.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEED, prng } from './helpers/fuzz.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('deep JSON fuzz', () => {
  let t: TestServer
  const rng = prng(SEED + 20)
  const MAX_DEPTH = 64
  const MAX_BODY_DEPTH = 128
  const failures: string[] = []
  const fail = (what: string, detail: unknown): void => {
    if (failures.length < 100)
      failures.push(`${what} [seed ${SEED}]: ${JSON.stringify(detail).slice(0, 400)}`)
  }
  const NASTY_TEXT = ['[', ']', '{', '}', '"', '\\', '\\"', '[{"', 'x', '']

  /** A random JSON value exactly `depth` levels deep, brackets and quotes inside its strings. */
  function deepValue(depth: number): unknown {
    let v: unknown = rng.pick([1, 'leaf', null, true, rng.pick(NASTY_TEXT)])
    for (let d = 0; d < depth; d++) {
      const sibling = rng.pick(NASTY_TEXT)
      v = rng.chance(0.5)
        ? rng.chance(0.5)
          ? [v]
          : [sibling, v, 2]
        : { [rng.pick(['k', 'a', sibling || 'e'])]: v, [`s${sibling}`]: sibling }
    }
    return v
  }
  const depthOf = (value: unknown): number => {
    let max = 0
    const stack: [unknown, number][] = [[value, 0]]
    while (stack.length > 0) {
      const [v, d] = stack.pop()!
      if (typeof v !== 'object' || v === null) continue
      max = Math.max(max, d + 1)
      for (const c of Object.values(v)) stack.push([c, d + 1])
    }
    return max
  }

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'dj',
        listRule: "meta.k != 'zzz'",
        viewRule: '',
        createRule: '',
        schema: [{ name: 'meta', type: 'json' }],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })
  afterAll(() => t.close())

  it('values deeper than 64 levels are refused in every body format; the rest round-trip', async () => {
    const counts = { stored: 0, field: 0, body: 0 }
    for (let round = 0; round < 160; round++) {
      const depth = rng.chance(0.5) ? rng.int(MAX_DEPTH + 3) : rng.int(200)
      const value = deepValue(depth)
      const format = rng.pick(['json', 'json-string', 'multipart', 'urlencoded'] as const)
      let res
      let bodyDepth = 0
      if (format === 'json') {
        res = await t.api('POST', '/api/collections/dj/records', { body: { meta: value } })
        bodyDepth = depth + 1
      } else if (format === 'json-string') {
        res = await t.api('POST', '/api/collections/dj/records', {
          body: { meta: JSON.stringify(value) },
        })
      } else if (format === 'multipart') {
        const fd = new FormData()
        fd.set('meta', JSON.stringify(value))
        res = await t.api('POST', '/api/collections/dj/records', { raw: fd })
      } else {
        res = await t.api('POST', '/api/collections/dj/records', {
          raw: `@jsonPayload=${encodeURIComponent(JSON.stringify({ meta: value }))}`,
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
        })
        bodyDepth = depth + 1
      }
      const scalarString = format !== 'json' && format !== 'urlencoded' && typeof value === 'string'
      if (bodyDepth > MAX_BODY_DEPTH) {
        counts.body++
        if (res.status !== 400 || !/is nested deeper than 128 levels\.$/.test(res.body.message))
          fail('expected the body depth error', { format, depth, got: res.body })
      } else if (depth > MAX_DEPTH) {
        counts.field++
        if (res.status !== 400 || res.body.data?.meta?.code !== 'validation_json_too_deep')
          fail('expected the field depth error', { format, depth, got: res.body })
      } else {
        counts.stored++
        if (res.status !== 200) fail(`HTTP ${res.status}`, { format, depth, got: res.body })
        // A plain string sent as text is read as raw JSON only when it looks like JSON.
        else if (!scalarString && JSON.stringify(res.body.meta) !== JSON.stringify(value))
          fail('value changed', { format, depth, sent: value, got: res.body.meta })
      }
    }
    expect(failures).toEqual([])
    expect(counts.stored).toBeGreaterThan(20)
    expect(counts.field).toBeGreaterThan(10)
    expect(counts.body).toBeGreaterThan(5)
  })

  it('filters and fields paths of any depth over the stored values never fault', async () => {
    const all = await t.api('GET', '/api/collections/dj/records?perPage=500', {
      token: t.suToken,
    })
    expect(all.status).toBe(200)
    for (const r of all.body.items) {
      if (depthOf(r.meta) > MAX_DEPTH) fail('stored deeper than the limit', depthOf(r.meta))
    }
    for (let round = 0; round < 120; round++) {
      const segments = Array.from({ length: 1 + rng.int(rng.chance(0.2) ? 1200 : 70) }, () =>
        rng.pick(['0', '1', 'k', 'a', 'e']),
      )
      const path = `meta.${segments.join('.')}`
      const filter = `${path} ${rng.pick(['=', '!=', '~', '>', '?='])} ${rng.pick(["'leaf'", '1', 'null', 'true', "'['"])}`
      for (const who of [t.suToken, null]) {
        const res = await t.api(
          'GET',
          `/api/collections/dj/records?perPage=500&filter=${encodeURIComponent(filter)}&fields=${encodeURIComponent(`id,${path}`)}`,
          { token: who },
        )
        if (res.status !== 200 && res.status !== 400)
          fail(`HTTP ${res.status}`, { filter: filter.slice(0, 200), body: res.body })
        else if (
          res.status === 400 &&
          (typeof res.body.message !== 'string' || res.body.code !== 400)
        )
          fail('not the error envelope', { filter: filter.slice(0, 200), body: res.body })
      }
    }
    expect(failures).toEqual([])
    const health = await t.api('GET', '/api/health')
    expect(health.status).toBe(200)
  })
})
