/**
 * `$app.db()` query builders (`select(...).from().where()...`, `insert`, `update`, `delete`,
 * `upsert`), the `$dbx` differences (an empty expression in a find fails, `like` with `%`, `_`
 * or `\` in the value matches as on PocketBase's SQLite on both engines), `$template` and the
 * auth confirm hooks (tokens and OTPs read from the mails each server sent) in `*.pb.js`
 * handlers: the same `dbtpl*.pb.js` files ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/dbtpl.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answer alike, request after request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'
import { useSmtp } from './pocketbase/hooks/ask.js'
import type { HookAnswer } from './pocketbase/hooks/cases.js'
import { SU } from './pocketbase/hooks/cases.js'
import { dbtplSuite } from './pocketbase/hooks/cases-dbtpl.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(dbtplSuite)

/** An answer as compared: an OTP mail's one-time password is random on either side. */
const compared = (a: HookAnswer): HookAnswer =>
  a.name.startsWith('request OTP')
    ? { ...a, sent: a.sent?.map((m) => ({ ...m, html: m.html.replace(/\d{6,}/g, 'OTP') })) }
    : a

describe('$app.db() builders, $dbx, $template and the auth confirm hooks, as PocketBase', () => {
  let s: HooksServer
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
    s = await startSuiteServer(dbtplSuite)
    await useSmtp(s.url, smtp, SU)
  })
  afterAll(async () => {
    await s.close()
    await smtp.close()
  })

  it('loads the files', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  // In order: each case sees what the ones before it wrote.
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    expect(compared(await replay(s, pb, smtp))).toEqual(compared(pb))
  })
})
