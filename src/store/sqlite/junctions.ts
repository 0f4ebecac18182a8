/**
 * Junction tables of multi-valued fields on SQLite (see `JunctionSpec`): a WITHOUT ROWID table
 * whose primary key `(value, record)` is its only b-tree (a write touches one page per item),
 * kept exact by three triggers on the collection table. Its rows are the distinct non-NULL
 * values `json_each(<column>)` yields per record; `value` has no declared type, so it keeps the
 * storage class `json_each` gives (a number stays a number). A record's rows are deleted
 * through its old list's values (the key's prefix), so no second index on `record` is needed.
 */
import type { Db } from '../db.js'
import { JUNCTION_PREFIX, type JunctionSpec } from '../schema.js'
import { raw, sql } from '../sql.js'
import { sqliteDialect } from './sqlite-dialect.js'

const q = (name: string): string => sqliteDialect.quoteIdent(name)

/** Trigger name suffixes: after insert, after update, after delete. */
const SUFFIXES = ['_ai', '_au', '_ad'] as const

/**
 * The items of the JSON document `doc` as `json_each` rows aliased `e`. NB: a malformed
 * document has none (the filter's `json_each` would fail on it; a write must not).
 */
const items = (doc: string): string =>
  `json_each(CASE WHEN json_valid(${doc}) THEN ${doc} END) AS e`

/**
 * `INSERT` of the rows of record `id` whose list is `doc`. NB: DISTINCT rather than OR IGNORE,
 * which the conflict clause of an outer statement would override.
 */
const fill = (name: string, id: string, doc: string, from = ''): string =>
  `INSERT INTO ${name} (value, record) SELECT DISTINCT e.value, ${id} FROM ${from}${items(doc)} WHERE e.value IS NOT NULL`

/** The `CREATE TRIGGER` statements of a junction, in `SUFFIXES` order. */
function triggerSql(table: string, j: JunctionSpec): string[] {
  const [t, c, name] = [q(table), q(j.column), q(j.name)]
  const insert = `${fill(name, 'NEW."id"', `NEW.${c}`)};`
  const clear = `DELETE FROM ${name} WHERE value IN (SELECT e.value FROM ${items(`OLD.${c}`)}) AND record = OLD."id";`
  const trigger = (suffix: string) => q(`${j.name}${suffix}`)
  return [
    `CREATE TRIGGER ${trigger('_ai')} AFTER INSERT ON ${t} BEGIN ${insert} END`,
    `CREATE TRIGGER ${trigger('_au')} AFTER UPDATE OF "id", ${c} ON ${t} WHEN OLD."id" IS NOT NEW."id" OR OLD.${c} IS NOT NEW.${c} BEGIN ${clear} ${insert} END`,
    `CREATE TRIGGER ${trigger('_ad')} AFTER DELETE ON ${t} BEGIN ${clear} END`,
  ]
}

/** The junction triggers on `table`: trigger name → its SQL. */
async function junctionTriggers(db: Db, table: string): Promise<Map<string, string>> {
  const rows = await db.all<{ name: string; sql: string }>(
    sql`SELECT name, sql FROM sqlite_master WHERE type = 'trigger'
         AND tbl_name = ${table} COLLATE NOCASE AND substr(name, 1, ${JUNCTION_PREFIX.length}) = ${JUNCTION_PREFIX}`,
  )
  return new Map(rows.map((r) => [r.name, r.sql]))
}

/** The junction a trigger name belongs to. */
const junctionOf = (trigger: string): string => trigger.slice(0, -3)

async function createJunction(db: Db, table: string, j: JunctionSpec): Promise<void> {
  const name = q(j.name)
  // Names are quoted identifiers of validated collection and field names and ids.
  await db.run(
    raw(
      `CREATE TABLE ${name} (value, record TEXT NOT NULL, PRIMARY KEY (value, record)) WITHOUT ROWID`,
    ),
  )
  await db.run(raw(fill(name, 't."id"', `t.${q(j.column)}`, `${q(table)} AS t, `)))
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const row = await db.get(
    sql`SELECT 1 AS found FROM sqlite_master WHERE type = 'table' AND name = ${name}`,
  )
  return row !== undefined
}

/** `SchemaManager.syncJunctions` on SQLite. */
export async function syncSqliteJunctions(
  db: Db,
  table: string,
  wanted: readonly JunctionSpec[],
): Promise<void> {
  const have = await junctionTriggers(db, table)
  const names = new Set(wanted.map((j) => j.name))
  for (const trigger of have.keys()) {
    const junction = junctionOf(trigger)
    if (names.has(junction)) continue
    await db.run(raw(`DROP TRIGGER IF EXISTS ${q(trigger)}`))
    await db.run(raw(`DROP TABLE IF EXISTS ${q(junction)}`))
  }
  for (const j of wanted) {
    // NB: a junction is filled when it is created, and its triggers keep it exact from then on;
    // they are dropped only for DDL in this same transaction (`dropJunctions`), no write between.
    if (!(await tableExists(db, j.name))) await createJunction(db, table, j)
    const statements = triggerSql(table, j)
    if (statements.every((text, i) => have.get(`${j.name}${SUFFIXES[i]}`) === text)) continue
    for (const s of SUFFIXES) await db.run(raw(`DROP TRIGGER IF EXISTS ${q(`${j.name}${s}`)}`))
    for (const text of statements) await db.run(raw(text))
  }
}

/** `SchemaManager.dropJunctions` on SQLite. */
export async function dropSqliteJunctions(db: Db, table: string, tables: boolean): Promise<void> {
  for (const trigger of (await junctionTriggers(db, table)).keys()) {
    await db.run(raw(`DROP TRIGGER IF EXISTS ${q(trigger)}`))
    if (tables) await db.run(raw(`DROP TABLE IF EXISTS ${q(junctionOf(trigger))}`))
  }
}
