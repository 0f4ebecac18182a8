import type { QueryColumn } from '../../store/db.js'
import type { App } from '../app.js'
import { makeField } from './defaults.js'
import type { Collection, Field } from './model.js'

/** A field for a view column that maps to no source field. */
function fieldForExpression(col: QueryColumn): Field {
  const t = (col.declaredType ?? '').toUpperCase()
  if (col.name === 'id')
    return makeField({
      name: 'id',
      type: 'text',
      system: true,
      options: { primaryKey: true, min: 0, max: 0, pattern: '', autogeneratePattern: '' },
    })
  if (/INT|REAL|NUM|FLOA|DOUB/.test(t)) return makeField({ name: col.name, type: 'number' })
  if (/BOOL/.test(t)) return makeField({ name: col.name, type: 'bool' })
  if (/TEXT|CHAR|CLOB/.test(t)) return makeField({ name: col.name, type: 'text' })
  return makeField({ name: col.name, type: 'json' })
}

/**
 * Checks a view's query (one SELECT that returns an `id` column) and derives its fields: a
 * column taken from a collection keeps that field's type and options. Returns a problem text,
 * or null when the view is valid (its `fields` are then replaced in place).
 */
export async function deriveViewFields(app: App, view: Collection): Promise<string | null> {
  const query = (view.viewQuery ?? '').trim().replace(/;\s*$/, '')
  if (!/^(SELECT|WITH)\b/i.test(query)) return 'the query must be a single SELECT statement.'
  let columns: QueryColumn[]
  try {
    columns = await app.schema.describeQuery(app.db, query)
  } catch (err) {
    return err instanceof Error ? err.message : String(err)
  }
  if (columns.some((c) => c.name === '*')) return 'wildcard columns are not supported.'
  if (!columns.some((c) => c.name === 'id')) return 'missing required "id" column.'
  const names = new Set<string>()
  const fields: Field[] = []
  for (const col of columns) {
    if (names.has(col.name)) return `duplicated column "${col.name}".`
    names.add(col.name)
    const source = col.table ? app.registry.find(col.table) : undefined
    const sourceField = source?.fields.find((f) => f.name === col.column)
    const previous = view.fields.find((f) => f.name === col.name)
    if (sourceField && col.name !== 'id') {
      fields.push({
        ...sourceField,
        id: previous?.id ?? sourceField.id,
        name: col.name,
        system: false,
        hidden: false,
        unique: false,
      })
    } else {
      const f = fieldForExpression(col)
      fields.push(previous && previous.type === f.type ? { ...f, id: previous.id } : f)
    }
  }
  view.viewQuery = query
  view.fields = fields
  return null
}
