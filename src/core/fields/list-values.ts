/**
 * The list logic shared by select, relation and file fields: a single field holds one string, a
 * multiple one (`maxSelect > 1`) an array of unique non-empty strings.
 */

import type { ColumnKind } from '../../store/dialect.js'
import type { Field } from '../collections/model.js'
import type { Modifier } from './field-type.js'
import { maxSelectOption } from './options.js'

function itemText(item: unknown): string {
  switch (typeof item) {
    case 'string':
      return item
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(item)
    default:
      return ''
  }
}

/**
 * Casts a submitted value to unique non-empty strings, first occurrence first (PocketBase's
 * `list.ToUniqueStringSlice`): a string containing `[` is parsed as a JSON array when it is one,
 * other strings are one item, numbers print (multipart inference turns `"1"` into 1).
 */
export function toUniqueStrings(raw: unknown): string[] {
  let items: unknown[]
  if (raw === null || raw === undefined || raw === '') items = []
  else if (Array.isArray(raw)) items = raw
  else if (typeof raw === 'string') items = raw.includes('[') ? parseArray(raw) : [raw]
  else items = [raw]
  return [...new Set(items.map(itemText).filter((s) => s !== ''))]
}

function parseArray(raw: string): unknown[] {
  try {
    const parsed = JSON.parse(raw) as unknown
    if (Array.isArray(parsed)) return parsed
  } catch {
    // not JSON: the string is a single item
  }
  return [raw]
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
 * Casts a submitted (or stored) value to the field's canonical shape: a multiple field gets the
 * unique list, a single one its **last** item (or `''`).
 */
export function normalizeList(raw: unknown, field: Field): string[] | string {
  const items = toUniqueStrings(raw)
  return isMultiList(field) ? items : (items[items.length - 1] ?? '')
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
): string[] | string {
  const have = toUniqueStrings(current)
  const given = toUniqueStrings(raw)
  switch (modifier) {
    case 'append':
      return normalizeList([...have, ...given], field)
    case 'prepend':
      return normalizeList([...given, ...have], field)
    case 'remove': {
      const drop = new Set(given)
      return normalizeList(
        have.filter((s) => !drop.has(s)),
        field,
      )
    }
  }
}

/** Canonical value → bound parameter: JSON text for a list, the string otherwise. */
export function listToDb(value: unknown, field: Field): string {
  const v = normalizeList(value, field)
  return Array.isArray(v) ? JSON.stringify(v) : v
}

/** Stored value → canonical value; tolerates a field switched between single and multiple. */
export function listFromDb(raw: unknown, field: Field): string[] | string {
  // Fast paths for what `listToDb` wrote: a plain string, or a JSON list already canonical.
  if (typeof raw === 'string') {
    const multi = isMultiList(field)
    if (!multi && !raw.includes('[')) return raw
    if (multi && raw.startsWith('[')) {
      const items = parseArray(raw)
      if (isCanonicalList(items)) return items
    }
  }
  return normalizeList(raw, field)
}

/** True for a list of unique non-empty strings. */
function isCanonicalList(items: unknown[]): items is string[] {
  for (const item of items) if (typeof item !== 'string' || item === '') return false
  return items.length < 2 || new Set(items).size === items.length
}
