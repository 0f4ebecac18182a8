/**
 * PocketBase's `Field`, the typed field classes (`TextField`, …) and `FieldsList` for scripts:
 * plain objects in PocketBase's flat JSON shape, every option of the type present with its
 * default (see `collection.ts`).
 */
import { fieldToFlat } from '../../../core/collections/codec.js'
import { defaultFieldId, makeField } from '../../../core/collections/defaults.js'
import { messages } from '../../../core/errors.js'
import { getFieldType } from '../../../core/fields/registry.js'

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** A JSON copy (what PocketBase's JSON decoding of a script value sees). */
export const jsonCopy = <T>(v: T): T => JSON.parse(JSON.stringify(v ?? null)) as T

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
