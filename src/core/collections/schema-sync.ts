import type { Db } from '../../store/db.js'
import type { App } from '../app.js'
import {
  junctionTable,
  type ColumnSpec,
  type JunctionSpec,
  type SchemaManager,
} from '../../store/schema.js'
import { getFieldType } from '../fields/registry.js'
import { hasJunction } from '../rules/junction.js'
import { desiredIndexes } from './indexes.js'
import type { Collection, Field } from './model.js'

function columnOf(f: Field): ColumnSpec {
  if (f.name === 'id') return { name: 'id', kind: 'text', primaryKey: true }
  const ft = getFieldType(f.type)
  if (!ft) throw new Error(`unknown field type ${f.type}`)
  return { name: f.name, kind: ft.column(f) }
}

/** The junction tables a collection's table should have (the filter compiler reads them). */
export function wantedJunctions(c: Collection): JunctionSpec[] {
  return c.fields
    .filter((f) => hasJunction(c, f))
    .map((f) => ({ name: junctionTable(c.id, f.id), column: f.name }))
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
    if (next.system && (await schema.exists(db, next.name))) {
      // A system table that is there already (PocketBase's `_logs` in a PocketBase folder) is
      // adopted: it gets the columns it lacks, its rows and its own indexes stay.
      const have = new Set(await schema.columnNames(db, next.name))
      for (const f of next.fields) {
        if (!have.has(f.name)) await schema.addColumn(db, next.name, columnOf(f))
      }
    } else await schema.createTable(db, next.name, next.fields.map(columnOf))
    await syncIndexes(schema, db, next, false)
    await schema.syncJunctions(db, next.name, wantedJunctions(next))
    return
  }
  if (prev.name !== next.name) await schema.renameTable(db, prev.name, next.name)
  // Junction triggers name their column: they go while columns are dropped, renamed or
  // converted, and come back (with the junctions' rows kept) at the end.
  const altered = prev.fields.some((f) => {
    const n = next.fields.find((x) => x.id === f.id)
    return !n || n.name !== f.name || columnOf(n).kind !== columnOf(f).kind
  })
  const wanted = wantedJunctions(next)
  const gone = wantedJunctions(prev).filter((j) => !wanted.some((w) => w.name === j.name))
  if (altered || gone.length > 0) await schema.dropJunctions(db, next.name, false)
  for (const j of gone) await schema.dropTable(db, j.name)
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
  await schema.syncJunctions(db, next.name, wanted)
}

/** Drops a collection's table (with its junction tables) or view. */
export async function dropSchema(schema: SchemaManager, db: Db, c: Collection): Promise<void> {
  if (c.type === 'view') {
    await schema.dropView(db, c.name)
    return
  }
  await schema.dropJunctions(db, c.name, true)
  await schema.dropTable(db, c.name)
}

/**
 * Gives every base and auth collection the junction tables and implicit indexes it should have
 * (a database made before they existed, a restored backup, a PocketBase database), each
 * collection in its own transaction. Only what is missing is made: nothing is dropped, so an
 * index made by hand in the SQL console stays. Cheap when all is in place: catalogue reads per
 * collection. A failure is logged, not thrown: the start goes on (and the next one tries again),
 * as `upgradeSystemCollections` does.
 */
export async function ensureDerivedSchema(app: App): Promise<void> {
  const attempt = async (what: string, c: Collection, work: (db: Db) => Promise<void>) => {
    try {
      await app.runInTransaction((tx) => work(tx.dbFor(c)))
    } catch (err) {
      // NB: another instance starting on the same database may have made them meanwhile.
      app.logger.warn(`the ${what} of ${c.name} could not be made`, { error: String(err) })
    }
  }
  for (const c of app.collections.all()) {
    if (c.type === 'view') continue
    await attempt('junction tables', c, (db) =>
      app.schema.syncJunctions(db, c.name, wantedJunctions(c)),
    )
    await attempt('indexes', c, async (db) => {
      const have = await app.schema.listIndexes(db, c.name)
      for (const index of desiredIndexes(c)) {
        if (have.has(index.name)) continue
        // NB: a large table takes a while (about a second per million rows on SQLite).
        app.logger.info(`creating index ${index.name} of ${c.name}`)
        await app.schema.createIndex(db, c.name, index)
      }
    })
  }
}
