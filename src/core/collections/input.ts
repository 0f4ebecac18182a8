/**
 * Reading a CollectionInput (SPEC §2.4 or PocketBase v0.23's shape) onto the collection model,
 * and putting validation errors back at the paths the input used.
 */
import { validationError, type ValidationErrors } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import { fieldToFlat, fieldToSchema } from './codec.js'
import { defaultFieldId, idField, makeField } from './defaults.js'
import { applyAuthOptions } from './input-auth.js'
import { isObject, pickEdited, sameValue, type InputShape } from './input-views.js'
import { FIELD_KEYS } from './stored.js'
import { ruleKeys, type Collection, type Field } from './model.js'

export { sameValue, type InputShape } from './input-views.js'

/** Keys of a field object that are not type options. */
const commonFieldKeys = new Set([...FIELD_KEYS, 'options'])

/**
 * Parses one submitted field (either shape). `existing` is the field it replaces: a stored one
 * (its id is kept) or, when `fresh`, a default of a new collection (the submitted id wins).
 */
function parseField(
  raw: unknown,
  existing: Field | undefined,
  fresh: boolean,
  errors: ValidationErrors,
): Field | null {
  if (!isObject(raw)) {
    errors.field = validationError('validation_invalid_value:object')
    return null
  }
  const name = typeof raw.name === 'string' ? raw.name : ''
  const type = typeof raw.type === 'string' ? raw.type : (existing?.type ?? '')
  const ft = getFieldType(type)
  if (!ft) {
    errors.type = validationError('validation_in_invalid')
    return null
  }
  let options: Record<string, unknown>
  if (isObject(raw.options)) options = { ...raw.options }
  else {
    options = {}
    for (const [k, v] of Object.entries(raw)) if (!commonFieldKeys.has(k)) options[k] = v
  }
  const base = existing && existing.type === type ? existing.options : ft.defaultOptions()
  const bool = (k: string, d: boolean): boolean => (typeof raw[k] === 'boolean' ? raw[k] : d)
  const submittedId = typeof raw.id === 'string' && raw.id !== '' ? raw.id : undefined
  // The flag of `created`/`updated` follows the input (PocketBase v0.23 exports them either
  // way; sent with a new collection they are the user's, not system, as in PocketBase); `id`
  // and the auth fields stay system, other known fields keep their flag.
  let system: boolean
  if (!existing) system = raw.system === true
  else if (type === 'autodate' && (name === 'created' || name === 'updated'))
    system = bool('system', fresh ? false : existing.system)
  else system = existing.system
  const help = typeof raw.help === 'string' ? raw.help : (existing?.help ?? '')
  // The primary key sent is taken as sent over the type's defaults, as PocketBase does (its
  // options are not merged with the stored ones): only the key's own traits are kept.
  if (type === 'text' && existing?.options.primaryKey === true) {
    const sent = { ...ft.defaultOptions(), ...options }
    return makeField({
      id: existing.id,
      name,
      type,
      required: true,
      system: true,
      hidden: bool('hidden', false),
      presentable: bool('presentable', false),
      help,
      options: { ...sent, pattern: sent.pattern || '^[a-z0-9]+$', primaryKey: true },
    })
  }
  return makeField({
    id: existing && !fresh ? existing.id : (submittedId ?? existing?.id),
    name,
    type,
    required: bool('required', existing?.required ?? false),
    unique: bool('unique', existing?.unique ?? false),
    system,
    hidden: bool('hidden', existing?.hidden ?? false),
    presentable: bool('presentable', existing?.presentable ?? false),
    help: type === 'autodate' ? '' : help,
    options: { ...ft.defaultOptions(), ...base, ...options },
  })
}

/** How submitted fields combine with the current ones. */
export type FieldMerge = 'replace' | 'keep-missing'

/** Options of {@link applyCollectionInput}. */
export interface ApplyOptions {
  merge?: FieldMerge
  /** True when `target` is a new collection: its fields are defaults, not stored ones. */
  fresh?: boolean
  /** A left-out primary key goes last, not first (PocketBase's import over a stored collection). */
  pkLast?: boolean
}

/**
 * Applies a CollectionInput (SPEC §2.4, or PocketBase's flat shape) on top of `target`, in
 * place. Type errors in the input land in `errors` keyed like the input. A body may carry both
 * views of one thing (`schema` and `fields`, `authOptions.x` and top-level `x`, `viewQuery`
 * and `options.query`), as every GET returns them: an edit in either applies, and different
 * edits in both are an error, so nothing sent is dropped silently.
 */
