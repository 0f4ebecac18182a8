/**
 * PocketBase's routing for `*.pb.js` files (docs/hook-scripts.md, "PocketBase's *.pb.js form"):
 * the same `routes.pb.js` ran on PocketBase 0.40.4 (`test/pocketbase/hooks/routes.json`, recorded
 * by `test/pocketbase/hooks/record.ts`) and here answers alike: every method (an OPTIONS route
 * loads, and CORS answers OPTIONS first, in both), `{name}`, `{path...}`, `{$}`, a literal `*`,
 * the redirect to the trailing-slash form, and the path values a handler reads.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { routesSuite } from './pocketbase/hooks/cases.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(routesSuite)

describe('PocketBase routes of *.pb.js files, as PocketBase answers them', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(routesSuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  it.each(recorded.answers.map((a) => [`${a.method} ${a.path} (${a.name})`, a] as const))(
    '%s',
    async (_label, pb) => {
      expect(await replay(s, pb)).toEqual(pb)
    },
  )
})
