/**
 * The `relation` field: ids of records of the collection `collectionId`; one id (`maxSelect` ≤ 1)
 * or a list. Setters `+name`, `name+`, `name-`. Only existence is checked on write, never the
 * related collection's rules.
 */

import type { Collection, Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { FieldLookup, FieldType } from './field-type.js'
import { minThreshold, required, wrongType } from './generic-errors.js'
import {
  applyListModifier,
  isMultiList,
  listColumn,
  listFromDb,
  listToDb,
  listTypeError,
  listZero,
  normalizeList,
  toUniqueStrings,
} from './list-values.js'
import {
  checkBool,
  checkInt,
  collectErrors,
  maxSelectOption,
  numberOption,
  stringOption,
} from './options.js'
import { tooManyValues } from './select.js'

function checkCollectionId(
  field: Field,
  lookup: FieldLookup,
  owner?: Collection,
): FieldError | null {
  const v = field.options.collectionId
  if (v === undefined || v === null || v === '') return required()
  if (typeof v !== 'string') return wrongType('a string', v)
  if (owner) {
    const old = lookup.findCollection(owner.id)?.fields.find((f) => f.id === field.id)
    if (old?.type === 'relation' && stringOption(old, 'collectionId') !== v) {
      return validationError('validation_field_old_collection_id_change')
    }
  }
  // A self-relation of a collection being created points at the collection itself.
  const target = owner?.id === v ? owner : lookup.findCollection(v)
  if (!target || target.id !== v) {
    return validationError('validation_field_relation_missing_collection')
  }
  if ((owner?.type ?? 'base') !== 'view' && target.type === 'view') {
    return validationError('validation_relation_field_non_view_base_collection')
  }
  return null
}

function checkMaxSelect(field: Field): FieldError | null {
  const err = checkInt(field, 'maxSelect', { min: 0 })
  if (err) return err
  const minSelect = numberOption(field, 'minSelect', 0)
  if (minSelect <= 0) return null
  const maxSelect = numberOption(field, 'maxSelect', 0)
  if (maxSelect === 0) return required()
  return maxSelect < minSelect ? minThreshold(minSelect) : null
}

/**
 * Validates a relation field's options. `owner` is the collection the field belongs to, when
 * known: then a changed `collectionId` of an existing field is rejected (the stored version of the
 * owner comes from `lookup`), a self-relation of a new collection is allowed, and a view owner may
 * point at views. Without it the owner is taken to be a base or auth collection.
 */
export function validateRelationOptions(
  field: Field,
  lookup: FieldLookup,
  owner?: Collection,
): Record<string, FieldError> {
  return collectErrors({
    collectionId: checkCollectionId(field, lookup, owner),
    cascadeDelete: checkBool(field, 'cascadeDelete'),
    minSelect: checkInt(field, 'minSelect', { min: 0 }),
    maxSelect: checkMaxSelect(field),
  })
}

async function validateRelation(
  value: unknown,
  field: Field,
  lookup: FieldLookup,
): Promise<FieldError | null> {
  const ids = toUniqueStrings(value)
  if (ids.length === 0) return field.required ? required() : null
  const minSelect = numberOption(field, 'minSelect', 0)
  if (minSelect > 0 && ids.length < minSelect) {
    return validationError('validation_not_enough_values', { minSelect })
  }
  const maxSelect = maxSelectOption(field)
  if (ids.length > maxSelect) return tooManyValues(maxSelect)
  const target = lookup.findCollection(stringOption(field, 'collectionId'))
  if (!target) {
    return validationError('validation_missing_rel_collection')
  }
  const missing = await lookup.missingIds(target, ids)
  return missing.length === 0
    ? null
    : validationError('validation_missing_rel_records', { missing })
}

/** The `relation` field type. */
export const relationField: FieldType = {
  type: 'relation',
  column: listColumn,
  defaultOptions: () => ({ collectionId: '', cascadeDelete: false, minSelect: 0, maxSelect: 0 }),
  validateOptions: (field, lookup) => validateRelationOptions(field, lookup),
  isMulti: isMultiList,
  zero: listZero,
  normalize: normalizeList,
  applyModifier: applyListModifier,
  validate(value, field, ctx) {
    const typeErr = listTypeError(value, field)
    return typeErr ? Promise.resolve(typeErr) : validateRelation(value, field, ctx.lookup)
  },
  toDb: listToDb,
  fromDb: listFromDb,
}
