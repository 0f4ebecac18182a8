/**
 * The collection editor's draft: the collection as the API returns it (PocketBase's flat
 * `fields`, auth options at the top level), with a UI key and a "removed" mark per field, and
 * the body sent back on save.
 */
import type { CollectionModel } from 'pocketbase'

/** A field as edited: its flat JSON plus a stable UI key and removal/new marks. */
export interface FieldDraft {
  /** Stable key for rendering (the field id, or a temporary one for a new field). */
  key: string
  /** The field as it will be sent (flat options, PocketBase's shape). */
  data: Record<string, unknown>
  /** The field as stored, for a field of the saved collection; null for a new one. */
  original: Record<string, unknown> | null
  /** Marked for removal (restorable until saved). */
  removed: boolean
}

/** The draft of a whole collection. */
export interface Draft {
  /** Every key of the collection but `fields`/`schema`/`authOptions`. */
  base: Record<string, unknown>
  fields: FieldDraft[]
}

/** Field types offered for new fields, in PocketBase's order. */
export const fieldTypes = [
  'text',
  'editor',
  'number',
  'bool',
  'email',
  'url',
  'date',
  'autodate',
  'select',
  'file',
  'relation',
  'json',
  'geoPoint',
] as const

/** Types whose values are lists when `maxSelect > 1`. */
export const multiTypes = new Set(['select', 'relation', 'file'])

/** The record rules, with their labels. */
export const ruleLabels: readonly [string, string][] = [
  ['listRule', 'List/Search rule'],
  ['viewRule', 'View rule'],
  ['createRule', 'Create rule'],
  ['updateRule', 'Update rule'],
  ['deleteRule', 'Delete rule'],
]

/** The two extra rules of auth collections. */
export const authRuleLabels: readonly [string, string][] = [
  ['authRule', 'Authentication rule'],
  ['manageRule', 'Manage rule'],
]

/** A JSON value as text: strings as they are, numbers and booleans printed, anything else ''. */
export function str(v: unknown): string {
  if (typeof v === 'string') return v
  if (typeof v === 'number' || typeof v === 'boolean') return String(v)
  return ''
}

let seq = 0
/** A temporary key for a new field. */
export function newKey(): string {
  seq += 1
  return `new_${Date.now().toString(36)}_${seq}`
}

/** Options a new field of `type` starts with (what the server would fill in anyway). */
export function defaultOptions(type: string): Record<string, unknown> {
  switch (type) {
    case 'select':
      return { values: [], maxSelect: 1 }
    case 'relation':
      return { collectionId: '', maxSelect: 1, minSelect: 0, cascadeDelete: false }
    case 'file':
      return { maxSelect: 1, maxSize: 0, mimeTypes: [], thumbs: [], protected: false }
    case 'autodate':
      return { onCreate: true, onUpdate: false }
    default:
      return {}
  }
}

/** The draft of a collection as returned by the API. */
export function toDraft(c: Record<string, unknown>): Draft {
  const base = structuredClone(c)
  const fields = Array.isArray(base.fields) ? (base.fields as Record<string, unknown>[]) : []
  delete base.fields
  delete base.schema
  delete base.authOptions
  const oauth2 = base.oauth2 as { providers?: unknown } | undefined
  if (oauth2 && Array.isArray(oauth2.providers)) {
    // Providers the server returns have a stored (write-only) secret.
    oauth2.providers = oauth2.providers.map((p: Record<string, unknown>) => ({
      ...p,
      __stored: true,
    }))
  }
  return {
    base,
    fields: fields.map((f) => ({
      key: str(f.id) || newKey(),
      data: structuredClone(f),
      original: structuredClone(f),
      removed: false,
    })),
  }
}

/** True when the field's type changed from the stored one (it is replaced: a new field). */
export function typeChanged(f: FieldDraft): boolean {
  return f.original !== null && f.original.type !== f.data.type
}

