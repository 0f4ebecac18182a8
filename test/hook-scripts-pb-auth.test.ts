/**
 * The auth request hooks, the record execute/validate hooks, a mailer hook and a collection hook
 * of `*.pb.js` files: the same `auth.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/auth.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike, request after request: `e.meta` set by `onRecordAuthRequest` is answered,
 * a handler that answers itself without `e.next()` stops the sign-in, `e.identity`/`e.password`/
 * `e.record` (null when no record) of `onRecordAuthWithPasswordRequest`, the order create →
 * validate → execute, an execute handler that skips `e.next()` writes nothing, tags.
 */
import { describe, expect, it } from 'vitest'
import { startHooksServer } from './fixtures/hooks/server.js'
import { authSuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite, type Allowed } from './pocketbase/hooks/suite-test.js'

/** Where svcbase answers otherwise, on purpose (docs/hook-scripts.md). */
const ALLOWED: Record<string, Allowed> = {
  'validate throws': {
    status: 400,
    why: 'PocketBase wraps it in "Failed to create record."; svcbase answers a script error of any record model hook with the generic 400 message',
  },
  'validate skips next, invalid email': {
    status: 400,
    why: 'PocketBase validates inside onRecordValidate (skipping e.next() skips it); svcbase validates before the model hooks, always',
  },
  'execute skips next': {
    status: 200,
    why: 'the unsaved record is answered; PocketBase leaves its autodates empty, svcbase has filled them before the hooks',
  },
  'auth with password throws': {
    status: 400,
    why: 'PocketBase answers a non-validation value of the error data as {code: "validation_invalid_value"}; errors.ts passes it as given',
  },
  'collection update hook throws': {
    status: 400,
    why: 'PocketBase prefixes the message with "Failed to update collection. Raw error:"; svcbase answers the handler\'s message',
  },
  'collection create hook throws': {
    status: 400,
    why: 'PocketBase prefixes the message with "Failed to create collection. Raw error:"; svcbase answers the handler\'s message',
  },
}

describeRecordedSuite(
  'auth, execute, validate, mailer and collection hooks in *.pb.js files, as PocketBase',
  authSuite,
  { allowed: ALLOWED },
)

describe('a PocketBase hook svcbase has no counterpart for', () => {
  it("fails the file at load, naming it (and the file's other such hooks); the hooks it offers load", async () => {
    const t = await startHooksServer({
      'lacking.pb.js': `onRecordAuthRequest((e) => e.next())

onRecordAuthWithOAuth2Request((e) => e.next(), "users")
onCronJobExecute((e) => e.next())
onRecordValidate((e) => e.next())
`,
    })
    try {
      const listing = await t.api('GET', '/api/functions', { token: t.suToken })
      expect(listing.body.errors).toEqual([
        {
          file: 'lacking.pb.js',
          line: 3,
          column: 1,
          message:
            '"onRecordAuthWithOAuth2Request" is not supported in svcbase *.pb.js scripts (see docs/hook-scripts.md). Also not supported: onCronJobExecute.',
        },
      ])
      // nothing of the file is bound
      expect(
        t.server.app.hooks.onRecordAuthRequest.ids().some((id) => !id.startsWith('__svc')),
      ).toBe(false)
    } finally {
      await t.close()
    }
  })
})
