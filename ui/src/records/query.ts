/**
 * The records list's pure helpers: the search bar's filter, the sort a header click gives, the
 * columns a user chose (localStorage), UTC date conversion for `datetime-local`, and which field
 * of a related collection labels a record.
 */
import type { CollectionField, CollectionModel, RecordModel } from 'pocketbase'
import { pb } from '../api'

/** Fields whose values are text, searched by a plain term. */
const TEXT_TYPES = new Set(['text', 'editor', 'email', 'url'])

/** True when the input has filter syntax (an operator), so it is sent as written. */
export function isRawFilter(input: string): boolean {
  return /[=~<>!]|&&|\|\|/.test(input)
}

/**
 * The filter the search bar sends: a plain term becomes an OR of `field ~ term` over the id and
 * the text fields the superuser can see; anything with an operator is sent as written.
 */
export function buildFilter(input: string, collection: CollectionModel): string {
  const term = input.trim()
  if (!term) return ''
  if (isRawFilter(term)) return term
  const names = [
    'id',
    ...collection.fields
      .filter((f) => TEXT_TYPES.has(f.type) && f.name !== 'id')
      .map((f) => f.name),
  ]
  return names.map((n) => pb.filter(`${n} ~ {:term}`, { term })).join(' || ')
}

/** The sort after a click on a column's header: first descending, then ascending, and so on. */
export function nextSort(current: string, field: string): string {
  return current === `-${field}` ? field : `-${field}`
}

/** The default sort: insertion order, newest first (none for views, which have no row id). */
export function defaultSort(collection: CollectionModel): string {
  return collection.type === 'view' ? '' : '-@rowid'
}

/** The fields that can be columns (passwords never are). */
export function columnFields(collection: CollectionModel): CollectionField[] {
  return collection.fields.filter((f) => f.type !== 'password' && f.name !== 'tokenKey')
}

const columnsKey = (c: CollectionModel) => `svcColumns_${c.id}`

/** The columns the superuser hid for a collection (new fields show by default). */
export function hiddenColumns(collection: CollectionModel): Set<string> {
  try {
    const raw: unknown = JSON.parse(window.localStorage.getItem(columnsKey(collection)) ?? '[]')
    return new Set(Array.isArray(raw) ? raw.filter((x): x is string => typeof x === 'string') : [])
  } catch {
    return new Set()
  }
}

/** Saves the hidden columns of a collection. */
export function saveHiddenColumns(collection: CollectionModel, hidden: Set<string>): void {
  window.localStorage.setItem(columnsKey(collection), JSON.stringify([...hidden]))
}

/** A stored date (`YYYY-MM-DD HH:MM:SS.sssZ`, UTC) as a `datetime-local` value (UTC, seconds). */
export function toInputDate(stored: unknown): string {
  if (typeof stored !== 'string' || stored.length < 19) return ''
  return stored.slice(0, 19).replace(' ', 'T')
}

/** A `datetime-local` value (read as UTC) as the stored form; '' stays '' (no date). */
export function fromInputDate(input: string): string {
  if (!input) return ''
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?$/.exec(input)
  if (!m) return input
  return `${m[1]} ${m[2]}:${m[3] ?? '00'}.${(m[4] ?? '').padEnd(3, '0')}Z`
}

/** The names of a collection's presentable fields (or a sensible fallback). */
export function presentableNames(collection: CollectionModel | undefined): string[] {
  if (!collection) return []
  const chosen = collection.fields.filter((f) => f.presentable).map((f) => f.name)
  if (chosen.length) return chosen
  const fallback = ['name', 'title', 'email', 'username', 'label']
  return collection.fields
    .filter((f) => fallback.includes(f.name))
    .map((f) => f.name)
    .slice(0, 1)
}

/** The label of a related record: its presentable fields, or its id. */
export function recordLabel(record: RecordModel, collection: CollectionModel | undefined): string {
  const parts = presentableNames(collection)
    .map((n) => record[n] as unknown)
    .filter((v) => v !== undefined && v !== null && v !== '')
    .map((v) => (typeof v === 'string' ? v : JSON.stringify(v)))
  return parts.length ? parts.join(', ') : record.id
}

/** A field's values as a list (single and multiple fields alike). */
export function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string')
  return typeof value === 'string' && value ? [value] : []
}

/** True when a select/relation/file field holds several values. */
export function isMulti(field: CollectionField): boolean {
  return Number(field.maxSelect ?? 1) > 1
}
