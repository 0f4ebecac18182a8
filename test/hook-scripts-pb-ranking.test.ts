/**
 * The members of PocketBase's JSVM that real apps use most (reference/pocketbase-jsvm.md §7) and
 * the other suites do not exercise: the record request and model hooks, the after-success hooks,
 * `$app.logger()` (its key-value attributes as the log's data), collection properties,
 * `$apis.requireAuth()`, `findRecordsByIds`, `importCollections` and `InternalServerError`. The
 * same `ranking*.pb.js` files ran on PocketBase 0.40.4 (`test/pocketbase/hooks/ranking.json`,
 * recorded by `test/pocketbase/hooks/record.ts ranking`) and here answer alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { rankingSuite } from './pocketbase/hooks/cases-ranking.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(rankingSuite)

describe('the JSVM members real apps use most, in *.pb.js files, as PocketBase', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(rankingSuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the files', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  // In order: each case sees what the ones before it wrote.
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    expect(await replay(s, pb)).toEqual(pb)
  })
})