export function applyCollectionInput(
  target: Collection,
  input: Record<string, unknown>,
  errors: ValidationErrors,
  opts: ApplyOptions = {},
): InputShape {
  const merge = opts.merge ?? 'replace'
  const fresh = opts.fresh ?? false
  if ('name' in input) {
    if (typeof input.name === 'string') target.name = input.name
    else errors.name = validationError('validation_invalid_value:string')
  }
  if (typeof input.id === 'string' && target.id === '') target.id = input.id
  for (const key of ruleKeys) {
    if (!(key in input)) continue
    const v = input[key]
    if (v === null || typeof v === 'string') target[key] = v
    else errors[key] = validationError('validation_invalid_value:string_or_null')
  }
  if ('indexes' in input) {
    const v = input.indexes
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) target.indexes = v
    else errors.indexes = validationError('validation_invalid_value:strings')
  }
  applyViewQuery(target, input, errors)
  const shape: InputShape = {
    fieldsKey: applyFields(target, input, errors, merge, { fresh, pkLast: opts.pkLast ?? false }),
    authTopLevel: new Set(),
  }
  if (target.authOptions) applyAuthOptions(target.authOptions, input, errors, shape)
  return shape
}

function applyViewQuery(
  target: Collection,
  input: Record<string, unknown>,
  errors: ValidationErrors,
): void {
  const candidates = [
    ['viewQuery', input.viewQuery],
    ['options', isObject(input.options) ? input.options.query : undefined],
  ].filter(([, v]) => v !== undefined) as [string, unknown][]
  if (candidates.length === 0) return
  const parsed = candidates.map(([key, v]) => ({
    key,
    value: typeof v === 'string' ? v : null,
    failed: typeof v !== 'string',
  }))
  let chosen = parsed[0]!
  if (parsed.length === 2) {
    const pick = pickEdited(parsed[0]!, parsed[1]!, (v) => v === (target.viewQuery ?? ''))
    if (pick === 'conflict') {
      errors.viewQuery = validationError('validation_conflicting_values:view_query')
      return
    }
    chosen = parsed[pick === 'a' ? 0 : 1]!
  }
  if (chosen.value !== null) target.viewQuery = chosen.value
  else errors.viewQuery = validationError('validation_invalid_value:string')
}

function applyFields(
  target: Collection,
  input: Record<string, unknown>,
  errors: ValidationErrors,
  merge: FieldMerge,
  how: { fresh: boolean; pkLast: boolean },
): 'schema' | 'fields' {
  const ctx = { ...how, type: target.type }
  const keys = (['schema', 'fields'] as const).filter((k) => input[k] !== undefined)
  if (keys.length === 0) return 'schema'
  const parse = (key: 'schema' | 'fields') => {
    const raw = input[key]
    const errs: ValidationErrors = {}
    if (!Array.isArray(raw)) {
      errs[key] = validationError('validation_invalid_value:fields')
      return { key, value: null, errs, failed: true }
    }
    const value = mergeFields(target.fields, raw, errs, key, merge, ctx)
    return { key, value, errs, failed: Object.keys(errs).length > 0 }
  }
  const parsed = keys.map(parse)
  let chosen = parsed[0]!
  if (parsed.length === 2) {
    // What each view yields when sent back as returned: the baseline an edit differs from.
    const baseline = (toView: (f: Field) => Record<string, unknown>, key: string) =>
      mergeFields(target.fields, target.fields.map(toView), {}, key, merge, ctx)
    const schemaBase = baseline(fieldToSchema, 'schema')
    const flatBase = baseline(fieldToFlat, 'fields')
    const pick = pickEdited(
      parsed[0]!,
      parsed[1]!,
      (v) => sameValue(v, schemaBase),
      (v) => sameValue(v, flatBase),
    )
    if (pick === 'conflict') {
      const conflict = validationError('validation_conflicting_values:schema')
      errors.schema = conflict
      errors.fields = conflict
      return 'fields'
    }
    chosen = parsed[pick === 'a' ? 0 : 1]!
  }
  Object.assign(errors, chosen.errs)
  if (chosen.value) target.fields = chosen.value
  return chosen.key
}

/** The system fields of auth collections besides `id`. */
const authFieldNames = new Set(['password', 'tokenKey', 'email', 'emailVisibility', 'verified'])

/**
 * A new auth collection's field named like one of its system fields but of another type
 * (`{name: "email", type: "text"}`) becomes that system field, at the place and with the id it
 * was sent with, as PocketBase does.
 */
function authFieldClash(
  r: Record<string, unknown>,
  current: Field[],
  fresh: boolean,
  type: Collection['type'],
): Field | undefined {
  if (!fresh || type !== 'auth' || typeof r.name !== 'string' || !authFieldNames.has(r.name))
    return undefined
  const sys = current.find((f) => f.system && f.name === r.name)
  if (!sys || typeof r.type !== 'string' || r.type === sys.type) return undefined
  const id = typeof r.id === 'string' && r.id !== '' ? r.id : defaultFieldId(r.type, r.name)
  return { ...structuredClone(sys), id }
}

