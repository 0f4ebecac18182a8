import type { Db } from '../../store/db.js'
import type { ColumnSpec, SchemaManager } from '../../store/schema.js'
import { getFieldType } from '../fields/registry.js'
import { desiredIndexes } from './indexes.js'
import type { Collection, Field } from './model.js'

function columnOf(f: Field): ColumnSpec {
  if (f.name === 'id') return { name: 'id', kind: 'text', primaryKey: true }
  const ft = getFieldType(f.type)
  if (!ft) throw new Error(`unknown field type ${f.type}`)
  return { name: f.name, kind: ft.column(f) }
}

async function syncIndexes(
  schema: SchemaManager,
  db: Db,
  c: Collection,
  dropOnly: boolean,
): Promise<void> {
  const want = new Map(desiredIndexes(c).map((i) => [i.name, i]))
  const have = await schema.listIndexes(db, c.name)
  for (const [name, def] of have) {
    const spec = want.get(name)
    if (!spec || schema.indexDefinition(c.name, spec) !== def) await schema.dropIndex(db, name)
  }
  if (dropOnly) return
  const now = await schema.listIndexes(db, c.name)
  for (const [name, spec] of want) if (!now.has(name)) await schema.createIndex(db, c.name, spec)
}

/**
 * Brings the database in line with a collection: creates, alters or recreates its table or
 * view. Runs inside the caller's transaction, so a failure leaves the old schema.
 */
export async function syncSchema(
  schema: SchemaManager,
  db: Db,
  next: Collection,
  prev: Collection | undefined,
): Promise<void> {
  if (next.type === 'view') {
    if (prev) await schema.dropView(db, prev.name)
    await schema.createView(db, next.name, next.viewQuery ?? '')
    return
  }
  if (!prev) {
    await schema.createTable(db, next.name, next.fields.map(columnOf))
    await syncIndexes(schema, db, next, false)
    return
  }
  if (prev.name !== next.name) await schema.renameTable(db, prev.name, next.name)
  // Indexes go first: SQLite refuses to drop or convert an indexed column.
  const unchanged = prev.fields.filter((f) =>
    next.fields.some(
      (n) => n.id === f.id && n.name === f.name && columnOf(n).kind === columnOf(f).kind,
    ),
  )
  // Indexes over unchanged columns survive; parseIndex skips user indexes on other columns.
  const interim: Collection = { ...next, fields: unchanged }
  await syncIndexes(schema, db, interim, true)
  for (const f of prev.fields) {
    if (!next.fields.some((n) => n.id === f.id)) await schema.dropColumn(db, next.name, f.name)
  }
  for (const f of next.fields) {
    const old = prev.fields.find((p) => p.id === f.id)
    if (!old) {
      await schema.addColumn(db, next.name, columnOf(f))
      continue
    }
    if (old.name !== f.name) await schema.renameColumn(db, next.name, old.name, f.name)
    const [from, to] = [columnOf(old).kind, columnOf(f).kind]
    if (from !== to) await schema.convertColumn(db, next.name, f.name, to === 'json')
  }
  await syncIndexes(schema, db, next, false)
}

/** Drops a collection's table or view. */
export async function dropSchema(schema: SchemaManager, db: Db, c: Collection): Promise<void> {
  if (c.type === 'view') await schema.dropView(db, c.name)
  else await schema.dropTable(db, c.name)
}
