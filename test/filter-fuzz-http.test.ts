/**
 * The filter fuzz over HTTP: a seeded sample of the grammatical and malformed corpora sent to the
 * records list as a superuser and as a guest must answer like the service does in-process, a
 * list or a 400/403 in the error envelope; a 1 MB filter gets a quick 400; and the server still
 * answers afterwards. The corpora and the seeded server are those of
 * test/filter-fuzz-laws.test.ts (test/helpers/fuzz.ts, test/helpers/filter-fuzz-server.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest'
import { useFilterFuzz } from './helpers/filter-fuzz-server.js'
import { SEED, fuzzCorpora, prng } from './helpers/fuzz.js'
import type { TestServer } from './helpers/server.js'

describe('filter fuzz', () => {
  const fuzz = useFilterFuzz()
  const { outcomes, failures, timings, fail, judge } = fuzz
  const { grammaticalCorpus, malformedCorpus } = fuzzCorpora()
  let t: TestServer
  beforeAll(() => {
    t = fuzz.t
  })

  it('a sample over HTTP answers like the service, in the error envelope', async () => {
    const r3 = prng(SEED + 2)
    const sample = [
      ...Array.from({ length: 200 }, () => r3.pick(grammaticalCorpus)),
      ...Array.from({ length: 150 }, () => r3.pick(malformedCorpus)),
      '('.repeat(3500),
      `title = 'x'${' '.repeat(3490)}`,
      "title = '\u0000'",
      "title ~ '%'",
      "title = 'it\\'s'",
    ]
    let sent = 0
    for (const filter of sample) {
      let encoded: string
      try {
        encoded = encodeURIComponent(filter)
      } catch {
        continue // a lone surrogate from a truncation: not expressible in a URL
      }
      for (const who of ['su', 'guest'] as const) {
        const res = await t.api(
          'GET',
          `/api/collections/fz/records?q=alpha&perPage=500&filter=${encoded}`,
          {
            token: who === 'su' ? t.suToken : null,
            headers: { 'X-Token': 'tok;en' },
          },
        )
        sent++
        if (res.status === 200) {
          const b = res.body
          if (
            !Array.isArray(b?.items) ||
            b.page !== 1 ||
            b.perPage !== 500 ||
            typeof b.totalItems !== 'number'
          ) {
            fail('malformed list body', filter, b)
          }
        } else if (res.status === 400 || res.status === 403) {
          const b = res.body
          const keys = b && typeof b === 'object' ? Object.keys(b).sort().join() : ''
          if (
            keys !== 'code,data,message,status' ||
            b.code !== res.status ||
            b.status !== res.status ||
            typeof b.message !== 'string' ||
            typeof b.data !== 'object' ||
            b.data === null ||
            Array.isArray(b.data)
          ) {
            fail('not the error envelope', filter, b)
          }
        } else {
          fail(`HTTP ${res.status}`, filter, res.body)
        }
        let known = outcomes.get(filter)?.[who]
        if (!known) known = (await judge(filter, 'malformed'))[who]
        const expected = known.ok ? 200 : known.status
        if (res.status !== expected)
          fail('HTTP and in-process disagree', filter, { http: res.status, service: expected })
      }
    }
    expect(failures).toEqual([])
    expect(sent).toBeGreaterThan(400)
  })

  it('a 1 MB filter over HTTP gets a quick 400 in the error envelope', async () => {
    for (const size of [20_000, 1_000_000]) {
      const started = performance.now()
      const res = await t.api('GET', `/api/collections/fz/records?filter=${'('.repeat(size)}`)
      expect(performance.now() - started).toBeLessThan(2000)
      expect(res.status, JSON.stringify(res.body)).toBe(400)
      expect(Object.keys(res.body).sort()).toEqual(['code', 'data', 'message', 'status'])
      expect(res.body.code).toBe(400)
    }
  })

  it('the server still answers afterwards', async () => {
    const health = await t.api('GET', '/api/health')
    expect(health.status).toBe(200)
    const res = await t.api(
      'GET',
      `/api/collections/fz/records?perPage=500&filter=${encodeURIComponent("title = 'alpha'")}`,
    )
    expect(res.status).toBe(200)
    expect(res.body.items.map((i: { title: string }) => i.title)).toEqual(['alpha'])
    expect(res.body.totalItems).toBe(1)
    const all = await t.api('GET', '/api/collections/fz/records?perPage=500', { token: t.suToken })
    expect(all.body.totalItems).toBe(10)
    // slow answers are reported, not failed: SQLite plans vary a little between machines
    if (timings.length > 0)
      console.warn('slowest filters', timings.sort((a, b) => b.ms - a.ms).slice(0, 5))
  })
})
