/**
 * PocketBase's `Collection`, `FieldsList`, `Field` and the typed field classes (`TextField`, …)
 * for scripts (`pb_migrations` files, and hook files once registered there): plain objects in
 * PocketBase's JSON shape (flat field options, auth options at the top level), changed in
 * place by the script and handed to the collection service (`app.collections`) as that JSON
 * when saved. Nothing here touches the database.
 */
import { collectionToJSON, fieldToFlat } from '../../../core/collections/codec.js'
import {
  blankCollection,
  crc32,
  defaultFieldId,
  makeField,
} from '../../../core/collections/defaults.js'
import type { Collection } from '../../../core/collections/model.js'
import { messages } from '../../../core/errors.js'
import { getFieldType } from '../../../core/fields/registry.js'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A JSON copy (what PocketBase's JSON decoding of a script value sees). */
const jsonCopy = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T

/** Field types whose `maxSelect` makes them multiple. */
const MULTIPLE = new Set(['select', 'relation', 'file'])

/** The field classes and the type each one makes. */
export const FIELD_CLASSES = {
  TextField: 'text',
  NumberField: 'number',
  BoolField: 'bool',
  EmailField: 'email',
  URLField: 'url',
  EditorField: 'editor',
  DateField: 'date',
  AutodateField: 'autodate',
  SelectField: 'select',
  RelationField: 'relation',
  FileField: 'file',
  JSONField: 'json',
  PasswordField: 'password',
  GeoPointField: 'geoPoint',
} as const

/** One field: its options as own properties; its type behind `type()`, as PocketBase's. */
export class PbField {
  [option: string]: unknown

  constructor(type: string, data: Json) {
    // Every option of the type with its default first, as PocketBase's field structs have.
    const options = getFieldType(type)?.defaultOptions() ?? {}
    const defaults = fieldToFlat(makeField({ name: '', type, options }))
    for (const [k, v] of Object.entries({ ...jsonCopy(defaults), id: '', ...jsonCopy(data) }))
      if (k !== 'type' && k !== '__proto__') this[k] = v
    if (typeof this.id !== 'string') this.id = ''
    if (typeof this.name !== 'string') this.name = ''
    Object.defineProperty(this, 'svcType', { value: type, enumerable: false })
  }

  type(): string {
    return (this as unknown as { svcType: string }).svcType
  }

  getId(): string {
    return String(this.id)
  }

  setId(id: string): void {
    this.id = String(id)
  }

  getName(): string {
    return String(this.name)
  }

  setName(name: string): void {
    this.name = String(name)
  }

  getSystem(): boolean {
    return this.system === true
  }

  setSystem(v: boolean): void {
    this.system = v === true
  }

  getHidden(): boolean {
    return this.hidden === true
  }

  setHidden(v: boolean): void {
    this.hidden = v === true
  }

  isMultiple(): boolean {
    return MULTIPLE.has(this.type()) && Number(this.maxSelect) > 1
  }

  toJSON(): Json {
    const out: Json = {}
    for (const [k, v] of Object.entries(this)) out[k] = v
    out.type = this.type()
    return out
  }
}

/** `new Field({type, …})`: the field of that type; a field without an id gets PocketBase's. */
export function newField(data: unknown, fixedType?: string): PbField {
  if (data instanceof PbField) return data
  const obj = isObject(data) ? data : {}
  const type = fixedType ?? (typeof obj.type === 'string' ? obj.type : '')
  if (type === '')
    throw new Error(messages.pbBadArgument({ name: 'new Field', expected: 'a field with a type' }))
  return new PbField(type, obj)
}

/** A field object a script passed (a field, or its JSON), named in errors as `name`. */
function fieldArg(f: unknown, name: string): PbField {
  if (f instanceof PbField) return f
  if (isObject(f)) return newField(f)
  throw new Error(messages.pbBadArgument({ name, expected: 'a field' }))
}

/** `collection.fields`: an array of fields with PocketBase's `FieldsList` methods. */
export class PbFieldsList extends Array<PbField> {
  static override get [Symbol.species](): ArrayConstructor {
    return Array
  }

  /** Gives `f` PocketBase's id for a field without one: `<type><crc32(name)>`, unique here. */
  private withId(f: PbField): PbField {
    if (f.getId() !== '') return f
    const base = defaultFieldId(f.type(), f.getName())
    let id = base
    for (let i = 2; this.some((o) => o !== f && o.getId() === id) && i < 1000; i++) id = base + i
    f.setId(id)
    return f
  }

  /** The index of the field `f` replaces: the same id, or (without an id) the same name. */
  private indexOf2(f: PbField): number {
    if (f.getId() !== '') return this.findIndex((o) => o.getId() === f.getId())
    return this.findIndex((o) => o.getName() === f.getName())
  }

  add(...fields: unknown[]): void {
    for (const raw of fields) {
      const f = fieldArg(raw, 'fields.add')
      const i = this.indexOf2(f)
      if (i >= 0) {
        if (f.getId() === '') f.setId(this[i]!.getId())
        this[i] = f
      } else this.push(this.withId(f))
    }
  }

  addAt(pos: number, ...fields: unknown[]): void {
    let at = Math.max(0, Math.trunc(Number(pos) || 0))
    for (const raw of fields) {
      const f = fieldArg(raw, 'fields.addAt')
      const i = this.indexOf2(f)
      if (i >= 0) {
        if (f.getId() === '') f.setId(this[i]!.getId())
        this.splice(i, 1)
      }
      this.splice(Math.min(at, this.length), 0, this.withId(f))
      at++
    }
  }

  removeById(id: string): void {
    const i = this.findIndex((f) => f.getId() === String(id))
    if (i >= 0) this.splice(i, 1)
  }

  removeByName(name: string): void {
    const i = this.findIndex((f) => f.getName() === String(name))
    if (i >= 0) this.splice(i, 1)
  }

  getById(id: string): PbField | null {
    return this.find((f) => f.getId() === String(id)) ?? null
  }

  getByName(name: string): PbField | null {
    return this.find((f) => f.getName() === String(name)) ?? null
  }

  fieldNames(): string[] {
    return this.map((f) => f.getName())
  }

  asMap(): Record<string, PbField> {
    return Object.fromEntries(this.map((f) => [f.getName(), f]))
  }

  clone(): PbFieldsList {
    return fieldsList(this.map((f) => f.toJSON()))
  }

  addMarshaledJSON(json: string): void {
    const parsed = JSON.parse(String(json)) as unknown
    this.add(...(Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]))
  }

  addMarshaledJSONAt(pos: number, json: string): void {
    const parsed = JSON.parse(String(json)) as unknown
    this.addAt(pos, ...(Array.isArray(parsed) ? (parsed as unknown[]) : [parsed]))
  }

  marshalJSON(): string {
    return JSON.stringify(this)
  }

  string(): string {
    return JSON.stringify(this)
  }
}

