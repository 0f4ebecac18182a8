/**
 * `$dbx` expressions in `$app.findAllRecords`/`countRecords`, `$app.findFirstRecordByData`, and
 * `$app.db().newQuery(…)` with `bind`, `all(arrayOf(new DynamicModel(…)))`, `one` and `execute`
 * in `*.pb.js` handlers: the same `dbx.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/dbx.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike, request after request.
 */
import { dbxSuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite, type Allowed } from './pocketbase/hooks/suite-test.js'

/** Where svcbase answers otherwise, on purpose (docs/hook-scripts.md). */
const ALLOWED: Record<string, Allowed> = {
  'txApp execute rolled back with its transaction': {
    status: 400,
    why: 'a queued save fails the handler with the record service\'s answer ("Failed to update record." and the field errors); PocketBase wraps it in the generic message',
  },
}

describeRecordedSuite(
  '$dbx, findAllRecords and $app.db() in *.pb.js files, as PocketBase',
  dbxSuite,
  { allowed: ALLOWED },
)
