/**
 * Row copying between two stores of any engines (`svcbase copy`, `cli/copy.ts`): a table read
 * in keyset pages from one `Db` and written into the same table of another, values converted
 * by column kind through each side's `Dialect` (JSON read as text, booleans as booleans, blobs
 * as bytes). Nothing here names an engine.
 */
import type { Db, Row } from '../store/db.js'
import type { ColumnKind } from '../store/dialect.js'
import type { ColumnSpec } from '../store/schema.js'
import { ident, join, param, raw, sql, type Sql } from '../store/sql.js'
import { getFieldType } from './fields/registry.js'
import type { Collection } from './collections/model.js'

/** Rows read from the source per query (keyset pages: a big table never sits in memory). */
export const PAGE_ROWS = 1000

/** Bound values per INSERT statement at most (far below every engine's limit). */
const MAX_PARAMS_PER_INSERT = 2000

/** The columns of the `_collections` system table, as both engines' migrations create it. */
export const COLLECTIONS_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', kind: 'text' },
  { name: 'name', kind: 'text' },
  { name: 'type', kind: 'text' },
  { name: 'system', kind: 'bool' },
  { name: 'fields', kind: 'json' },
  { name: 'indexes', kind: 'json' },
  { name: 'listRule', kind: 'text' },
  { name: 'viewRule', kind: 'text' },
  { name: 'createRule', kind: 'text' },
  { name: 'updateRule', kind: 'text' },
  { name: 'deleteRule', kind: 'text' },
  { name: 'options', kind: 'json' },
  { name: 'created', kind: 'text' },
  { name: 'updated', kind: 'text' },
]

/** The columns of the `_params` system table. */
export const PARAMS_COLUMNS: readonly ColumnSpec[] = [
  { name: 'id', kind: 'text' },
  { name: 'value', kind: 'json' },
  { name: 'created', kind: 'text' },
  { name: 'updated', kind: 'text' },
]

/** The columns of PocketBase's `_migrations` table (the applied migration files). */
export const MIGRATIONS_COLUMNS: readonly ColumnSpec[] = [
  { name: 'file', kind: 'text' },
  { name: 'applied', kind: 'number' },
]

/** The columns of a base or auth collection's table, one per field (as schema sync makes them). */
export function collectionColumns(c: Collection): ColumnSpec[] {
  return c.fields.map((f) => {
    if (f.name === 'id') return { name: 'id', kind: 'text' }
    const ft = getFieldType(f.type)
    if (!ft) throw new Error(`collection ${c.name}: unknown field type ${f.type}`)
    return { name: f.name, kind: ft.column(f) }
  })
}

/** What to copy: a table, its columns, and how its rows are ordered. */
export interface CopyTable {
  table: string
  columns: readonly ColumnSpec[]
  /**
   * `rowid`: the insertion order (the dialect's row order column, when it has one; else `id`).
   * `id`: by `id` (system tables, which have no row order column on every engine).
   * `file`: by `file` (`_migrations`, keyed by its file name).
   */
  order: 'rowid' | 'id' | 'file'
  /** Only the rows matching this condition (over the table's columns), when given. */
  where?: Sql
}

/** The value read from the source, as the target's column of `kind` takes it. */
function convert(value: unknown, kind: ColumnKind): unknown {
  if (value === null || value === undefined) return null
  switch (kind) {
    case 'bool':
      return value === true || value === 1 || value === 1n || value === '1' || value === 't'
    case 'number':
      return typeof value === 'bigint' ? Number(value) : value
    case 'json':
      // Read through `jsonAsText`, so JSON text; PocketBase writes some (`_params`) as a BLOB.
      if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
      return typeof value === 'string' ? value : JSON.stringify(value)
    case 'blob':
      return Buffer.isBuffer(value) ? value : Buffer.from(value as Uint8Array)
    case 'text':
      if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8')
      return typeof value === 'string' ? value : JSON.stringify(value)
  }
}

/** The alias the keyset column is read under (no field may start with `_`+`_copy`). */
const KEY = '__copy_key'

/**
 * Copies every row of `spec.table` from `from` into `to` (the caller's transaction, usually),
 * in the source's order, a page at a time; `progress` hears the running count after each page.
 * Returns the number of rows copied. The target table must have the same columns.
 */
export async function copyRows(
  from: Db,
  to: Db,
  spec: CopyTable,
  progress: (copied: number) => void = () => {},
): Promise<number> {
  const src = from.dialect
  const alias = 't'
  const key =
    (spec.order === 'rowid' ? src.rowid(alias) : null) ??
    sql`${ident(alias)}.${ident(spec.order === 'file' ? 'file' : 'id')}`
  const reads = spec.columns.map((c) => {
    const col = sql`${ident(alias)}.${ident(c.name)}`
    return sql`${c.kind === 'json' ? src.jsonAsText(col) : col} AS ${ident(c.name)}`
  })
  const names = join(spec.columns.map((c) => ident(c.name)))
  const perInsert = Math.max(1, Math.floor(MAX_PARAMS_PER_INSERT / spec.columns.length))
  let last: unknown = undefined
  let copied = 0
  for (;;) {
    const conditions: Sql[] = []
    if (spec.where) conditions.push(spec.where)
    if (last !== undefined) conditions.push(sql`${key} > ${last}`)
    const where = conditions.length > 0 ? sql` WHERE ${join(conditions, ' AND ')}` : raw('')
    const rows = await from.all<Row>(
      sql`SELECT ${join(reads)}, ${key} AS ${ident(KEY)} FROM ${ident(spec.table)} AS ${ident(alias)}${where} ORDER BY ${key} LIMIT ${PAGE_ROWS}`,
    )
    if (rows.length === 0) break
    for (let i = 0; i < rows.length; i += perInsert) {
      const tuples = rows
        .slice(i, i + perInsert)
        .map(
          (row) =>
            sql`(${join(
              spec.columns.map((c) =>
                to.dialect.castColumn(param(convert(row[c.name], c.kind)), c.kind),
              ),
            )})`,
        )
      await to.run(sql`INSERT INTO ${ident(spec.table)} (${names}) VALUES ${join(tuples)}`)
    }
    copied += rows.length
    last = rows[rows.length - 1]![KEY]
    progress(copied)
    if (rows.length < PAGE_ROWS) break
  }
  return copied
}

/** The number of rows of `table` (matching `where`, when given). */
export async function countRows(db: Db, table: string, where?: Sql): Promise<number> {
  const cond = where ? sql` WHERE ${where}` : raw('')
  const row = await db.get<{ n: unknown }>(
    sql`SELECT COUNT(*) AS ${ident('n')} FROM ${ident(table)}${cond}`,
  )
  return Number(row?.n ?? 0)
}
