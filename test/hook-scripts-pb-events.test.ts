/**
 * Route event members of `*.pb.js` files: the same `events.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/events.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike: `e.get`/`e.set`/`e.setAll` shared from a middleware to the handler, `e.blob`,
 * `e.html`, `e.string`, `e.noContent`, `e.redirect`, the error helpers (`e.badRequestError`, …,
 * `e.error`) and `e.realIP()`/`e.remoteIP()`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { eventsSuite } from './pocketbase/hooks/cases.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(eventsSuite)

/** Where svcbase answers otherwise, on purpose. */
const ALLOWED: Record<string, { status: number; why: string }> = {
  'redirect with a bad status': {
    status: 400,
    why: 'PocketBase answers 500 "Invalid redirect status code."; svcbase throws in the handler: 400',
  },
}

describe('route event members in *.pb.js files, as PocketBase answers', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(eventsSuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  it.each(recorded.answers.map((a) => [`${a.path} (${a.name})`, a] as const))(
    '%s',
    async (_label, pb) => {
      const svc = await replay(s, pb)
      const allowed = ALLOWED[pb.name]
      if (allowed) expect(svc.status, allowed.why).toBe(allowed.status)
      else expect(svc).toEqual(pb)
    },
  )
})
