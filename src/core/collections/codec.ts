import { fieldError, type ValidationErrors } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import { makeField } from './defaults.js'
import { ruleKeys, type AuthOptions, type Collection, type Field } from './model.js'

/** Keys of a field object that are not type options. */
const commonFieldKeys = new Set([
  'id',
  'name',
  'type',
  'required',
  'unique',
  'system',
  'hidden',
  'presentable',
  'help',
  'options',
])

/** PocketBase's top-level auth keys, accepted on input besides `authOptions` (DECISIONS). */
const authOptionKeys = [
  'authRule',
  'manageRule',
  'passwordAuth',
  'mfa',
  'otp',
  'authAlert',
  'oauth2',
  'authToken',
  'passwordResetToken',
  'emailChangeToken',
  'verificationToken',
  'fileToken',
  'verificationTemplate',
  'resetPasswordTemplate',
  'confirmEmailChangeTemplate',
] as const

const tokenKeys = new Set([
  'authToken',
  'passwordResetToken',
  'emailChangeToken',
  'verificationToken',
  'fileToken',
])

/** The field in SPEC's `schema` shape: options nested. */
export function fieldToSchema(f: Field): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    type: f.type,
    required: f.required,
    unique: f.unique,
    system: f.system,
    hidden: f.hidden,
    presentable: f.presentable,
    options: f.options,
  }
}

/** The field in PocketBase v0.23's flat shape. */
export function fieldToFlat(f: Field): Record<string, unknown> {
  return {
    ...f.options,
    id: f.id,
    name: f.name,
    type: f.type,
    required: f.required,
    system: f.system,
    hidden: f.hidden,
    presentable: f.presentable,
  }
}

/** Auth options without secrets, for responses. */
export function publicAuthOptions(o: AuthOptions): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) {
    out[k] = tokenKeys.has(k) ? { duration: (v as { duration: number }).duration } : v
  }
  return out
}

