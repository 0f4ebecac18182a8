/**
 * PocketBase's recorded answers (test/pocketbase/answers/, `npm run oracle:record`) replayed
 * against svcbase: every difference must be one test/pocketbase/allowed.ts lists, and each listed
 * one must still occur (on SQLite here, on PostgreSQL in the PostgreSQL pass).
 */
import { describe, expect, it } from 'vitest'
import { ALLOWED, allowedBy, type Allowed } from './pocketbase/allowed.js'
import { GROUPS } from './pocketbase/groups/index.js'
import { ORACLE_VERSION } from './pocketbase/harness.js'
import { recording, replayGroup } from './pocketbase/replay.js'

const pg = process.env.SVC_TEST_DATABASE === 'postgres'
const used = new Set<Allowed>()
const ran = new Set<string>()

describe(`svcbase answers like ${ORACLE_VERSION} (${pg ? 'PostgreSQL' : 'SQLite'})`, () => {
  it('has a recording of every step of every group, by the oracle named', () => {
    for (const group of GROUPS) {
      const rec = recording(group.name)
      expect(rec.oracle).toBe(ORACLE_VERSION)
      expect(
        rec.answers.map((a) => a.name),
        group.name,
      ).toEqual(group.steps.map((s) => s.name))
      expect(new Set(group.steps.map((s) => s.name)).size, group.name).toBe(group.steps.length)
    }
  })

  for (const group of GROUPS.filter((g) => g.steps.length > 0)) {
    it(`${group.name}: ${group.steps.length} requests, differences only those allowed`, async () => {
      const diffs = await replayGroup(group, pg)
      const unlisted: string[] = []
      for (const d of diffs) {
        const rule = allowedBy(d)
        if (rule) used.add(rule)
        else unlisted.push(`${d.step} | ${d.line}`)
      }
      ran.add(group.name)
      expect(unlisted, 'differences test/pocketbase/allowed.ts does not list').toEqual([])
    }, 120_000)
  }

  it('allows only differences that still occur (after every group ran)', () => {
    expect(ran.size, 'run the whole file').toBe(GROUPS.filter((g) => g.steps.length > 0).length)
    const stale = ALLOWED.filter(
      (a) => !used.has(a) && (!a.engines || a.engines.includes(pg ? 'postgres' : 'sqlite')),
    )
    expect(
      stale.map((a) => `${a.step.source} | ${a.line.source}: ${a.reason}`),
      'allowed differences that no longer occur: remove them',
    ).toEqual([])
  })
})
