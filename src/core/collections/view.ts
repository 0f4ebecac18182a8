import type { QueryColumn } from '../../store/db.js'
import type { App } from '../app.js'
import { getFieldType } from '../fields/registry.js'
import { defaultFieldId, makeField } from './defaults.js'
import type { Collection, Field } from './model.js'
import {
  columnReference,
  hasManyStatements,
  isReadableColumn,
  readSelect,
  typeOfExpression,
  type SelectShape,
} from './view-columns.js'

/** The problem of a view query without an `id` column, in PocketBase's words. */
export const MISSING_VIEW_ID =
  "missing required id column (you can use `(ROW_NUMBER() OVER()) as id` if you don't have one)."

/** PocketBase's `id` field of a view: required, with the default id pattern, never generated. */
function viewIdField(): Field {
  return makeField({
    name: 'id',
    type: 'text',
    required: true,
    system: true,
    options: {
      min: 0,
      max: 0,
      pattern: '^[a-z0-9]+$',
      autogeneratePattern: '',
      primaryKey: true,
    },
  })
}

/** A field for a view column that maps to no source field. */
function fieldForExpression(col: QueryColumn, expression: string | undefined): Field {
  const t = (col.declaredType ?? '').toUpperCase()
  const byExpression = expression === undefined ? null : typeOfExpression(expression)
  const type =
    byExpression ??
    (/INT|REAL|NUM|FLOA|DOUB/.test(t)
      ? 'number'
      : /BOOL/.test(t)
        ? 'bool'
        : /TEXT|CHAR|CLOB/.test(t)
          ? 'text'
          : 'json')
  const options = { ...getFieldType(type)?.defaultOptions() }
  if (type === 'number' && /^count\s*\(/i.test(expression ?? '')) options.onlyInt = true
  // PocketBase gives an expression's json field a maxSize of 1.
  if (type === 'json') options.maxSize = 1
  return makeField({ name: col.name, type, options })
}

/** A collection field a view column reads, with its collection. */
type SourceField = { collection: Collection; field: Field }

/**
 * The collection field a view column reads: the engine's origin table and column, else (for a
 * column of another view, whose origin the engine does not know) a plain `alias.name` or
 * `name` resolved through the query's FROM sources.
 */
function findSourceField(
  app: App,
  col: QueryColumn,
  expression: string | undefined,
  shape: SelectShape | null,
): SourceField | undefined {
  const fieldOf = (name: string | undefined, column: string): SourceField | undefined => {
    const collection = name ? app.registry.find(name) : undefined
    const field = collection?.fields.find((f) => f.name === column)
    return collection && field ? { collection, field } : undefined
  }
  if (col.table) return fieldOf(col.table, col.column ?? '')
  const ref = expression === undefined ? null : columnReference(expression)
  if (!ref || !shape) return undefined
  const [qualifier, name] = ref
  const names = qualifier
    ? [shape.sources.get(qualifier.toLowerCase())]
    : [...new Set(shape.sources.values())]
  const found = names.map((n) => fieldOf(n, name)).filter((f) => f !== undefined)
  return found.length === 1 ? found[0] : undefined
}

/** The deepest nesting of views {@link viewFieldSource} follows, as PocketBase's. */
const MAX_NESTED_VIEWS = 5

/**
 * The collection field a view's field is read from, following views of views to a base or
 * auth collection (PocketBase's `FindRecordByViewFile`), or undefined when the column is an
 * expression or the view's query no longer reads.
 */
export async function viewFieldSource(
  app: App,
  view: Collection,
  fieldName: string,
  depth = 0,
): Promise<SourceField | undefined> {
  if (view.type !== 'view' || depth > MAX_NESTED_VIEWS) return undefined
  const query = (view.viewQuery ?? '').trim()
  let columns: QueryColumn[]
  try {
    columns = await app.schema.describeQuery(app.db, query)
  } catch {
    return undefined
  }
  const shape = readSelect(
    query,
    columns.map((c) => c.name),
  )
  const n = columns.findIndex((c) => c.name === fieldName)
  if (n < 0) return undefined
  const expression = shape?.expressions[n]
  if (expression !== undefined && typeOfExpression(expression) !== null) return undefined
  const source = findSourceField(app, columns[n]!, expression, shape)
  if (source?.collection.type !== 'view') return source
  return viewFieldSource(app, source.collection, source.field.name, depth + 1)
}

/**
 * Checks a view's query (one SELECT that returns an `id` column) and derives its fields: a
 * column taken from a collection keeps that field's type and options, a cast or an aggregate
 * gets PocketBase's type for it. Returns a problem text, or null when the view is valid (its
 * `viewQuery` and `fields` are then replaced in place).
 */
export async function deriveViewFields(app: App, view: Collection): Promise<string | null> {
  let query = (view.viewQuery ?? '').trim().replace(/;\s*$/, '')
  if (hasManyStatements(query)) return 'multiple statements are not supported.'
  if (!/^(SELECT|WITH)\b/i.test(query)) return 'the query must be a single SELECT statement.'
  let columns: QueryColumn[]
  try {
    query = await app.schema.viewQuery(app.db, query)
    columns = await app.schema.describeQuery(app.db, query)
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
  if (columns.some((c) => c.name === '*')) return 'wildcard columns are not supported.'
  if (!columns.some((c) => c.name === 'id')) return MISSING_VIEW_ID
  const shape = readSelect(
    query,
    columns.map((c) => c.name),
  )
  for (const [n, col] of columns.entries()) {
    const expression = shape?.expressions[n]
    if (expression === undefined || isReadableColumn(expression)) continue
    const written = expression === col.name ? expression : `${expression} AS ${col.name}`
    return `invalid identifier parts [${written}].`
  }
  const names = new Set<string>()
  const ids = new Set<string>()
  const fields: Field[] = []
  for (const [n, col] of columns.entries()) {
    if (names.has(col.name)) return `duplicated column "${col.name}".`
    names.add(col.name)
    const expression = shape?.expressions[n]
    const sourceField = findSourceField(app, col, expression, shape)
    let f: Field
    if (col.name === 'id') f = viewIdField()
    else if (sourceField && (expression === undefined || typeOfExpression(expression) === null))
      f = { ...sourceField.field, name: col.name, system: false, hidden: false, unique: false }
    else f = fieldForExpression(col, expression)
    const previous = view.fields.find((p) => p.name === col.name && p.type === f.type)
    // Two columns cloned from fields with one id (`a.created`, `b.created`) need their own ids.
    let id = previous?.id ?? f.id
    if (ids.has(id)) id = defaultFieldId(f.type, f.name)
    for (let i = 2; ids.has(id); i++) id = `${defaultFieldId(f.type, f.name)}_${i}`
    ids.add(id)
    fields.push({ ...f, id })
  }
  view.viewQuery = query
  view.fields = fields
  return null
}
