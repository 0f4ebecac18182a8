import type { Dialect } from '../../store/dialect.js'
import { fieldError, type FieldError, type ValidationErrors } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import { validateRelationOptions } from '../fields/relation.js'
import type { FieldLookup } from '../fields/field-type.js'
import { validateRule } from '../rules/index.js'
import { parseIndex } from './indexes.js'
import { ruleKeys, type Collection } from './model.js'

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
const authSystemFields = ['password', 'tokenKey', 'email', 'emailVisibility', 'verified']

const required = (): FieldError => fieldError('validation_required', 'Cannot be blank.')

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
    errors.type = fieldError('validation_in_invalid', 'Must be a valid value.')
    return errors
  }
  if (old && old.type !== c.type) {
    errors.type = fieldError(
      'validation_collection_type_change',
      'Collection type cannot be changed.',
    )
  }
  if (old?.system) {
    for (const key of ruleKeys) {
      if (c[key] !== old[key] && c.name !== '_superusers') {
        errors[key] = fieldError(
          'validation_collection_system_rule_change',
          'System collection rules cannot be changed.',
        )
      }
    }
  }
  // Relation options compare against the collection's version before this change.
  const before: FieldLookup = {
    findCollection: (n) => (n === c.id ? old : lookup.findCollection(n)),
    missingIds: (col, ids) => lookup.missingIds(col, ids),
  }
  const fieldErrors = validateFields(c, old, before)
  if (Object.keys(fieldErrors).length > 0) errors.schema = fieldErrors
  for (const key of ruleKeys) {
    const rule = c[key]
    if (c.type === 'view' && key !== 'listRule' && key !== 'viewRule' && rule !== null) {
      errors[key] = fieldError('validation_nil', 'Must be blank.')
      continue
    }
    if (rule === null || rule.trim() === '' || errors.schema) continue
    const problem = validateRule(rule, c, (n) => lookup.findCollection(n), dialect)
    if (problem)
      errors[key] = fieldError('validation_invalid_rule', `Invalid rule. Raw error: ${problem}`)
  }
  if (c.authOptions && !errors.schema) validateAuthOptions(c, lookup, dialect, errors)
  if (c.type === 'view' && c.indexes.length > 0) {
    errors.indexes = fieldError('validation_indexes_not_supported', 'Views cannot have indexes.')
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
    errors.name = fieldError(
      'validation_collection_system_name_change',
      'System collection name cannot be changed.',
    )
    return
  }
  if (c.name === '') errors.name = required()
  else if (c.name.length > 255 || !word.test(c.name)) {
    errors.name = fieldError('validation_match_invalid', 'Must be in a valid format.')
  } else if (c.name.includes('_via_')) {
    errors.name = fieldError('validation_found_via', 'The name must not contain "_via_".')
  } else if (!c.system && c.name.startsWith('_') && c.name !== old?.name) {
    errors.name = fieldError(
      'validation_collection_name_invalid',
      'Collection names starting with "_" are reserved for system collections.',
    )
  } else if (
    internalTables.has(c.name.toLowerCase()) ||
    c.name.toLowerCase().startsWith('sqlite_')
  ) {
    errors.name = fieldError('validation_collection_name_invalid', 'The name is reserved.')
  } else {
    for (const other of lookup.all()) {
      if (other.id === c.id) continue
      if (other.name.toLowerCase() === c.name.toLowerCase()) {
        errors.name = fieldError(
          'validation_collection_name_exists',
          'Collection name must be unique (case insensitive).',
        )
      } else if (other.id === c.name) {
        errors.name = fieldError(
          'validation_collection_name_id_duplicate',
          'The name must not match an existing collection id.',
        )
      }
    }
  }
  if (c.id !== '' && (!word.test(c.id) || c.id.length > 100)) {
    errors.id = fieldError('validation_match_invalid', 'Must be in a valid format.')
  }
}

