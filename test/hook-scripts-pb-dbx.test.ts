/**
 * `$dbx` expressions in `$app.findAllRecords`/`countRecords`, `$app.findFirstRecordByData`, and
 * `$app.db().newQuery(…)` with `bind`, `all(arrayOf(new DynamicModel(…)))`, `one` and `execute`
 * in `*.pb.js` handlers: the same `dbx.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/dbx.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike, request after request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { dbxSuite } from './pocketbase/hooks/cases.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(dbxSuite)

/** Where svcbase answers otherwise, on purpose (docs/hook-scripts.md). */
const ALLOWED: Record<string, { status: number; why: string }> = {
  'txApp execute rolled back with its transaction': {
    status: 400,
    why: 'a queued save fails the handler with the record service\'s answer ("Failed to update record." and the field errors); PocketBase wraps it in the generic message',
  },
}

describe('$dbx, findAllRecords and $app.db() in *.pb.js files, as PocketBase', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(dbxSuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  // In order: each case sees what the ones before it wrote.
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    const svc = await replay(s, pb)
    const allowed = ALLOWED[pb.name]
    if (allowed) expect(svc.status, allowed.why).toBe(allowed.status)
    else expect(svc).toEqual(pb)
  })
})
