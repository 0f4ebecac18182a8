/**
 * `PbRecord`, the record a `*.pb.js` script holds: the core of `record-base.ts` and the rest of
 * PocketBase 0.40.4's `core.Record` — the visibility flags its JSON honours (`hide`, `unhide`,
 * `withCustomData`, `ignoreEmailVisibility`, as PocketBase's `PublicExport`/`MarshalJSON`),
 * `clone`/`fresh`/`postScan`, custom and fields data, the expand members, the typed getters of
 * dates and points, modifiers, JSON, the token key and the tokens it signs (`record-tokens.ts`),
 * and its unsaved files. Each answers as PocketBase's does (`test/pocketbase/hooks/record.json`).
 */
import type { Collection, Field } from '../../../core/collections/model.js'
import { fieldToFlat } from '../../../core/collections/codec.js'
import { autogenerateText } from '../../../core/fields/text.js'
import { getFieldType } from '../../../core/fields/registry.js'
import { parseKey } from '../../../core/records/input.js'
import { serializeRecord } from '../../../core/records/serialize.js'
import type { RecordData } from '../../../core/request-info.js'
import { randomString } from '../../../tools/ids.js'
import { newField, type PbField } from './field.js'
import { RecordBase } from './record-base.js'
import { scriptToken } from './record-tokens.js'
import { geoPointOf, PbDateTime } from './record-values.js'
import { strict } from './unsupported.js'

/** Keys of a record's data that are neither fields nor custom data. */
const SPECIAL = new Set(['expand', 'collectionId', 'collectionName'])

/** The names `hide`/`unhide` take: strings, or arrays of them. */
export const fieldNames = (fields: unknown[]): string[] => fields.flat().map(String)

/** What PocketBase's export flags say (reset by `fresh()`). */
interface Flags {
  hidden: Set<string>
  unhidden: Set<string>
  custom: boolean
  ignoreEmail: boolean
}

const defaultFlags = (): Flags => ({
  hidden: new Set(),
  unhidden: new Set(),
  custom: false,
  ignoreEmail: false,
})

/** A file `$filesystem` made, set on the record and not saved yet. */
const isScriptFile = (v: unknown): v is object =>
  typeof v === 'object' && v !== null && 'originalName' in v && 'reader' in v

/** JSON text given as a string or as PocketBase's byte array. */
function jsonText(data: unknown, name: string): string {
  if (typeof data === 'string') return data
  if (Array.isArray(data) && data.every((n) => typeof n === 'number'))
    return Buffer.from(data.map((n) => n & 0xff)).toString('utf8')
  throw new Error(`record.${name}: expected JSON text or a byte array`)
}

function parseJson(text: string, name: string): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch (err) {
    throw new Error(`record.${name}: ${(err as Error).message}`)
  }
}

/** The script-facing record; build one with {@link pbRecord}. */
export class PbRecord extends RecordBase {
  private flags: Flags = defaultFlags()
  private expandMap: Record<string, unknown> = {}
  /** The values as of the last `postScan()`, the record's original from then on. */
  private scanned: RecordData | null = null

  private field(name: string): Field | undefined {
    return this.coll.fields.find((f) => f.name === name)
  }

  /** The record as it was loaded (an update's stored values), as a record of its own. */
  original(): PbRecord {
    return pbRecord(this.coll, { ...(this.scanned ?? this.originalOf() ?? this.source()) })
  }

  /** PocketBase's `postScan()`: the current values become the record's original. */
  postScan(): void {
    this.scanned = { ...this.source() }
    this.markStored()
  }

  /** A copy with its custom data, expand and flags (PocketBase's `clone()`). */
  clone(): PbRecord {
    const copy = pbRecord(this.coll, { ...this.source() }, this.newRecord, this.originalOf)
    copy.flags = {
      ...this.flags,
      hidden: new Set(this.flags.hidden),
      unhidden: new Set(this.flags.unhidden),
    }
    copy.expandMap = { ...this.expandMap }
    return copy
  }

  /** A copy of the fields' values only, flags at their defaults (PocketBase's `fresh()`). */
  fresh(): PbRecord {
    return pbRecord(this.coll, this.fieldsData(), this.newRecord, this.originalOf)
  }

  fieldsData(): Record<string, unknown> {
    const data = this.source()
    return Object.fromEntries(this.coll.fields.map((f) => [f.name, data[f.name] ?? null]))
  }

  customData(): Record<string, unknown> {
    const known = new Set(this.coll.fields.map((f) => f.name))
    return Object.fromEntries(
      Object.entries(this.source()).filter(
        ([k]) => !known.has(k) && !SPECIAL.has(k) && !k.startsWith('@pbInternal'),
      ),
    )
  }