/** A fields list of `items` (field JSON or fields), each with an id. */
export function fieldsList(items: unknown): PbFieldsList {
  const list = new PbFieldsList()
  if (Array.isArray(items)) list.add(...(items as unknown[]))
  return list
}

/** The keys of the service's JSON that are not PocketBase's collection shape. */
const NOT_POCKETBASE = new Set(['schema', 'authOptions', 'database'])

/** One collection: its JSON's keys as own properties, `fields` a {@link PbFieldsList}. */
export class PbCollection {
  [key: string]: unknown
  declare fields: PbFieldsList

  constructor(data: Json) {
    this.svcAssign(data)
  }

  /** Sets every key of `data` (PocketBase's JSON decoding on top: `fields` replace the list). */
  svcAssign(data: Json): void {
    for (const [k, v] of Object.entries(jsonCopy(data))) {
      if (k === '__proto__' || NOT_POCKETBASE.has(k)) continue
      if (k === 'fields') this.fields = fieldsList(v)
      else this[k] = v
    }
    if (!(this.fields instanceof PbFieldsList)) this.fields = fieldsList([])
  }

  isBase(): boolean {
    return this.type === 'base'
  }

  isAuth(): boolean {
    return this.type === 'auth'
  }

  isView(): boolean {
    return this.type === 'view'
  }

  tableName(): string {
    return String(this.name)
  }

  private indexList(): string[] {
    if (!Array.isArray(this.indexes)) this.indexes = []
    return this.indexes as string[]
  }

