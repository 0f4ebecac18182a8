/**
 * Route event members of `*.pb.js` files: the same `events.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/events.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike: `e.get`/`e.set`/`e.setAll` shared from a middleware to the handler, `e.blob`,
 * `e.html`, `e.string`, `e.noContent`, `e.redirect`, the error helpers (`e.badRequestError`, …,
 * `e.error`) and `e.realIP()`/`e.remoteIP()`.
 */
import { eventsSuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite, type Allowed } from './pocketbase/hooks/suite-test.js'

/** Where svcbase answers otherwise, on purpose. */
const ALLOWED: Record<string, Allowed> = {
  'redirect with a bad status': {
    status: 400,
    why: 'PocketBase answers 500 "Invalid redirect status code."; svcbase throws in the handler: 400',
  },
}

describeRecordedSuite('route event members in *.pb.js files, as PocketBase answers', eventsSuite, {
  allowed: ALLOWED,
  label: (a) => `${a.path} (${a.name})`,
})
