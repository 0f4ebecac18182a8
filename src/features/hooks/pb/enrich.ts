/**
 * `onRecordEnrich` as a `*.pb.js` handler receives it (PocketBase's `core.RecordEnrichEvent`):
 * `e.app`, `e.requestInfo` (`auth`, `context`, `method`, `query`, `headers`, `body`) and
 * `e.record`, the record as it will be answered: `hide(…fields)` leaves fields out, `unhide`
 * puts hidden ones back, `set` changes a value (a key the collection lacks only after
 * `withCustomData(true)`, as PocketBase exports custom data then only), `get` reads any stored
 * value (a hidden one too).
 */
import type { App } from '../../../core/app.js'
import type { Collection } from '../../../core/collections/model.js'
import type { RecordEnrichEvent } from '../../../core/hooks.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../../../core/request-info.js'
import { appFacade } from './app-facade.js'
import { enqueue } from './invocation.js'
import { pbRecord, PbRecord } from './record.js'
import { fieldNames as names } from './record-more.js'
import { strict } from './unsupported.js'

/** The keys an answered record of `c` may carry besides custom data. */
const knownKeys = (c: Collection): Set<string> =>
  new Set(['collectionId', 'collectionName', 'expand', ...c.fields.map((f) => f.name)])

/**
 * The custom data of an answered record, kept across the handlers of its chain (each gets a
 * record of its own): whether it is exported, and the values set while it is not.
 */
interface Custom {
  on: boolean
  held: Map<string, unknown>
}
const customs = new WeakMap<object, Custom>()

/** A record about to be answered (see the file's comment). */
export class EnrichRecord extends PbRecord {
  private readonly custom: Custom

  constructor(
    private readonly c: Collection,
    private readonly out: Record<string, unknown>,
    private readonly stored: RecordData,
    /** A superuser's answer: every field stays (PocketBase unhides them after the hook). */
    private readonly superuser: boolean,
  ) {
    super(
      c,
      () => out,
      false,
      () => stored,
    )
    let custom = customs.get(out)
    if (!custom) customs.set(out, (custom = { on: false, held: new Map() }))
    this.custom = custom
  }

  override get(field: string): unknown {
    if (field in this.out) return this.out[field] ?? null
    if (this.custom.held.has(field)) return this.custom.held.get(field) ?? null
    return this.stored[field] ?? null
  }

  override set(field: string, value: unknown): void {
    if (field === '__proto__') return
    // Custom data is answered only while `withCustomData(true)` holds (PocketBase decides at export).
    if (this.custom.on || knownKeys(this.c).has(field)) this.out[field] = value
    else this.custom.held.set(field, value)
  }

  override hide(...fields: unknown[]): this {
    if (!this.superuser) for (const f of names(fields)) delete this.out[f]
    return this
  }

  override unhide(...fields: unknown[]): this {
    for (const f of names(fields)) if (f in this.stored) this.out[f] = this.stored[f]
    return this
  }

  override ignoreEmailVisibility(on: unknown): this {
    if (on && this.c.type === 'auth' && 'email' in this.stored) this.out.email = this.stored.email
    return this
  }

  override withCustomData(on: unknown): this {
    const known = knownKeys(this.c)
    this.custom.on = Boolean(on)
    if (this.custom.on) {
      for (const [k, v] of this.custom.held) this.out[k] = v
      this.custom.held.clear()
    } else
      for (const k of Object.keys(this.out))
        if (!known.has(k)) {
          this.custom.held.set(k, this.out[k])
          delete this.out[k]
        }
    return this
  }

  override publicExport(): Record<string, unknown> {
    return { ...this.out }
  }

  override toJSON(): Record<string, unknown> {
    return this.publicExport()
  }
}

/** `e.requestInfo` of an enrich event (a value, as PocketBase's, not a function). */
function requestInfoOf(info: RequestInfo): object {
  return strict('e.requestInfo', {
    auth: info.auth ? pbRecord(info.auth.collection, info.auth.record) : null,
    context: info.context,
    method: info.method,
    query: info.query,
    headers: info.headers,
    body: info.body,
  })
}

/** The event of `onRecordEnrich`. */
export function recordEnrichEventOf(e: RecordEnrichEvent): object {
  return strict('e', {
    app: appFacade((): App => e.app),
    collection: e.collection,
    record: strict(
      'record',
      new EnrichRecord(e.collection, e.record, e.stored, isSuperuser(e.requestInfo)),
    ),
    requestInfo: requestInfoOf(e.requestInfo),
    next: (): void => {
      enqueue('e.next', () => e.next())
    },
  })
}
