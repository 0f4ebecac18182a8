/**
 * The core of PocketBase's `core.Record` as a `*.pb.js` script sees it (the rest of its members
 * are in `record-more.ts`, the class scripts get): `get`/`set`, the typed getters, `id`,
 * `collection()`, `isNew()`, … over a plain svcbase record. A record of an event reads and writes
 * the event's own data (so `e.record.set(…)` before `e.next()` changes what is saved); a record
 * from `$app.find…` or `new Record(…)` holds its own. Changed fields are tracked, so `$app.save`
 * of a stored record sends only them.
 */
import { createHash } from 'node:crypto'
import type { Collection } from '../../../core/collections/model.js'
import { verifyPassword } from '../../../core/fields/password.js'
import type { RecordData } from '../../../core/request-info.js'
import { awaitOnce } from './invocation.js'

export const text = (v: unknown): string => {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return JSON.stringify(v)
}

export const number = (v: unknown): number => {
  if (typeof v === 'boolean') return v ? 1 : 0
  const n = typeof v === 'number' ? v : Number(text(v).trim() || 0)
  return Number.isFinite(n) ? n : 0
}

export const bool = (v: unknown): boolean => {
  if (typeof v === 'boolean') return v
  if (typeof v === 'number') return v !== 0
  return ['1', 't', 'true'].includes(text(v).trim().toLowerCase())
}

/** The core of the script-facing record (see `record-more.ts`'s `PbRecord`). */
export class RecordBase {
  /** Fields set since the record was loaded or last saved. */
  readonly changed = new Set<string>()
  /** The enriched answer (`svcPresent`) and the fields set since. */
  protected presented: { answer: Record<string, unknown>; since: Set<string> } | null = null

  constructor(
    protected readonly coll: Collection,
    /** The live data: an event's record, or the record's own object. */
    protected readonly source: () => RecordData,
    protected newRecord: boolean,
    /** The values as stored before this change (an update's original), when known. */
    protected readonly originalOf: () => RecordData | undefined = () => undefined,
  ) {}

  /** The svcbase collection (internal). */
  get svcCollection(): Collection {
    return this.coll
  }

  /** The plain values (internal). */
  get svcData(): RecordData {
    return this.source()
  }

  get id(): string {
    return text(this.source().id)
  }

  set id(v: string) {
    this.set('id', v)
  }

  collection(): Collection {
    return this.coll
  }

  tableName(): string {
    return this.coll.name
  }

  isNew(): boolean {
    return this.newRecord
  }

  /** Marks the record stored (internal: `$app.save` queued its create). */
  markStored(): void {
    this.newRecord = false
    this.changed.clear()
  }

  get(field: string): unknown {
    return this.source()[field] ?? null
  }

  getRaw(field: string): unknown {
    return this.get(field)
  }

  set(field: string, value: unknown): void {
    // NB: a field named `__proto__` would replace the data object's prototype.
    if (field === '__proto__') return
    this.source()[field] = value
    this.changed.add(field)
    this.presented?.since.add(field)
  }

  /**
   * What the records API would answer for this record (internal: `$apis.enrichRecord`): its
   * JSON from now on, with the fields set later overlaid.
   */
  svcPresent(answer: Record<string, unknown>): void {
    this.presented = { answer, since: new Set() }
  }

  /** Sets every key of `data` (PocketBase's `load`). */
  load(data: Record<string, unknown>): void {
    for (const [k, v] of Object.entries(data ?? {})) this.set(k, v)
  }

  getString(field: string): string {
    return text(this.get(field))
  }

  getInt(field: string): number {
    return Math.trunc(number(this.get(field)))
  }

  getFloat(field: string): number {
    return number(this.get(field))
  }

  getBool(field: string): boolean {
    return bool(this.get(field))
  }

  getStringSlice(field: string): string[] {
    const v = this.get(field)
    if (Array.isArray(v)) return v.map(text)
    const s = text(v)
    return s === '' ? [] : [s]
  }

  email(): string {
    return this.getString('email')
  }

  setEmail(email: string): void {
    this.set('email', email)
  }

  verified(): boolean {
    return this.getBool('verified')
  }

  setVerified(verified: boolean): void {
    this.set('verified', verified)
  }

  emailVisibility(): boolean {
    return this.getBool('emailVisibility')
  }

  setEmailVisibility(visible: boolean): void {
    this.set('emailVisibility', visible)
  }

  setPassword(password: string): void {
    this.set('password', password)
  }

  /**
   * PocketBase's `record.validatePassword(plain)`: true when `plain` is the record's password.
   * A password set in this script is compared as set; a stored one by its bcrypt hash, on the
   * worker pool: the handler run stops here and runs again with the answer (as `$http.send`,
   * see invocation.ts), so the event loop never waits for bcrypt.
   */
  validatePassword(password: unknown): boolean {
    if (typeof password !== 'string' || password === '' || this.coll.type !== 'auth') return false
    const stored = this.source().password
    if (this.changed.has('password')) return text(stored) === password
    if (typeof stored !== 'string' || stored === '') return false
    const key = createHash('sha256').update(`${stored}\0${password}`).digest('hex')
    return (
      awaitOnce('record.validatePassword', key, () => verifyPassword(password, stored)) === true
    )
  }
}