function mergeFields(
  current: Field[],
  rawFields: unknown[],
  errors: ValidationErrors,
  key: string,
  merge: FieldMerge,
  { fresh, type, pkLast }: { fresh: boolean; type: Collection['type']; pkLast: boolean },
): Field[] {
  const out: Field[] = []
  const fieldErrors: ValidationErrors = {}
  const used = new Set<string>()
  rawFields.forEach((raw, i) => {
    const r = isObject(raw) ? raw : {}
    const byId =
      typeof r.id === 'string' && r.id !== ''
        ? current.find((f) => f.id === r.id && !used.has(f.id))
        : undefined
    // NB: a field with an unknown or no id but a known name and type takes the place (and, when
    // stored, the id) of that field, as PocketBase's import does.
    const existing =
      byId ??
      current.find(
        (f) =>
          !used.has(f.id) &&
          f.name === r.name &&
          (r.type === undefined || f.type === r.type) &&
          !rawFields.some((o) => isObject(o) && o !== r && o.id === f.id),
      )
    const errs: ValidationErrors = {}
    const field = existing
      ? parseField(raw, existing, fresh, errs)
      : (authFieldClash(r, current, fresh, type) ?? parseField(raw, existing, fresh, errs))
    if (Object.keys(errs).length > 0) fieldErrors[String(i)] = errs
    if (field) {
      // As in PocketBase, a later field with the id or the name of an earlier one replaces it
      // (keeping the earlier one's id).
      const earlier = out.findIndex((o) => o.id === field.id || o.name === field.name)
      if (earlier >= 0) out[earlier] = { ...field, id: out[earlier]!.id }
      else out.push(field)
      const taken = existing ?? current.find((f) => f.system && f.name === field.name)
      if (existing || field.system) used.add(taken?.id ?? field.id)
    }
  })
  if (Object.keys(fieldErrors).length > 0) errors[key] = fieldErrors
  if (merge === 'keep-missing') {
    for (const f of current) if (!used.has(f.id) && !out.some((o) => o.id === f.id)) out.push(f)
  } else {
    // As in PocketBase, the primary key and the auth fields are never dropped by omission: a
    // missing `id` goes first and missing auth fields after the submitted ones. So are the
    // `created`/`updated` stamps (DECISIONS), last. Another system field left out is an error.
    const isId = (f: Field) => f.name === 'id' && f.options.primaryKey === true
    const restored = (f: Field) =>
      isId(f) ||
      (type === 'auth' && authFieldNames.has(f.name)) ||
      (f.type === 'autodate' && (f.name === 'created' || f.name === 'updated'))
    const missing = current.filter(
      (f) => f.system && restored(f) && !used.has(f.id) && !out.some((o) => o.id === f.id),
    )
    // A left-out primary key comes back as PocketBase's default one.
    const pk = missing.filter(isId).map((f) => ({ ...idField(), id: f.id }))
    return [
      ...(pkLast ? [] : pk),
      ...out,
      ...missing.filter((f) => f.type !== 'autodate' && !isId(f)),
      ...(pkLast ? pk : []),
      ...missing.filter((f) => f.type === 'autodate'),
    ]
  }
  return out
}

/** Moves field errors' `options.x` up to `x`, as PocketBase reports them on flat fields. */
function flattenFieldErrors(errors: ValidationErrors): ValidationErrors {
  const out: ValidationErrors = {}
  for (const [k, v] of Object.entries(errors)) {
    if (!isObject(v) || 'code' in v) {
      out[k] = v
      continue
    }
    const { options, ...rest } = v
    out[k] = isObject(options) && !('code' in options) ? { ...rest, ...options } : v
  }
  return out
}

/**
 * Puts validation errors at the paths of the view the input used (see {@link InputShape}):
 * `fields.N.x` instead of `schema.N.options.x`, top-level `otp` instead of `authOptions.otp`.
 */
export function reshapeErrors(errors: ValidationErrors, shape: InputShape): ValidationErrors {
  const out: ValidationErrors = { ...errors }
  const schema = out.schema
  if (shape.fieldsKey === 'fields' && schema && !out.fields) {
    delete out.schema
    out.fields = 'code' in schema ? schema : flattenFieldErrors(schema)
  }
  const auth = out.authOptions
  if (auth && !('code' in auth)) {
    const rest: ValidationErrors = { ...auth }
    for (const key of shape.authTopLevel) {
      const e = rest[key]
      if (e === undefined) continue
      out[key] = e
      delete rest[key]
    }
    if (Object.keys(rest).length > 0) out.authOptions = rest
    else delete out.authOptions
  }
  return out
}