  /** The values a save writes (PocketBase's `dbExport(app)`): the fields' values. */
  dbExport(): Record<string, unknown> {
    return this.fieldsData()
  }

  baseFilesPath(): string {
    return `${this.coll.id}/${this.id}`
  }

  hookTags(): string[] {
    return [this.coll.name, this.coll.id]
  }

  isSuperuser(): boolean {
    return this.coll.name === '_superusers'
  }

  hide(...fields: unknown[]): this {
    for (const f of fieldNames(fields)) {
      this.flags.hidden.add(f)
      this.flags.unhidden.delete(f)
    }
    return this
  }

  unhide(...fields: unknown[]): this {
    for (const f of fieldNames(fields)) {
      this.flags.unhidden.add(f)
      this.flags.hidden.delete(f)
    }
    return this
  }

  withCustomData(state: unknown): this {
    this.flags.custom = Boolean(state)
    return this
  }

  ignoreEmailVisibility(state: unknown): this {
    this.flags.ignoreEmail = Boolean(state)
    return this
  }

  /** Accepted: `$app.save` of a stored record sends only its changed fields anyway. */
  ignoreUnchangedFields(_state: unknown): this {
    return this
  }

  expand(): Record<string, unknown> {
    return { ...this.expandMap }
  }

  setExpand(expand: unknown): void {
    this.expandMap = expand && typeof expand === 'object' ? { ...expand } : {}
  }

  /** Merges `expand` in: lists are joined (a record of the same id once), others replaced. */
  mergeExpand(expand: unknown): void {
    if (!expand || typeof expand !== 'object') return
    for (const [k, v] of Object.entries(expand) as [string, unknown][]) {
      const old = this.expandMap[k]
      if (!Array.isArray(old) && !Array.isArray(v)) {
        this.expandMap[k] = v
        continue
      }
      const list: unknown[] = [old, v].flat()
      const seen = new Set<string>()
      this.expandMap[k] = list.filter((r) => {
        const id = r instanceof PbRecord ? r.id : null
        if (r === undefined || r === null || (id !== null && seen.has(id))) return false
        if (id !== null) seen.add(id)
        return true
      })
    }
  }

  expandedOne(field: string): PbRecord | null {
    const v = this.expandMap[field]
    const one: unknown = Array.isArray(v) ? v[0] : v
    return one instanceof PbRecord ? one : null
  }

  expandedAll(field: string): PbRecord[] {
    const v = this.expandMap[field]
    const list: unknown[] = Array.isArray(v) ? v : [v]
    return list.filter((r): r is PbRecord => r instanceof PbRecord)
  }

  getInt64(field: string): number {
    return this.getInt(field)
  }

  getDateTime(field: string): PbDateTime {
    return PbDateTime.of(this.get(field))
  }

  getGeoPoint(field: string): { lon: number; lat: number } {
    return geoPointOf(this.get(field))
  }

  /** The files of `$filesystem` set on `field` and not saved yet. */
  getUnsavedFiles(field: string): object[] {
    const v = this.source()[field]
    return (Array.isArray(v) ? v : [v]).filter(isScriptFile)
  }

  getUploadedFiles(field: string): object[] {
    return this.getUnsavedFiles(field)
  }

  /** The first file field whose value names `filename`, or null. */
  findFileFieldByFile(filename: unknown): PbField | null {
    const name = String(filename)
    const f = this.coll.fields.find(
      (x) => x.type === 'file' && this.getStringSlice(x.name).includes(name),
    )
    return f ? newField(fieldToFlat(f)) : null
  }

  setRaw(key: string, value: unknown): void {
    this.set(key, value)
  }

  /** Sets `key` (a field's name, or it with a modifier) if the field exists; its field or null. */
  setIfFieldExists(key: string, value: unknown): PbField | null {
    const { name, modifier } = parseKey(String(key))
    const f = this.field(name)
    if (!f) return null
    if (modifier === 'set' || modifier === 'autogenerate') this.set(name, value)
    else this.load(this.replaceModifiers({ [key]: value }))
    return newField(fieldToFlat(f))
  }

  /**
   * `data` with its modifier keys (`n+`, `tags-`, `+tags`) applied to this record's values and
   * removed, shorter keys first (PocketBase's `replaceModifiers`).
   */
  replaceModifiers(data: unknown): Record<string, unknown> {
    const input = data && typeof data === 'object' ? (data as Record<string, unknown>) : {}
    const out: Record<string, unknown> = { ...input }
    const keys = Object.keys(input).sort((a, b) => a.length - b.length)
    for (const key of keys) {
      const { name, modifier } = parseKey(key)
      if (modifier === 'set' || modifier === 'autogenerate') continue
      const f = this.field(name)
      const ft = f && getFieldType(f.type)
      if (!f || !ft?.applyModifier || !(ft.modifiers?.includes(modifier) ?? true)) continue
      const base = name in out ? out[name] : this.get(name)
      out[name] = ft.applyModifier(base, modifier, input[key], f)
      delete out[key]
    }
    return out
  }

