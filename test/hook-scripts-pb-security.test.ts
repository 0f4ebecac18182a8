/**
 * `$security` in `*.pb.js` files: the same `security.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/security.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike: digests and HMACs, constant-time equal, random strings (by alphabet and by
 * regex, checked against their patterns), JWTs both ways (an oracle-made token verified here, an
 * svcbase-made token that PocketBase verified), AES-GCM both ways (an oracle cipher decrypted
 * here, an svcbase cipher that PocketBase decrypted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { securitySuite } from './pocketbase/hooks/cases.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(securitySuite)

/** Where svcbase answers otherwise, on purpose. */
const ALLOWED: Record<string, { status: number; why: string }> = {
  'decrypt not base64': {
    status: 400,
    why: 'PocketBase panics on a cipher text shorter than the nonce (500); svcbase answers 400',
  },
}

describe('$security in *.pb.js files, as PocketBase answers', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(securitySuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  it.each(recorded.answers.map((a) => [`${a.path.slice(0, 60)} (${a.name})`, a] as const))(
    '%s',
    async (_label, pb) => {
      const svc = await replay(s, pb)
      const allowed = ALLOWED[pb.name]
      if (allowed) expect(svc.status, allowed.why).toBe(allowed.status)
      else expect(svc).toEqual(pb)
    },
  )
})
