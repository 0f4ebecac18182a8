/**
 * The members of PocketBase's JSVM that real apps use most (reference/pocketbase-jsvm.md §7) and
 * the other suites do not exercise: the record request and model hooks, the after-success hooks,
 * `$app.logger()` (its key-value attributes as the log's data), collection properties,
 * `$apis.requireAuth()`, `findRecordsByIds`, `importCollections` and `InternalServerError`. The
 * same `ranking*.pb.js` files ran on PocketBase 0.40.4 (`test/pocketbase/hooks/ranking.json`,
 * recorded by `test/pocketbase/hooks/record.ts ranking`) and here answer alike.
 */
import { rankingSuite } from './pocketbase/hooks/cases-ranking.js'
import { describeRecordedSuite } from './pocketbase/hooks/suite-test.js'

describeRecordedSuite(
  'the JSVM members real apps use most, in *.pb.js files, as PocketBase',
  rankingSuite,
)
