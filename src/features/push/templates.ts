/**
 * Push trigger templates (SPEC §2.7): `{{field}}` placeholders filled from the triggering record.
 * Hidden fields (and an auth record's password hash and token key) are never filled in: they
 * render empty, as an unknown field does.
 */

import type { Collection } from '../../core/collections/model.js'
import type { RecordData } from '../../core/request-info.js'

const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g
const NEVER = new Set(['password', 'tokenKey'])

/** The record as a template may see it: hidden fields removed. */
export function visibleRecord(collection: Collection, record: RecordData): RecordData {
  const out: RecordData = {}
  const hidden = new Set(collection.fields.filter((f) => f.hidden).map((f) => f.name))
  for (const [k, v] of Object.entries(record)) {
    if (!hidden.has(k) && !NEVER.has(k)) out[k] = v
  }
  return out
}

/** A value as text: strings as they are, lists joined by ", ", objects as JSON, null empty. */
export function asText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.map(asText).join(', ')
  if (typeof value === 'object') return JSON.stringify(value)
  if (typeof value === 'number' || typeof value === 'boolean') return String(value)
  return ''
}

/** Fills `{{field}}` placeholders from the record. */
export function render(template: string, record: RecordData): string {
  return template.replace(PLACEHOLDER, (_, name: string) =>
    Object.prototype.hasOwnProperty.call(record, name) ? asText(record[name]) : '',
  )
}
