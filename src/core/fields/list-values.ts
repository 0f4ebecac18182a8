/**
 * The list logic shared by select, relation and file fields: a single field holds one string, a
 * multiple one (`maxSelect > 1`) an array of unique non-empty strings.
 */

import type { ColumnKind } from '../../store/dialect.js'
import type { Field } from '../collections/model.js'
import { type FieldError, validationError } from '../errors.js'
import type { Modifier } from './field-type.js'
import { describeValue, wrongType } from './generic-errors.js'
import { toText } from './cast.js'
import { maxSelectOption } from './options.js'

/** An object or a list: an item no string cast applies to. */
const isStructured = (item: unknown): boolean => typeof item === 'object' && item !== null

/**
 * A text holding `[`, read as Go's `json.Unmarshal` into a `[]string` would: a JSON list of
 * strings gives its items; on any failure the text itself is added after what was read (a list
 * item that is no string reads as `""`).
 */
function parseStringList(raw: string): string[] {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw) as unknown
  } catch {
    return [raw]
  }
  if (!Array.isArray(parsed)) return [raw]
  const items = parsed.map((v: unknown) => (typeof v === 'string' ? v : ''))
  const clean = parsed.every((v: unknown) => typeof v === 'string' || v === null)
  return clean ? items : [...items, raw]
}

/** The items of a submitted value, before blanks and repeats are dropped. */
function rawItems(raw: unknown): string[] {
  if (raw === null || raw === undefined || raw === '') return []
  if (typeof raw === 'string') return raw.includes('[') ? parseStringList(raw) : [raw]
  // A list holding an object or a list casts to nothing at all.
  if (Array.isArray(raw)) return raw.some(isStructured) ? [] : raw.map(toText)
  return isStructured(raw) ? [] : [toText(raw)]
}

/**
 * Casts a submitted value to unique non-empty strings, first occurrence first (PocketBase's
 * `list.ToUniqueStringSlice`): a string containing `[` is parsed as a JSON list of strings when
 * it is one, other strings are one item, numbers and booleans print; an object, or a list holding
 * one, is no item.
 */
export function toUniqueStrings(raw: unknown): string[] {
  return [...new Set(rawItems(raw).filter((s) => s !== ''))]
}

/** True when the field holds a list (`maxSelect > 1`). */
export function isMultiList(field: Field): boolean {
  return maxSelectOption(field) > 1
}

/** The storage class: JSON text for lists, plain text for single values. */
export function listColumn(field: Field): ColumnKind {
  return isMultiList(field) ? 'json' : 'text'
}

/** The empty value: `[]` or `''`. */
export function listZero(field: Field): string[] | string {
  return isMultiList(field) ? [] : ''
}

/**
 * Casts a stored or canonical value to the field's shape: a multiple field gets the unique list,
 * a single one its **last** item (or `''`).
 */
function canonicalList(raw: unknown, field: Field): string[] | string {
  const items = toUniqueStrings(raw)
  return isMultiList(field) ? items : (items[items.length - 1] ?? '')
}

/** Casts a submitted value to the field's canonical shape (see `canonicalList`), as PocketBase. */
export function normalizeList(raw: unknown, field: Field): unknown {
  return canonicalList(raw, field)
}

/**
 * The type error of a value that is not the field's canonical shape (a string, or a list of
 * strings when multiple), naming what was sent; null when the shape is right.
 */
export function listTypeError(value: unknown, field: Field): FieldError | null {
  if (!isMultiList(field)) return typeof value === 'string' ? null : wrongType('a string', value)
  if (!Array.isArray(value)) return wrongType('a list of strings', value)
  const bad: unknown = value.find((v) => typeof v !== 'string')
  return bad === undefined
    ? null
    : validationError('validation_unsupported_value_type:list', {
        actual: describeValue(bad),
      })
}

/**
 * Applies `+name` (prepend), `name+` (append) or `name-` (remove one or several items) to the
 * current value. On a single field the result keeps the last item, so `name+` replaces the value
 * and `+name` keeps the current one when there is one, as PocketBase does.
 */
export function applyListModifier(
  current: unknown,
  modifier: Modifier,
  raw: unknown,
  field: Field,
): unknown {
  if (listTypeError(current, field)) return current
  const have = toUniqueStrings(current)
  const given = toUniqueStrings(raw)
  switch (modifier) {
    case 'append':
      return canonicalList([...have, ...given], field)
    case 'prepend':
      return canonicalList([...given, ...have], field)
    case 'remove': {
      const drop = new Set(given)
      return canonicalList(
        have.filter((s) => !drop.has(s)),
        field,
      )
    }
  }
}

/** Canonical value → bound parameter: JSON text for a list, the string otherwise. */
export function listToDb(value: unknown, field: Field): string {
  const v = canonicalList(value, field)
  return Array.isArray(v) ? JSON.stringify(v) : v
}

/** Stored value → canonical value; tolerates a field switched between single and multiple. */
export function listFromDb(raw: unknown, field: Field): string[] | string {
  // Fast paths for what `listToDb` wrote: a plain string, or a JSON list already canonical.
  if (typeof raw === 'string') {
    const multi = isMultiList(field)
    if (!multi && !raw.includes('[')) return raw
    if (multi && raw.startsWith('[')) {
      const items = parseStringList(raw)
      if (isCanonicalList(items)) return items
    }
  }
  return canonicalList(raw, field)
}

/** True for a list of unique non-empty strings. */
function isCanonicalList(items: unknown[]): items is string[] {
  for (const item of items) if (typeof item !== 'string' || item === '') return false
  return items.length < 2 || new Set(items).size === items.length
}