function validateFields(
  c: Collection,
  old: Collection | undefined,
  lookup: FieldLookup,
): ValidationErrors {
  const errors: ValidationErrors = {}
  const names = new Set<string>()
  const ids = new Set<string>()
  c.fields.forEach((f, i) => {
    const e: ValidationErrors = {}
    if (f.name === '') e.name = required()
    else if (f.name.length > 100 || !word.test(f.name))
      e.name = fieldError('validation_match_invalid', 'Must be in a valid format.')
    else if (reservedFieldNames.has(f.name.toLowerCase()))
      e.name = fieldError('validation_not_in_invalid', 'Must not be in list.')
    else if (f.name.includes('_via_'))
      e.name = fieldError('validation_found_via', 'The name must not contain "_via_".')
    else if (names.has(f.name.toLowerCase()))
      e.name = fieldError('validation_duplicated_field_name', 'Duplicated or invalid field name.')
    else if (c.type === 'auth' && (f.name === 'passwordConfirm' || f.name === 'oldPassword')) {
      e.name = fieldError('validation_not_in_invalid', 'Must not be in list.')
    }
    names.add(f.name.toLowerCase())
    if (ids.has(f.id))
      e.id = fieldError('validation_duplicated_field_id', 'Duplicated or invalid field id.')
    ids.add(f.id)
    const prev = old?.fields.find((o) => o.id === f.id)
    if (prev && prev.type !== f.type)
      e.type = fieldError('validation_field_type_change', 'Field type cannot be changed.')
    if (prev?.system && prev.name !== f.name)
      e.name = fieldError('validation_system_field_change', 'System fields cannot be renamed.')
    const ft = getFieldType(f.type)
    if (!ft) e.type = fieldError('validation_in_invalid', 'Must be a valid value.')
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
    errors.id = fieldError(
      'validation_missing_primary_key',
      'Missing or invalid "id" primary key field.',
    )
  }
  if (c.type === 'auth') {
    for (const name of authSystemFields) {
      if (!c.fields.some((f) => f.name === name && f.system)) {
        errors[name] = fieldError(
          `validation_missing_${name.toLowerCase()}_field`,
          `Missing system "${name}" field.`,
        )
      }
    }
  }
  for (const prev of old?.fields ?? []) {
    if (prev.system && !c.fields.some((f) => f.id === prev.id)) {
      errors[prev.name] = fieldError(
        'validation_system_field_change',
        'System fields cannot be removed.',
      )
    }
  }
  return errors
}

function validateAuthOptions(
  c: Collection,
  lookup: FieldLookup,
  dialect: Dialect,
  errors: ValidationErrors,
): void {
  const o = c.authOptions!
  const e: ValidationErrors = {}
  if (o.manageRule !== null && o.manageRule.trim() === '') {
    e.manageRule = fieldError('validation_nil_or_not_empty_required', 'Cannot be blank.')
  }
  for (const key of ['authRule', 'manageRule'] as const) {
    const rule = o[key]
    if (rule === null || rule.trim() === '') continue
    const problem = validateRule(rule, c, (n) => lookup.findCollection(n), dialect)
    if (problem)
      e[key] = fieldError('validation_invalid_rule', `Invalid rule. Raw error: ${problem}`)
  }
  for (const key of [
    'authToken',
    'passwordResetToken',
    'emailChangeToken',
    'verificationToken',
    'fileToken',
  ] as const) {
    const d = o[key].duration
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 10 || d > 94670856) {
      e[key] = {
        duration: fieldError(
          'validation_min_greater_equal_than_required',
          'Must be between 10 and 94670856 seconds.',
        ),
      }
    }
  }
  const ids = o.passwordAuth.identityFields
  if (!Array.isArray(ids) || ids.some((n) => !c.fields.some((f) => f.name === n))) {
    e.passwordAuth = {
      identityFields: fieldError(
        'validation_in_invalid',
        'Every identity field must be an existing field.',
      ),
    }
  }
  if (o.otp.enabled && (o.otp.duration < 10 || o.otp.duration > 86400 || o.otp.length < 4)) {
    e.otp = fieldError(
      'validation_invalid_value',
      'OTP duration must be 10-86400 seconds and length at least 4.',
    )
  }
  if (o.mfa.enabled) {
    const methods = [o.passwordAuth.enabled, o.otp.enabled, o.oauth2.enabled].filter(Boolean).length
    if (methods < 2)
      e.mfa = fieldError(
        'validation_mfa_not_enough_auths',
        'MFA requires at least two enabled auth methods.',
      )
  }
  if (Object.keys(e).length > 0) errors.authOptions = e
}

function validateIndexes(c: Collection, all: Collection[], errors: ValidationErrors): void {
  const e: ValidationErrors = {}
  const names = new Set<string>()
  // Index names share one namespace in the database.
  const taken = new Set<string>()
  for (const other of all) {
    if (other.id === c.id || other.type === 'view') continue
    for (const text of other.indexes) {
      const spec = parseIndex(text, other)
      if (typeof spec !== 'string') taken.add(spec.name.toLowerCase())
    }
  }
  c.indexes.forEach((text, i) => {
    const spec = parseIndex(text, c)
    if (typeof spec === 'string') {
      e[String(i)] = fieldError('validation_invalid_index_expression', spec)
      return
    }
    const key = spec.name.toLowerCase()
    if (names.has(key)) {
      e[String(i)] = fieldError(
        'validation_duplicated_index_name',
        'The index name must be unique.',
      )
    } else if (taken.has(key)) {
      e[String(i)] = fieldError(
        'validation_existing_index_name',
        'Index name is already used by another collection.',
      )
    }
    names.add(key)
  })
  if (Object.keys(e).length > 0) errors.indexes = e
}
