/**
 * PocketBase's `$apis.enrichRecord(e, record, ...defaultExpands)` and `enrichRecords(e, records,
 * ...defaultExpands)` in a script route: the records become what the records API would answer
 * the route's requester — relations expanded per the request's `?expand=` and the default
 * expands (each level under its viewRule), an auth record's email shown to itself and its
 * managers, `onRecordEnrich` run — so `e.json(200, record)` sends that. svcbase's expand reads
 * are asynchronous: the handler run stops at the call and runs again with the answer (the replay
 * of awaited calls, `invocation.ts`), as for `$http.send`.
 */
import type { App } from '../../../core/app.js'
import { messages } from '../../../core/errors.js'
import { presentRecords } from '../../../core/records/present.js'
import { routeEventOfFacade } from './auth-response.js'
import { awaitOnce, currentApp } from './invocation.js'
import { asPbRecord, type PbRecord } from './record.js'

/** The records of the call, or a clear error naming it. */
function recordsArg(name: string, value: unknown, many: boolean): PbRecord[] {
  const list = many ? (Array.isArray(value) ? (value as unknown[]) : null) : [value]
  const out = list?.map(asPbRecord)
  if (!out || out.some((r) => r === null))
    throw new Error(
      messages.pbBadArgument({ name, expected: many ? 'an array of records' : 'a record' }),
    )
  return out as PbRecord[]
}

function enrich(name: string, ev: unknown, records: PbRecord[], expands: unknown[]): void {
  const e = routeEventOfFacade(ev)
  if (!e) throw new Error(messages.pbBadArgument({ name, expected: "a script route's event e" }))
  if (records.length === 0) return
  const app: App = currentApp() ?? e.app
  const asked = typeof e.requestInfo.query.expand === 'string' ? e.requestInfo.query.expand : ''
  const expand = [asked, ...expands.map(String)].filter((x) => x.trim() !== '').join(',')
  const info = { ...e.requestInfo, query: { ...e.requestInfo.query, expand } }
  const key = JSON.stringify([
    expand,
    info.auth?.record.id ?? '',
    records.map((r) => [r.svcCollection.id, r.svcData]),
  ])
  const presented = awaitOnce(name, key, async () => {
    const out: Record<string, unknown>[] = []
    // Grouped by collection in one pass (the slots of each group kept), in the records' order.
    const groups = new Map<PbRecord['svcCollection'], number[]>()
    records.forEach((r, i) => {
      const slots = groups.get(r.svcCollection)
      if (slots) slots.push(i)
      else groups.set(r.svcCollection, [i])
    })
    for (const [c, slots] of groups) {
      const data = slots.map((i) => structuredClone(records[i]!.svcData))
      const shown = await presentRecords(app, c, data, info)
      slots.forEach((slot, j) => (out[slot] = shown[j]!))
    }
    return out
  }) as Record<string, unknown>[]
  records.forEach((r, i) => r.svcPresent(presented[i]!))
}

/** `$apis.enrichRecord(e, record, ...defaultExpands)`. */
export function enrichRecordOf(ev: unknown, rec: unknown, ...expands: unknown[]): void {
  const name = '$apis.enrichRecord'
  enrich(name, ev, recordsArg(name, rec, false), expands)
}

/** `$apis.enrichRecords(e, records, ...defaultExpands)`. */
export function enrichRecordsOf(ev: unknown, recs: unknown, ...expands: unknown[]): void {
  const name = '$apis.enrichRecords'
  enrich(name, ev, recordsArg(name, recs, true), expands)
}
