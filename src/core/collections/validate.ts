import type { Dialect } from '../../store/dialect.js'
import { type FieldError, validationError, type ValidationErrors } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import { validateRelationOptions } from '../fields/relation.js'
import type { FieldLookup } from '../fields/field-type.js'
import { validateRule } from '../rules/index.js'
import { parseIndex } from './indexes.js'
import { ruleKeys, type Collection } from './model.js'
import { validateAuthOptions } from './validate-auth.js'

const word = /^\w+$/
const reservedFieldNames = new Set([
  'null',
  'true',
  'false',
  '_rowid_',
  'collectionid',
  'collectionname',
  'expand',
])
const internalTables = new Set(['_collections', '_params', '_migrations'])
/** The system fields every auth collection has, with the error of a missing one. */
const authSystemFields = {
  password: 'validation_missing_password_field',
  tokenKey: 'validation_missing_tokenkey_field',
  email: 'validation_missing_email_field',
  emailVisibility: 'validation_missing_emailvisibility_field',
  verified: 'validation_missing_verified_field',
} as const

const required = (): FieldError => validationError('validation_required')

/**
 * Validates a collection about to be saved, or just saved by an import (`old` is the version
 * before the change). Returns field errors keyed as in SPEC's input (`schema`, `authOptions`).
 * Rules are compiled with `dialect`, the one of the database the collection lives in.
 */
export function validateCollection(
  c: Collection,
  old: Collection | undefined,
  lookup: FieldLookup & { all(): Collection[] },
  dialect: Dialect,
): ValidationErrors {
  const errors: ValidationErrors = {}
  validateName(c, old, lookup, errors)
  if (!['base', 'auth', 'view'].includes(c.type)) {
    errors.type = validationError('validation_in_invalid')
    return errors
  }
  if (old && old.type !== c.type) {
    errors.type = validationError('validation_collection_type_change')
  }
  if (old?.system) {
    for (const key of ruleKeys) {
      if (c[key] !== old[key]) {
        errors[key] = validationError('validation_collection_system_rule_change')
      }
    }
  }
  // Relation options compare against the collection's version before this change.
  const before: FieldLookup = {
    findCollection: (n) => (n === c.id ? old : lookup.findCollection(n)),
    missingIds: (col, ids) => lookup.missingIds(col, ids),
  }
  const fieldErrors = validateFields(c, old, before)
  // A list-wide error (a system field gone) still lets the rules be checked, as in PocketBase.
  const fieldsBroken = Object.keys(fieldErrors).length > 0 && !('code' in fieldErrors)
  if (Object.keys(fieldErrors).length > 0) errors.schema = fieldErrors
  for (const key of ruleKeys) {
    const rule = c[key]
    if (c.type === 'view' && key !== 'listRule' && key !== 'viewRule' && rule !== null) {
      errors[key] = validationError('validation_nil')
      continue
    }
    if (rule === null || rule.trim() === '' || fieldsBroken) continue
    const problem = validateRule(rule, c, (n) => lookup.findCollection(n), dialect)
    if (problem) errors[key] = validationError('validation_invalid_rule', { problem })
  }
  if (c.authOptions && !errors.schema) validateAuthOptions(c, lookup, dialect, errors)
  if (c.type === 'view' && c.indexes.length > 0) {
    errors.indexes = validationError('validation_indexes_not_supported')
  } else if (!errors.schema) {
    validateIndexes(c, lookup.all(), errors)
  }
  return errors
}

function validateName(
  c: Collection,
  old: Collection | undefined,
  lookup: { all(): Collection[] },
  errors: ValidationErrors,
): void {
  if (old?.system && c.name !== old.name) {
    errors.name = validationError('validation_collection_system_name_change')
    return
  }
  if (c.name === '') errors.name = required()
  else if (c.name.length > 255) {
    errors.name = validationError('validation_length_out_of_range', { min: 1, max: 255 })
  } else if (!word.test(c.name)) {
    errors.name = validationError('validation_match_invalid')
  } else if (c.name.includes('_via_')) {
    errors.name = validationError('validation_found_via')
  } else if (internalTables.has(c.name.toLowerCase())) {
    errors.name = validationError('validation_collection_name_invalid')
  } else if (c.name.toLowerCase().startsWith('sqlite_')) {
    errors.name = validationError('validation_collection_name_invalid:reserved')
  } else {
    for (const other of lookup.all()) {
      if (other.id === c.id) continue
      if (other.name.toLowerCase() === c.name.toLowerCase()) {
        errors.name = validationError('validation_collection_name_exists')
      } else if (other.id === c.name) {
        errors.name = validationError('validation_collection_name_id_duplicate')
      }
    }
  }
  if (c.id !== '' && (!word.test(c.id) || c.id.length > 100)) {
    errors.id = validationError('validation_match_invalid')
  }
}

