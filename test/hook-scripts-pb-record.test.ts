/**
 * The members of PocketBase's `core.Record` the other suites do not exercise, in a `*.pb.js`
 * file: typed getters, custom data and the visibility flags in `e.json`, clone/fresh, the expand
 * members, modifiers, JSON, the token key, and the tokens a script makes, each then used on the
 * auth and file routes. The same `record-members.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/record.json`, recorded by `test/pocketbase/hooks/record.ts record`)
 * and here answers alike.
 */
import { recordSuite } from './pocketbase/hooks/cases-record.js'
import { describeRecordedSuite } from './pocketbase/hooks/suite-test.js'

describeRecordedSuite('the rest of core.Record in *.pb.js files, as PocketBase', recordSuite)
