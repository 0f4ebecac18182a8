/**
 * PocketBase's `core.Record` as a `*.pb.js` script sees it: `PbRecord` (`record-base.ts` holds
 * its core: `get`/`set`, the typed getters, `id`, `collection()`, `isNew()`, changed fields;
 * `record-more.ts` the rest of PocketBase's members and its JSON), `pbRecord()` to make one and
 * `asPbRecord()` to recognise one.
 */
import { PbRecord } from './record-more.js'

export { PbRecord, pbRecord } from './record-more.js'

/** The `PbRecord` of `rec` if it is one (through its proxy), else null. */
export function asPbRecord(rec: unknown): PbRecord | null {
  return rec instanceof PbRecord ? rec : null
}
