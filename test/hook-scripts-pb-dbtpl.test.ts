/**
 * `$app.db()` query builders (`select(...).from().where()...`, `insert`, `update`, `delete`,
 * `upsert`), the `$dbx` differences (an empty expression in a find fails, `like` with `%`, `_`
 * or `\` in the value matches as on PocketBase's SQLite on both engines), `$template` and the
 * auth confirm hooks in `*.pb.js` handlers: the same `dbtpl*.pb.js` files ran on PocketBase
 * 0.40.4 (`test/pocketbase/hooks/dbtpl.json`, recorded by `test/pocketbase/hooks/record.ts`)
 * and here answer alike, request after request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { dbtplSuite } from './pocketbase/hooks/cases-dbtpl.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(dbtplSuite)

describe('$app.db() builders, $dbx, $template and the auth confirm hooks, as PocketBase', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(dbtplSuite)
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