/** A collection as the API returns it: `schema` per SPEC and `fields` for PocketBase tools. */
export function collectionToJSON(c: Collection): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: c.id,
    name: c.name,
    type: c.type,
    system: c.system,
    schema: c.fields.map(fieldToSchema),
    fields: c.fields.map(fieldToFlat),
    indexes: c.indexes,
    listRule: c.listRule,
    viewRule: c.viewRule,
    createRule: c.createRule,
    updateRule: c.updateRule,
    deleteRule: c.deleteRule,
  }
  if (c.type === 'view') out.viewQuery = c.viewQuery ?? ''
  if (c.authOptions) out.authOptions = publicAuthOptions(c.authOptions)
  out.created = c.created
  out.updated = c.updated
  return out
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/** Parses one submitted field (either shape); `existing` supplies defaults for a known field. */
function parseField(
  raw: unknown,
  existing: Field | undefined,
  errors: ValidationErrors,
): Field | null {
  if (!isObject(raw)) {
    errors.field = fieldError('validation_invalid_value', 'Must be an object.')
    return null
  }
  const name = typeof raw.name === 'string' ? raw.name : ''
  const type = typeof raw.type === 'string' ? raw.type : (existing?.type ?? '')
  const ft = getFieldType(type)
  if (!ft) {
    errors.type = fieldError('validation_in_invalid', 'Must be a valid value.')
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
  return makeField({
    id: typeof raw.id === 'string' && raw.id !== '' ? raw.id : existing?.id,
    name,
    type,
    required: bool('required', existing?.required ?? false),
    unique: bool('unique', existing?.unique ?? false),
    system: existing?.system ?? false,
    hidden: bool('hidden', existing?.hidden ?? false),
    presentable: bool('presentable', existing?.presentable ?? false),
    options: { ...ft.defaultOptions(), ...base, ...options },
  })
}

/** How submitted fields combine with the current ones. */
export type FieldMerge = 'replace' | 'keep-missing'

/**
 * Applies a CollectionInput (SPEC §2.4, or PocketBase's flat shape) on top of `target`, in
 * place. Type errors in the input land in `errors` keyed like the input.
 */
export function applyCollectionInput(
  target: Collection,
  input: Record<string, unknown>,
  errors: ValidationErrors,
  merge: FieldMerge = 'replace',
): void {
  if ('name' in input) {
    if (typeof input.name === 'string') target.name = input.name
    else errors.name = fieldError('validation_invalid_value', 'Must be a string.')
  }
  if (typeof input.id === 'string' && target.id === '') target.id = input.id
  for (const key of ruleKeys) {
    if (!(key in input)) continue
    const v = input[key]
    if (v === null || typeof v === 'string') target[key] = v
    else errors[key] = fieldError('validation_invalid_value', 'Must be a string or null.')
  }
  if ('indexes' in input) {
    const v = input.indexes
    if (Array.isArray(v) && v.every((s) => typeof s === 'string')) target.indexes = v
    else errors.indexes = fieldError('validation_invalid_value', 'Must be a list of strings.')
  }
  const query = input.viewQuery ?? (isObject(input.options) ? input.options.query : undefined)
  if (query !== undefined) {
    if (typeof query === 'string') target.viewQuery = query
    else errors.viewQuery = fieldError('validation_invalid_value', 'Must be a string.')
  }
  const fieldsKey = Array.isArray(input.schema) ? 'schema' : 'fields'
  const rawFields = input.schema ?? input.fields
  if (rawFields !== undefined) {
    if (!Array.isArray(rawFields)) {
      errors[fieldsKey] = fieldError('validation_invalid_value', 'Must be a list of fields.')
    } else {
      target.fields = mergeFields(target.fields, rawFields, errors, fieldsKey, merge)
    }
  }
  if (target.authOptions) applyAuthOptions(target.authOptions, input, errors)
}

function mergeFields(
  current: Field[],
  rawFields: unknown[],
  errors: ValidationErrors,
  key: string,
  merge: FieldMerge,
): Field[] {
  const out: Field[] = []
  const fieldErrors: ValidationErrors = {}
  const used = new Set<string>()
  rawFields.forEach((raw, i) => {
    const r = isObject(raw) ? raw : {}
    const byId =
      typeof r.id === 'string' && r.id !== '' ? current.find((f) => f.id === r.id) : undefined
    // NB: a field re-submitted without id but with a known name keeps its id (PocketBase).
    const existing =
      byId ??
      (r.id === undefined || r.id === ''
        ? current.find((f) => f.name === r.name && (r.type === undefined || f.type === r.type))
        : undefined)
    const errs: ValidationErrors = {}
    const field = parseField(raw, existing, errs)
    if (Object.keys(errs).length > 0) fieldErrors[String(i)] = errs
    if (field) {
      out.push(field)
      if (existing) used.add(existing.id)
    }
  })
  if (Object.keys(fieldErrors).length > 0) errors[key] = fieldErrors
  if (merge === 'keep-missing') {
    for (const f of current) if (!used.has(f.id) && !out.some((o) => o.id === f.id)) out.push(f)
  } else {
    // System fields are never dropped by omission: the leading ones (id, auth fields) go
    // first and the autodate ones last, as in a fresh collection.
    const missing = current.filter((f) => f.system && !out.some((o) => o.id === f.id))
    return [
      ...missing.filter((f) => f.type !== 'autodate'),
      ...out,
      ...missing.filter((f) => f.type === 'autodate'),
    ]
  }
  return out
}

function applyAuthOptions(
  target: AuthOptions,
  input: Record<string, unknown>,
  errors: ValidationErrors,
): void {
  const sources: Record<string, unknown>[] = [input]
  if (isObject(input.authOptions)) sources.push(input.authOptions)
  else if (input.authOptions !== undefined) {
    errors.authOptions = fieldError('validation_invalid_value', 'Must be an object.')
  }
  const t = target as unknown as Record<string, unknown>
  for (const src of sources) {
    for (const key of authOptionKeys) {
      if (!(key in src)) continue
      const v = src[key]
      if (key === 'authRule' || key === 'manageRule') {
        if (v === null || typeof v === 'string') t[key] = v
        else errors[key] = fieldError('validation_invalid_value', 'Must be a string or null.')
      } else if (isObject(v)) {
        const { secret: _ignored, ...rest } = v
        t[key] = { ...(t[key] as Record<string, unknown>), ...rest }
      } else {
        errors[key] = fieldError('validation_invalid_value', 'Must be an object.')
      }
    }
  }
}