/** The body of a create or update: flat fields, removed ones left out, replaced ones id-less. */
export function toBody(
  d: Draft,
  creating: boolean,
  original?: { name: string },
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...d.base }
  for (const k of ['created', 'updated', 'system']) delete body[k]
  if (creating && !body.id) delete body.id
  const oauth2 = body.oauth2 as { providers?: unknown } | undefined
  if (oauth2 && Array.isArray(oauth2.providers)) {
    body.oauth2 = {
      ...oauth2,
      providers: oauth2.providers.map((p: Record<string, unknown>) => {
        const { __stored: _s, ...rest } = p
        if (rest.clientSecret === '') delete rest.clientSecret
        return rest
      }),
    }
  }
  if (body.type === 'view') {
    // A view's fields come from its query.
    return body
  }
  if (Array.isArray(body.indexes)) {
    body.indexes = renameInIndexes(body.indexes as string[], renames(d), original, str(body.name))
  }
  body.fields = d.fields
    .filter((f) => !f.removed)
    .map((f) => {
      const out = { ...f.data }
      if (f.original === null || typeChanged(f)) delete out.id
      return out
    })
  return body
}

/** The number of values a multi field keeps (`maxSelect`, 0 and 1 both single). */
function maxSelect(f: Record<string, unknown>): number {
  const n = Number(f.maxSelect ?? 1)
  return Number.isFinite(n) ? Math.max(n, 1) : 1
}

/**
 * What a save would lose, one line per change: removed fields, replaced fields (type change),
 * multi → single lists (`select`, `relation`, `file` keep only their last value). Empty when
 * the save drops no data.
 */
export function dataLoss(d: Draft, original: CollectionModel | undefined): string[] {
  if (!original || d.base.type === 'view') return []
  const out: string[] = []
  for (const f of d.fields) {
    if (!f.original) continue
    const name = String(f.original.name)
    if (f.removed) {
      out.push(`Field "${name}" (${String(f.original.type)}) is deleted with all its values.`)
    } else if (typeChanged(f)) {
      out.push(
        `Field "${name}" changes type ${String(f.original.type)} → ${String(f.data.type)}: its values are deleted.`,
      )
    } else if (
      multiTypes.has(String(f.data.type)) &&
      maxSelect(f.original) > 1 &&
      maxSelect(f.data) <= 1
    ) {
      out.push(
        `Field "${name}" (${String(f.data.type)}) goes from multiple values to one: only one value of each record is kept.`,
      )
    }
  }
  return out
}

/** Renames a draft keeps (field id kept, name changed), for the save summary. */
export function renames(d: Draft): [string, string][] {
  return d.fields
    .filter((f) => f.original && !f.removed && !typeChanged(f) && f.original.name !== f.data.name)
    .map((f) => [String(f.original!.name), String(f.data.name)])
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/**
 * The indexes with renamed fields (and a renamed collection, after `ON`) renamed too, as
 * PocketBase's dashboard does: an index naming the old column would fail the save.
 */
export function renameInIndexes(
  indexes: string[],
  fieldRenames: [string, string][],
  original: { name: string } | undefined,
  newName?: string,
): string[] {
  return indexes.map((ix) => {
    let out = ix
    for (const [from, to] of fieldRenames) {
      // A bare, backticked, double-quoted or bracketed identifier, never part of a longer name.
      const re = new RegExp(`([\`"[]?)\\b${escapeRe(from)}\\b([\`"\\]]?)`, 'g')
      const on = /\bON\b/i.exec(out)
      if (!on) continue
      // Only after ON (the index's own name comes before it).
      const head = out.slice(0, on.index)
      // Never inside a '…' string literal (the odd parts of the split).
      const tail = out
        .slice(on.index)
        .split(/('(?:[^']|'')*')/)
        .map((part, i) =>
          i % 2 ? part : part.replace(re, (_m, a: string, b: string) => `${a}${to}${b}`),
        )
        .join('')
      out = head + tail
    }
    if (original && newName && original.name !== newName) {
      out = out.replace(
        new RegExp(`(\\bON\\s+[\`"[]?)${escapeRe(original.name)}([\`"\\]]?)`, 'i'),
        (_m, a: string, b: string) => `${a}${newName}${b}`,
      )
    }
    return out
  })
}
