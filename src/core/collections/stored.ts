/**
 * The `_collections` row as it is stored: PocketBase's own format (0.23+), so a data folder opens
 * in either server. Fields are stored flat (options beside `id`, `name`, `type`), options hold the
 * auth options at their top level (with their token secrets) or a view's `viewQuery`. svcbase's own
 * extras ride along as keys PocketBase ignores: a field's `unique` when set, a collection's
 * `database`. Rows svcbase wrote before (options nested in `options`, auth options under
 * `authOptions`) still read.
 */
import { getFieldType } from '../fields/registry.js'
import { fieldToFlat } from './codec.js'
import { defaultAuthOptions } from './defaults.js'
import type { DatabaseName } from '../../store/store.js'
import type { AuthOptions, Collection, Field } from './model.js'

type Obj = Record<string, unknown>

const isObject = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The keys of a field (stored or sent flat) that are not options. */
export const FIELD_KEYS: ReadonlySet<string> = new Set([
  'id',
  'name',
  'type',
  'required',
  'unique',
  'system',
  'hidden',
  'presentable',
  'help',
])

/** A field as PocketBase stores it: flat; `unique` (svcbase's) only when set. */
export function fieldToStored(f: Field): Obj {
  return { ...fieldToFlat(f), ...(f.unique ? { unique: true } : {}) }
}

/** A stored field, flat (PocketBase's and svcbase's now) or with nested `options` (svcbase's before). */
export function fieldFromStored(raw: Obj): Field {
  const type = typeof raw.type === 'string' ? raw.type : ''
  let options: Obj
  if (isObject(raw.options)) options = raw.options
  else {
    options = {}
    for (const [k, v] of Object.entries(raw)) if (!FIELD_KEYS.has(k)) options[k] = v
  }
  // A folder of an older PocketBase may lack options added since: the type's defaults fill them.
  const defaults = getFieldType(type)?.defaultOptions() ?? {}
  return {
    id: typeof raw.id === 'string' ? raw.id : '',
    name: typeof raw.name === 'string' ? raw.name : '',
    type,
    required: raw.required === true,
    unique: raw.unique === true,
    system: raw.system === true,
    hidden: raw.hidden === true,
    presentable: raw.presentable === true,
    help: typeof raw.help === 'string' ? raw.help : '',
    options: { ...defaults, ...options },
  }
}

/** The `options` column of a collection: PocketBase's keys, then svcbase's `database`. */
export function optionsToStored(c: Collection): Obj {
  return {
    ...(c.type === 'auth' && c.authOptions ? c.authOptions : {}),
    ...(c.type === 'view' ? { viewQuery: c.viewQuery ?? '' } : {}),
    ...(c.database ? { database: c.database } : {}),
  }
}

/** What the `options` column holds, read from either format. */
export function optionsFromStored(
  type: string,
  raw: Obj,
): { viewQuery?: string; authOptions?: AuthOptions; database?: DatabaseName } {
  const database =
    raw.database === 'auxiliary' || raw.database === 'main' ? raw.database : undefined
  const out: { viewQuery?: string; authOptions?: AuthOptions; database?: DatabaseName } = {}
  if (database) out.database = database
  if (typeof raw.viewQuery === 'string') out.viewQuery = raw.viewQuery
  if (isObject(raw.authOptions)) out.authOptions = raw.authOptions as unknown as AuthOptions
  else if (type === 'auth') {
    const defaults = defaultAuthOptions() as unknown as Obj
    const merged: Obj = {}
    for (const [k, d] of Object.entries(defaults)) {
      const v = raw[k]
      // Nested groups keep the defaults of keys an older PocketBase did not write.
      merged[k] = isObject(d) && isObject(v) ? { ...d, ...v } : v === undefined ? d : v
    }
    out.authOptions = merged as unknown as AuthOptions
  }
  return out
}