  marshalJSON(): string {
    return JSON.stringify(this.publicExport())
  }

  unmarshalJSON(data: unknown): void {
    const v = parseJson(jsonText(data, 'unmarshalJSON'), 'unmarshalJSON')
    if (!v || typeof v !== 'object' || Array.isArray(v))
      throw new Error('record.unmarshalJSON: expected a JSON object')
    this.load(v as Record<string, unknown>)
  }

  /**
   * Decodes the field's JSON (an error when it is not JSON). As in PocketBase, the decoding goes
   * into a copy of a plain script object, so the object passed stays as it was.
   */
  unmarshalJSONField(field: string, _result: unknown): void {
    parseJson(this.getString(field), 'unmarshalJSONField')
  }

  tokenKey(): string {
    return this.getString('tokenKey')
  }

  setTokenKey(key: unknown): void {
    this.set('tokenKey', String(key))
  }

  refreshTokenKey(): void {
    const f = this.field('tokenKey')
    this.set('tokenKey', (f && autogenerateText(f, '')) || randomString(50))
  }

  /** Sets a random 30-character password (and a new token key); returns it. */
  setRandomPassword(): string {
    const password = randomString(30)
    this.set('password', password)
    this.refreshTokenKey()
    return password
  }

  newAuthToken(): string {
    return scriptToken('newAuthToken', this.coll, this.source(), 'auth', { refreshable: true })
  }

  /** `duration` is Go's `time.Duration` (nanoseconds); 0 or less: the collection's. */
  newStaticAuthToken(duration: unknown): string {
    const seconds = Math.floor(Number(duration) / 1e9) || 0
    const extra = { refreshable: false }
    return scriptToken('newStaticAuthToken', this.coll, this.source(), 'auth', extra, seconds)
  }

  newVerificationToken(): string {
    const extra = { email: this.email() }
    return scriptToken('newVerificationToken', this.coll, this.source(), 'verification', extra)
  }

  newPasswordResetToken(): string {
    const extra = { email: this.email() }
    return scriptToken('newPasswordResetToken', this.coll, this.source(), 'passwordReset', extra)
  }

  newEmailChangeToken(newEmail: unknown): string {
    const extra = { email: this.email(), newEmail: String(newEmail) }
    return scriptToken('newEmailChangeToken', this.coll, this.source(), 'emailChange', extra)
  }

  newFileToken(): string {
    return scriptToken('newFileToken', this.coll, this.source(), 'file')
  }

  /**
   * The record as PocketBase exports it (`publicExport`, `marshalJSON`, `e.json`): hidden fields
   * and a non-visible email left out unless unhidden (`unhide`, `ignoreEmailVisibility`), fields
   * hidden by `hide` left out, custom data with `withCustomData(true)`, and the expand; once
   * enriched for a requester (`$apis.enrichRecord`), what that requester is answered.
   */
  publicExport(): Record<string, unknown> {
    const data = this.source()
    const own = serializeRecord(this.coll, data, null, { showEmail: this.flags.ignoreEmail })
    let out = own
    if (this.presented) {
      out = { ...this.presented.answer }
      for (const f of this.presented.since) if (f in own) out[f] = own[f]
    }
    for (const f of this.flags.unhidden) if (this.field(f)) out[f] = data[f] ?? null
    for (const f of this.flags.hidden) delete out[f]
    if (this.flags.custom) Object.assign(out, this.customData())
    if (Object.keys(this.expandMap).length > 0) {
      const shown = (v: unknown): unknown =>
        v instanceof PbRecord ? v.publicExport() : Array.isArray(v) ? v.map(shown) : v
      out.expand = Object.fromEntries(Object.entries(this.expandMap).map(([k, v]) => [k, shown(v)]))
    }
    return out
  }

  toJSON(): Record<string, unknown> {
    return this.publicExport()
  }
}

/**
 * A script-facing record of `collection` (behind a proxy that names any other member as not
 * supported): over an event's data when `source` is a function, else over a copy of `data`.
 */
export function pbRecord(
  collection: Collection,
  data: RecordData | (() => RecordData),
  fresh = false,
  original?: () => RecordData | undefined,
): PbRecord {
  const own = typeof data === 'function' ? null : { ...data }
  const source = typeof data === 'function' ? data : () => own!
  // A record found in the database: its original is the values as found.
  const loaded = own && !fresh ? { ...own } : undefined
  return strict('record', new PbRecord(collection, source, fresh, original ?? (() => loaded)))
}