  getIndex(name: string): string {
    const re = new RegExp(
      `INDEX\\s+(IF\\s+NOT\\s+EXISTS\\s+)?[\`"'\\[]?${escapeRe(name)}[\`"'\\]]?\\s`,
      'i',
    )
    return this.indexList().find((s) => re.test(s)) ?? ''
  }

  addIndex(name: string, unique: boolean, columns: string, where = ''): void {
    this.removeIndex(name)
    const text =
      `CREATE ${unique ? 'UNIQUE ' : ''}INDEX \`${name}\` ON \`${String(this.name)}\` (${columns})` +
      (where ? ` WHERE ${where}` : '')
    this.indexList().push(text)
  }

  removeIndex(name: string): void {
    const found = this.getIndex(name)
    if (found !== '') this.indexes = this.indexList().filter((s) => s !== found)
  }

  marshalJSON(): string {
    return JSON.stringify(this)
  }

  unmarshalJSON(json: string): void {
    this.svcAssign(JSON.parse(String(json)) as Json)
  }

  string(): string {
    return JSON.stringify(this)
  }

  toJSON(): Json {
    const out: Json = {}
    for (const [k, v] of Object.entries(this)) out[k] = v
    return out
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/** A stored collection as a script sees it (PocketBase's JSON). */
export function pbCollectionOf(c: Collection): PbCollection {
  return new PbCollection(collectionToJSON(c))
}

/** The JSON the collection service takes for `c`: PocketBase's shape, dates left to it. */
export function collectionInput(c: PbCollection): Json {
  const { created: _c, updated: _u, ...rest } = JSON.parse(JSON.stringify(c)) as Json
  return rest
}

/** A new auth collection's defaults as JSON: its system fields (no autodates), auth options. */
export function authCollectionDefaults(): Json {
  const json = collectionToJSON(blankCollection('auth'))
  const fields = (json.fields as { type: string }[]).filter((f) => f.type !== 'autodate')
  const { id: _i, name: _n, created: _c, updated: _u, schema: _s, authOptions: _a, ...rest } = json
  return { ...rest, fields }
}

/**
 * `new Collection({...})`: the JSON as given, `type` defaulting to base and a missing id
 * PocketBase's `pbc_<crc32(type + name)>`; an auth collection gets its system fields from
 * `authDefaults` (the service's own, as JSON) unless the JSON names them.
 */
export function newCollection(
  data: unknown,
  authDefaults: () => Json = authCollectionDefaults,
): PbCollection {
  const obj = isObject(data) ? jsonCopy(data) : {}
  const type = typeof obj.type === 'string' && obj.type !== '' ? obj.type : 'base'
  const name = typeof obj.name === 'string' ? obj.name : ''
  const base: Json = {
    id: `pbc_${crc32(type + name)}`,
    listRule: null,
    viewRule: null,
    createRule: null,
    updateRule: null,
    deleteRule: null,
    name,
    type,
    fields: [],
    indexes: [],
    created: '',
    updated: '',
    system: false,
  }
  if (type === 'auth') {
    const defaults = authDefaults()
    Object.assign(base, defaults)
    const given = Array.isArray(obj.fields) ? (obj.fields as unknown[]) : []
    const names = new Set(given.map((f) => (isObject(f) ? f.name : undefined)))
    // As PocketBase: the primary key first, the fields given, then the other system fields.
    const system = (defaults.fields as Json[]).filter((f) => !names.has(f.name))
    const key = system.filter((f) => f.name === 'id')
    obj.fields = [...key, ...given, ...system.filter((f) => f.name !== 'id')]
  }
  if (typeof obj.id !== 'string' || obj.id === '') delete obj.id
  return new PbCollection({ ...base, ...obj, type })
}

/** `unmarshal(data, target)`: `data`'s keys decoded onto a collection, field or object. */
export function unmarshalInto(data: unknown, target: unknown): void {
  if (!isObject(data)) return
  if (target instanceof PbCollection) return target.svcAssign(data)
  if (target instanceof PbField) {
    for (const [k, v] of Object.entries(jsonCopy(data))) if (k !== 'type') target[k] = v
    return
  }
  if (typeof target === 'object' && target !== null) Object.assign(target, jsonCopy(data))
}
