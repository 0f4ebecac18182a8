import { type FieldError, validationError, type ValidationErrors } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import type { Modifier } from '../fields/field-type.js'
import type { Collection, Field } from '../collections/model.js'
import type { RecordData } from '../request-info.js'

/** A body key split into its field name and setter modifier. */
export interface ParsedKey {
  name: string
  modifier: Modifier | 'set' | 'autogenerate'
}

/** Splits `tags+`, `+tags`, `tags-`, `code:autogenerate` into name and modifier. */
export function parseKey(key: string): ParsedKey {
  if (key.endsWith(':autogenerate'))
    return { name: key.slice(0, -':autogenerate'.length), modifier: 'autogenerate' }
  if (key.endsWith('+')) return { name: key.slice(0, -1), modifier: 'append' }
  if (key.startsWith('+')) return { name: key.slice(1), modifier: 'prepend' }
  if (key.endsWith('-')) return { name: key.slice(0, -1), modifier: 'remove' }
  return { name: key, modifier: 'set' }
}

/** What applying a body changed. */
export interface AppliedInput {
  /** Names of the fields the body touched. */
  touched: Set<string>
  /** Plain values of submitted password fields, to validate and hash. */
  passwords: Map<string, unknown>
  /** The resolved body for `@request.body`: final values of touched fields plus unknown keys. */
  resolvedBody: Record<string, unknown>
}

/** Fields a caller may not write: autodate always, hidden ones unless superuser. */
function writable(field: Field, superuser: boolean): boolean {
  if (field.type === 'autodate') return false
  if (field.hidden && !superuser && field.type !== 'password') return false
  return true
}

/**
 * Applies a submitted body onto `record` in place: plain sets first, then `+`/`-` modifiers, in
 * body order. Unknown keys are kept only for `@request.body`. Password values are collected,
 * not written: the caller validates and hashes them.
 */
export function applyBody(
  collection: Collection,
  record: RecordData,
  body: Record<string, unknown>,
  superuser: boolean,
  generate: (field: Field, prefix: string) => string,
): AppliedInput {
  const touched = new Set<string>()
  const passwords = new Map<string, unknown>()
  const resolvedBody: Record<string, unknown> = {}
  const keys = Object.keys(body).map((k) => ({ key: k, ...parseKey(k) }))
  const ordered = [
    ...keys.filter((k) => k.modifier === 'set'),
    ...keys.filter((k) => k.modifier !== 'set'),
  ]
  for (const { key, name, modifier } of ordered) {
    const field = collection.fields.find((f) => f.name === name)
    if (!field) {
      resolvedBody[key] = body[key]
      continue
    }
    if (!writable(field, superuser)) continue
    const ft = getFieldType(field.type)
    if (!ft) continue
    const raw = body[key]
    // A password has no modifiers: `password+` is an unknown key, as in PocketBase.
    if (field.type === 'password' && modifier !== 'set') {
      resolvedBody[key] = raw
      continue
    }
    if (field.type === 'password') {
      passwords.set(field.name, raw)
      touched.add(field.name)
      continue
    }
    if (modifier === 'set') record[name] = ft.normalize(raw, field)
    else if (modifier === 'autogenerate') {
      record[name] = generate(field, typeof raw === 'string' ? raw : '')
    } else if (ft.applyModifier && (ft.modifiers?.includes(modifier) ?? true)) {
      record[name] = ft.applyModifier(record[name], modifier, raw, field)
    } else {
      resolvedBody[key] = raw
      continue
    }
    touched.add(name)
  }
  for (const name of touched) if (!passwords.has(name)) resolvedBody[name] = record[name]
  return { touched, passwords, resolvedBody }
}

/** Validates every field of a record; returns errors keyed by field name. */
export async function validateRecord(
  collection: Collection,
  record: RecordData,
  ctx: {
    isNew: boolean
    original?: RecordData
    lookup: Parameters<NonNullable<ReturnType<typeof getFieldType>>['validate']>[2]['lookup']
    skip: Set<string>
  },
): Promise<ValidationErrors> {
  // Fields are validated together, so their lookups (relation existence) share queries.
  const checks: Array<Promise<readonly [string, FieldError | null]>> = []
  for (const field of collection.fields) {
    if (ctx.skip.has(field.name)) continue
    const ft = getFieldType(field.type)
    if (!ft) continue
    const check = ft.validate(record[field.name], field, {
      collection,
      lookup: ctx.lookup,
      isNew: ctx.isNew,
      original: ctx.original?.[field.name],
    })
    checks.push(check.then((err) => [field.name, err] as const))
  }
  const errors: ValidationErrors = {}
  for (const [name, err] of await Promise.all(checks)) if (err) errors[name] = err
  return errors
}

/** A missing or mismatched `passwordConfirm` for auth collections. */
export function checkPasswordConfirm(
  body: Record<string, unknown>,
  plain: unknown,
): ValidationErrors {
  if (!('passwordConfirm' in body) || body.passwordConfirm !== plain) {
    return {
      passwordConfirm:
        body.passwordConfirm === undefined || body.passwordConfirm === ''
          ? validationError('validation_required')
          : validationError('validation_values_mismatch'),
    }
  }
  return {}
}

/** The keys of PocketBase's auth form, checked before the record's fields. */
const AUTH_FORM_KEYS = ['email', 'verified', 'password', 'passwordConfirm', 'oldPassword']

/**
 * True when an auth record's form keys (`password`, `passwordConfirm`, `oldPassword`, `email`,
 * `verified`) failed: PocketBase answers those alone, without validating the other fields.
 */
export function authFormFailed(
  collection: Collection,
  errors: { has(key: string): boolean },
): boolean {
  return collection.type === 'auth' && AUTH_FORM_KEYS.some((k) => errors.has(k))
}
