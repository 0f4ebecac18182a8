/**
 * PocketBase's routing for `*.pb.js` files (docs/hook-scripts.md, "PocketBase's *.pb.js form"):
 * the same `routes.pb.js` ran on PocketBase 0.40.4 (`test/pocketbase/hooks/routes.json`, recorded
 * by `test/pocketbase/hooks/record.ts`) and here answers alike: every method (an OPTIONS route
 * loads, and CORS answers OPTIONS first, in both), `{name}`, `{path...}`, `{$}`, a literal `*`,
 * the redirect to the trailing-slash form, and the path values a handler reads.
 */
import { routesSuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite } from './pocketbase/hooks/suite-test.js'

describeRecordedSuite(
  'PocketBase routes of *.pb.js files, as PocketBase answers them',
  routesSuite,
  { label: (a) => `${a.method} ${a.path} (${a.name})` },
)