function validateFields(
  c: Collection,
  old: Collection | undefined,
  lookup: FieldLookup,
): ValidationErrors | FieldError {
  const errors: ValidationErrors = {}
  const names = new Set<string>()
  const ids = new Set<string>()
  c.fields.forEach((f, i) => {
    const e: ValidationErrors = {}
    if (f.name === '') e.name = required()
    else if (f.name.length > 100)
      e.name = validationError('validation_length_out_of_range', { min: 1, max: 100 })
    else if (!word.test(f.name)) e.name = validationError('validation_match_invalid')
    else if (reservedFieldNames.has(f.name.toLowerCase()))
      e.name = validationError('validation_not_in_invalid')
    else if (f.name.includes('_via_')) e.name = validationError('validation_found_via')
    else if (names.has(f.name.toLowerCase()))
      e.name = validationError('validation_duplicated_field_name', { fieldName: f.name })
    else if (c.type === 'auth' && (f.name === 'passwordConfirm' || f.name === 'oldPassword')) {
      e.name = validationError('validation_not_in_invalid')
    }
    names.add(f.name.toLowerCase())
    if (ids.has(f.id)) e.id = validationError('validation_duplicated_field_id')
    ids.add(f.id)
    const prev = old?.fields.find((o) => o.id === f.id)
    if (prev && prev.type !== f.type) {
      // PocketBase reports it for the whole field (`fields.1`), nothing else about it.
      errors[String(i)] = validationError('validation_field_type_change')
      return
    }
    const ft = getFieldType(f.type)
    if (!ft) e.type = validationError('validation_in_invalid')
    else if (c.type !== 'view') {
      const optErrors =
        f.type === 'relation'
          ? validateRelationOptions(f, lookup, c)
          : ft.validateOptions(f, lookup)
      if (Object.keys(optErrors).length > 0) e.options = optErrors
    }
    if (Object.keys(e).length > 0) errors[String(i)] = e
  })
  const idField = c.fields.find((f) => f.name === 'id')
  if (!idField || idField.type !== 'text' || idField.options.primaryKey !== true) {
    errors.id = validationError('validation_missing_primary_key')
  }
  // PocketBase reports a renamed or removed system field once, for the whole list.
  const systemChanged = (old?.fields ?? []).some((prev) => {
    if (!prev.system) return false
    const now = c.fields.find((f) => f.id === prev.id)
    return !now || now.name !== prev.name
  })
  if (systemChanged && !Object.keys(errors).some((k) => /^\d+$/.test(k))) {
    return validationError('validation_system_field_change')
  }
  if (c.type === 'auth') {
    for (const [name, key] of Object.entries(authSystemFields)) {
      if (!c.fields.some((f) => f.name === name && f.system)) errors[name] = validationError(key)
    }
  }
  return errors
}

function validateIndexes(c: Collection, all: Collection[], errors: ValidationErrors): void {
  const e: ValidationErrors = {}
  const names = new Set<string>()
  // Index names share one namespace in the database.
  const taken = new Map<string, string>()
  for (const other of all) {
    if (other.id === c.id || other.type === 'view') continue
    for (const text of other.indexes) {
      const spec = parseIndex(text, other)
      if (typeof spec !== 'string') taken.set(spec.name.toLowerCase(), other.name)
    }
  }
  c.indexes.forEach((text, i) => {
    const spec = parseIndex(text, c)
    if (typeof spec === 'string') {
      e[String(i)] = validationError('validation_invalid_index_expression', { reason: spec })
      return
    }
    const key = spec.name.toLowerCase()
    if (names.has(key)) {
      e[String(i)] = validationError('validation_duplicated_index_name')
    } else if (taken.has(key)) {
      e[String(i)] = validationError('validation_existing_index_name', {
        usedTableName: taken.get(key)!,
      })
    }
    names.add(key)
  })
  if (Object.keys(e).length > 0) errors.indexes = e
}
