/**
 * PocketBase's `Collection`, `FieldsList`, `Field` and the typed field classes (`TextField`, …)
 * for scripts (`pb_migrations` files, and hook files once registered there): plain objects in
 * PocketBase's JSON shape (flat field options, auth options at the top level), changed in
 * place by the script and handed to the collection service (`app.collections`) as that JSON
 * when saved. Nothing here touches the database.
 */
import { collectionToJSON } from '../../../core/collections/codec.js'
import { blankCollection, crc32, defaultFieldId } from '../../../core/collections/defaults.js'
import type { Collection } from '../../../core/collections/model.js'
import { FIELD_CLASSES, fieldsList, jsonCopy, newField, PbField, PbFieldsList } from './field.js'

export { FIELD_CLASSES, fieldsList, newField, PbField, PbFieldsList } from './field.js'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

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

  /** PocketBase's `baseFilesPath()`: the storage folder of its records' files, its id. */
  baseFilesPath(): string {
    return String(this.id)
  }

  /**
   * PocketBase's `integrityChecks(enable)`: accepted; svcbase's collection service always checks
   * references on delete, so turning the checks off has no effect on a save.
   */
  integrityChecks(_enable: unknown): void {}

  /** PocketBase's `postScan()`: the options are already the collection's own keys; nothing to do. */
  postScan(): void {
    return undefined
  }

  /**
   * PocketBase's `dbExport(app)`: the row the collection is stored as, the type's own options
   * (auth settings, a view's query) gathered under `options` (a type with none, base, has
   * PocketBase's raw `"{}"` there).
   */
  dbExport(_app?: unknown): Json {
    const out: Json = {}
    const options: Json = {}
    for (const [k, v] of Object.entries(jsonCopy(this.toJSON())))
      if (ROW_KEYS.has(k)) out[k] = v
      else options[k] = v
    out.options = Object.keys(options).length > 0 ? options : '{}'
    return out
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

/** The keys of a collection's row (`dbExport`); the others are its type's options. */
const ROW_KEYS = new Set([
  ...['id', 'type', 'name', 'system', 'fields', 'indexes', 'created', 'updated'],
  ...['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'],
])

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

/**
 * The globals of this module for a script's context: `Collection`, `Field` (a field without an
 * id gets PocketBase's, as `new Field` does), `FieldsList`, the typed field classes (no id until
 * added to a list, as PocketBase's) and `unmarshal`.
 */
export function collectionGlobals(): Record<string, unknown> {
  const out: Record<string, unknown> = {
    Collection: function Collection(data?: unknown) {
      return newCollection(data)
    },
    Field: function Field(data?: unknown) {
      const f = newField(data)
      if (f.getId() === '') f.setId(defaultFieldId(f.type(), f.getName()))
      return f
    },
    FieldsList: function FieldsList(items?: unknown) {
      return fieldsList(items)
    },
    unmarshal: (data: unknown, target: unknown) => unmarshalInto(data, target),
  }
  for (const [cls, type] of Object.entries(FIELD_CLASSES))
    out[cls] = function TypedField(data?: unknown) {
      return newField(data, type)
    }
  return out
}
