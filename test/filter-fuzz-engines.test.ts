/**
 * The filter fuzz answers the same on SQLite and PostgreSQL: the whole corpus of
 * test/helpers/fuzz.ts (grammatical and malformed filters, sorts), as a superuser and as a guest,
 * on one fuzz server per engine (test/helpers/filter-fuzz-server.ts: the same records with the same
 * ids; PostgreSQL is `SVC_TEST_PG_URL`, started by test/global-setup.ts). Each answer must have
 * the same status on both, and a list the same ids in the same order. SQLite is the reference;
 * PostgreSQL may refuse only what docs/postgresql.md ("Differences you can see") lists, which
 * `documentedRefusal` mirrors. The clock is frozen while the corpus runs, so the time macros
 * (`@now`, `@second`…) have one value on both servers.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { param, sql } from '../src/store/sql.js'
import { useFilterFuzz } from './helpers/filter-fuzz-server.js'
import { fuzzCorpora, type Outcome, type Who } from './helpers/fuzz.js'

/** PostgreSQL's message for a filter whose values it cannot evaluate (`DbError.kind === 'type'`). */
const CANNOT_EVALUATE = 'Invalid filter: the database cannot evaluate it with these values.'

/** A date text in the filter whose day is past its month's end (`'2024-02-31'`). */
const OVERFLOWING_DAY = /\d{4}-(?:(?:0[469]|11)-31|02-(?:3[01]|29))/

/**
 * The SQLite codes `strftime` has no `to_char` equivalent for on PostgreSQL (the dialect supports
 * `%d %f %H %j %m %M %S %Y %%`).
 */
const UNSUPPORTED_STRFTIME = /strftime code %.? is not supported on PostgreSQL|strftime modifiers/

/**
 * True when PostgreSQL may answer `refused` where SQLite answers a list, as docs/postgresql.md
 * lists: a NUL character in text, a `strftime` date whose day is past its month's end
 * (SQLite rolls it over), and `strftime` codes or modifiers PostgreSQL lacks.
 */
function documentedRefusal(filter: string, refused: Outcome): boolean {
  if (refused.ok || refused.status !== 400) return false
  if (refused.message === CANNOT_EVALUATE) {
    return (
      filter.includes('\u0000') || (filter.includes('strftime') && OVERFLOWING_DAY.test(filter))
    )
  }
  return filter.includes('strftime') && UNSUPPORTED_STRFTIME.test(refused.message)
}

describe('the filter fuzz on SQLite and PostgreSQL', () => {
  const sqlite = useFilterFuzz({ pg: false })
  const postgres = useFilterFuzz({ pg: true })
  const { grammaticalCorpus, malformedCorpus, sortCorpus } = fuzzCorpora()
  const differences: string[] = []
  const counts = { compared: 0, refused: 0 }

  beforeAll(() => {
    expect(sqlite.t.server.app.store.dialect.name).toBe('sqlite')
    expect(postgres.t.server.app.store.dialect.name).toBe('postgres')
    // NB: only Date: the macros read the same instant on both servers, timers run as usual.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() })
  })
  afterAll(() => {
    vi.useRealTimers()
  })
  beforeEach(() => {
    differences.length = 0
    Object.assign(counts, { compared: 0, refused: 0 })
  })

  /** Runs `query` on both engines as `who`; records a difference outside the documented class. */
  async function compare(who: Who, query: Record<string, string>): Promise<void> {
    const text = query.filter ?? query.sort ?? ''
    const a = await sqlite.listAs(who, query)
    const b = await postgres.listAs(who, query)
    counts.compared++
    if (a.ok && !b.ok && documentedRefusal(text, b)) {
      counts.refused++
      return
    }
    // NB: `@random` orders at random: the same rows, in any order.
    const ids = (o: { ids: string[] }) =>
      (text.includes('@random') ? [...o.ids].sort() : o.ids).join()
    const same = a.ok && b.ok ? ids(a) === ids(b) : !a.ok && !b.ok && a.status === b.status
    if (!same && differences.length < 300) {
      const answer = (o: Outcome) => JSON.stringify(o.ok ? o.ids : `${o.status} ${o.message}`)
      differences.push(`${who} ${JSON.stringify(query)}: sqlite ${answer(a)} postgres ${answer(b)}`)
    }
  }

  it('every filter answers the same (status, then ids in order)', async () => {
    for (const filter of [...grammaticalCorpus, ...malformedCorpus]) {
      for (const who of ['su', 'guest'] as const) await compare(who, { filter })
    }
    expect(differences).toEqual([])
    expect([...sqlite.failures, ...postgres.failures]).toEqual([])
    expect(counts.compared).toBe(12_800)
    // the documented class stays small, or the comparison tests little
    expect(counts.refused).toBeLessThan(counts.compared / 1000)
  }, 600_000)

  it('every sort answers the same rows in the same order', async () => {
    for (const sort of sortCorpus) {
      for (const who of ['su', 'guest'] as const) await compare(who, { sort })
    }
    expect(differences).toEqual([])
    expect([...sqlite.failures, ...postgres.failures]).toEqual([])
  }, 120_000)

  it('strftime gives the same text for every code and modifier PostgreSQL has', async () => {
    const formats = [...'deFfgGHIjklmMpPRsSTuUVwWY%'].map((c) => `%${c}`)
    formats.push('%Y-%m-%d %H:%M:%S', 'plain', '%Y %q', '%')
    const times = ['2024-02-09 13:04:05.678Z', '2021-01-03', '2020-12-31 23:59:59', 'bogus', '']
    const modifiers = [
      [],
      ['start of month'],
      ['Start Of Year', '+10 days'],
      ['+1 day'],
      ['-2.5 hours'],
      ['1. minute'],
      ['+30  seconds'],
      ['weekday 0'],
      ['weekday 3'],
      ["'; DROP"],
      ['sart of month'],
      [' +1 day'],
    ]
    const run = async (fuzz: typeof sqlite, f: string, time: string, mods: string[]) => {
      const { app } = fuzz.t.server
      const d = app.store.dialect
      const expr = d.strftime(
        param(f),
        param(time),
        mods.map((m) => param(m)),
      )
      const row = await app.dbFor(fuzz.fz).get<{ v: unknown }>(sql`SELECT ${expr} AS v`)
      return row?.v ?? null
    }
    const differ: unknown[] = []
    let texts = 0
    for (const f of formats) {
      for (const time of times) {
        for (const mods of f === '%Y-%m-%d %H:%M:%S' ? modifiers : [[]]) {
          const [a, b] = [await run(sqlite, f, time, mods), await run(postgres, f, time, mods)]
          if (a !== b) differ.push({ f, time, mods, sqlite: a, postgres: b })
          if (typeof a === 'string') texts++
        }
      }
    }
    expect(differ).toEqual([])
    // most combinations format a time (the others are NULL on both)
    expect(texts).toBeGreaterThan(80)
  })

  it('refuses only the documented class, with a precise message', async () => {
    const nul = await postgres.listAs('su', { filter: "title = 'a\u0000b'" })
    expect(documentedRefusal("title = 'a\u0000b'", nul)).toBe(true)
    // a plain type mismatch outside the class is not excused
    const other = { ok: false, status: 400, message: CANNOT_EVALUATE } as const
    expect(documentedRefusal('n = title', other)).toBe(false)
    expect(documentedRefusal("strftime('%Y', d) = '2024'", other)).toBe(false)
    expect(documentedRefusal("strftime('%Y', '2024-02-31') = '2024'", other)).toBe(true)
  })
})
