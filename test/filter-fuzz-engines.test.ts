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

/** The `strftime` modifiers PostgreSQL refuses (docs/postgresql.md). */
const UNSUPPORTED_MODIFIER =
  /\b(?:months?|years?|localtime|utc|auto|julianday|unixepoch|subsec|subsecond|ceiling|floor)\b|['"]\s*[+-]?\d{2}:\d{2}|['"]\s*[+-]?\d{4}-\d{2}-\d{2}/i

/**
 * True when PostgreSQL may answer `refused` where SQLite answers a list, as docs/postgresql.md
 * ("Differences you can see") lists: a NUL character in text, a `strftime` date whose day is past
 * its month's end (SQLite rolls it over), the `strftime` code `%J` and the modifiers for months,
 * years, time offsets, time zones and Julian or Unix times.
 */
function documentedRefusal(filter: string, refused: Outcome): boolean {
  if (refused.ok || refused.status !== 400) return false
  const strftime = filter.includes('strftime')
  switch (refused.message) {
    case CANNOT_EVALUATE:
      return filter.includes('\u0000') || (strftime && OVERFLOWING_DAY.test(filter))
    case 'Invalid filter: strftime code %J is not supported on PostgreSQL.':
      return strftime && filter.includes('%J')
    case 'Invalid filter: strftime modifiers are not supported on PostgreSQL.':
      return strftime && UNSUPPORTED_MODIFIER.test(filter)
    default:
      return false
  }
}

/**
 * True when `~` reads digits that differ between the two servers by nature: the times the records
 * were created (each server seeded them at its own moment) and the last digits of a computed REAL
 * (geoDistance: SQLite writes 17 significant digits, PostgreSQL the shortest exact ones). `~` with
 * a number is a `%…%` pattern of its digits, as in PocketBase, so those digits decide the rows.
 */
function digitsOfTheMoment(filter: string): boolean {
  return /(?:created|updated|geoDistance\([^)]*\))\s*\??!?~|\??!?~\s*(?:created|updated|geoDistance)\b/.test(
    filter,
  )
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
    const same =
      a.ok && b.ok
        ? ids(a) === ids(b) || digitsOfTheMoment(text)
        : !a.ok && !b.ok && a.status === b.status
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
    const documented = [
      "title = 'a\u0000b'",
      "strftime('%Y-%m-%d', '2024-02-31') = '2024-03-02'",
      "strftime('%J', d) != ''",
      "strftime('%Y', d, '+1 month') != ''",
      "strftime('%Y', d, 'localtime') != ''",
    ]
    for (const filter of documented) {
      const a = await sqlite.listAs('su', { filter })
      const b = await postgres.listAs('su', { filter })
      expect(a.ok, filter).toBe(true)
      expect(documentedRefusal(filter, b), `${filter}: ${JSON.stringify(b)}`).toBe(true)
    }
    // a refusal outside the class is not excused
    const refused = (message: string) => ({ ok: false, status: 400, message }) as const
    expect(documentedRefusal('n = title', refused(CANNOT_EVALUATE))).toBe(false)
    expect(documentedRefusal("strftime('%Y', d) = '2024'", refused(CANNOT_EVALUATE))).toBe(false)
    const modifiers = 'Invalid filter: strftime modifiers are not supported on PostgreSQL.'
    expect(documentedRefusal("strftime('%Y', d, '+1 day') = ''", refused(modifiers))).toBe(false)
    expect(documentedRefusal("strftime('%s', d) = ''", refused(modifiers))).toBe(false)
  })
})
