/**
 * Junction tables of multi-valued fields on PostgreSQL (see `JunctionSpec`): a table
 * `(value, record)` whose primary key is its only index, kept exact by one row trigger on the
 * collection table running a plpgsql function. Its rows are the distinct non-NULL values of
 * `postgresDialect.jsonEach(<column>)` per record (`json_array_elements_text` of the list, of
 * `[]` when the document is not an array). A record's rows are deleted through its old list's
 * values (the key's prefix). Names are unqualified: they resolve through the connection's
 * `search_path`, the store's schema.
 */
import type { Db } from '../db.js'
import { JUNCTION_PREFIX, type JunctionSpec } from '../schema.js'
import { raw, sql, type Sql } from '../sql.js'
import { postgresDialect } from './postgres-dialect.js'

const q = (name: string): string => postgresDialect.quoteIdent(name)

/** The parameterless SQL text of a fragment (DDL and function bodies take no parameters). */
function text(fragment: Sql): string {
  const compiled = postgresDialect.compile(fragment)
  if (compiled.params.length > 0) throw new Error('junction SQL must not bind parameters')
  return compiled.sql
}

/** `<value> FROM <items of doc>`: the list's items as the filter compiler's `jsonEach` reads them. */
function items(doc: string): { value: string; from: string } {
  const each = postgresDialect.jsonEach(raw(doc), 'e')
  return { value: text(each.value), from: text(each.from) }
}

/** `INSERT` of the rows of record `id` whose list is `doc` (`from`: rows it is read from). */
function fill(name: string, id: string, doc: string, from = ''): string {
  const e = items(doc)
  return `INSERT INTO ${name} (value, record) SELECT DISTINCT ${e.value}, ${id} FROM ${from}${e.from} WHERE ${e.value} IS NOT NULL`
}

/** The body of the trigger function of `j`. */
function functionBody(j: JunctionSpec): string {
  const name = q(j.name)
  const col = q(j.column)
  const old = items(`OLD.${col}`)
  return [
    'BEGIN',
    // NB: json has no equality: an update that leaves the id and the list's text as they were is skipped.
    `IF TG_OP = 'UPDATE' AND OLD."id" = NEW."id" AND OLD.${col}::text IS NOT DISTINCT FROM NEW.${col}::text THEN RETURN NULL; END IF;`,
    `IF TG_OP <> 'INSERT' THEN DELETE FROM ${name} WHERE value IN (SELECT ${old.value} FROM ${old.from}) AND record = OLD."id"; END IF;`,
    `IF TG_OP <> 'DELETE' THEN ${fill(name, 'NEW."id"', `NEW.${q(j.column)}`)}; END IF;`,
    'RETURN NULL;',
    'END',
  ].join('\n')
}

const fn = (j: JunctionSpec): string => `${j.name}_f`
const trigger = (j: JunctionSpec): string => `${j.name}_t`

/** The junction triggers on `table`: trigger name → its function's body. */
async function junctionTriggers(db: Db, table: string): Promise<Map<string, string>> {
  const rows = await db.all<{ name: string; body: string }>(
    sql`SELECT t.tgname AS name, p.prosrc AS body
          FROM pg_trigger t
          JOIN pg_class c ON c.oid = t.tgrelid
          JOIN pg_namespace n ON n.oid = c.relnamespace
          JOIN pg_proc p ON p.oid = t.tgfoid
         WHERE n.nspname = current_schema() AND c.relname = ${table} AND NOT t.tgisinternal
           AND left(t.tgname, ${JUNCTION_PREFIX.length}) = ${JUNCTION_PREFIX}`,
  )
  return new Map(rows.map((r) => [r.name, r.body]))
}

async function tableExists(db: Db, name: string): Promise<boolean> {
  const row = await db.get(
    sql`SELECT 1 AS found FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = current_schema() AND c.relkind = 'r' AND c.relname = ${name}`,
  )
  return row !== undefined
}

async function createJunction(db: Db, table: string, j: JunctionSpec): Promise<void> {
  const name = q(j.name)
  // Names are quoted identifiers of validated collection and field names and ids.
  await db.run(
    raw(
      `CREATE TABLE ${name} (value TEXT NOT NULL, record TEXT NOT NULL, PRIMARY KEY (value, record))`,
    ),
  )
  await db.run(
    raw(fill(name, 't."id"', `t.${q(j.column)}`, `${q(table)} AS t CROSS JOIN LATERAL `)),
  )
  // NB: statistics at once, so the planner drives lists from the key rather than scanning.
  await db.run(raw(`ANALYZE ${name}`))
}

async function dropTrigger(db: Db, table: string, name: string, junction: boolean): Promise<void> {
  await db.run(raw(`DROP TRIGGER IF EXISTS ${q(name)} ON ${q(table)}`))
  const base = name.slice(0, -2)
  await db.run(raw(`DROP FUNCTION IF EXISTS ${q(`${base}_f`)}()`))
  if (junction) await db.run(raw(`DROP TABLE IF EXISTS ${q(base)}`))
}

/** `SchemaManager.syncJunctions` on PostgreSQL. */
export async function syncPostgresJunctions(
  db: Db,
  table: string,
  wanted: readonly JunctionSpec[],
): Promise<void> {
  const have = await junctionTriggers(db, table)
  const names = new Set(wanted.map(trigger))
  for (const name of have.keys()) if (!names.has(name)) await dropTrigger(db, table, name, true)
  for (const j of wanted) {
    // NB: a junction is filled when it is created, and its trigger keeps it exact from then on;
    // it is dropped only for DDL in this same transaction (`dropJunctions`), no write between.
    if (!(await tableExists(db, j.name))) await createJunction(db, table, j)
    const body = functionBody(j)
    if (have.get(trigger(j)) === body) continue
    await db.run(
      raw(
        `CREATE OR REPLACE FUNCTION ${q(fn(j))}() RETURNS trigger LANGUAGE plpgsql AS ${dollarQuoted(body)}`,
      ),
    )
    if (!have.has(trigger(j))) {
      await db.run(
        raw(
          `CREATE TRIGGER ${q(trigger(j))} AFTER INSERT OR UPDATE OF "id", ${q(j.column)} OR DELETE ON ${q(table)} FOR EACH ROW EXECUTE FUNCTION ${q(fn(j))}()`,
        ),
      )
    }
  }
}

/** `$svc$…$svc$`, a dollar-quoted literal (the body holds no `$svc$`: it is built from names). */
function dollarQuoted(body: string): string {
  if (body.includes('$svc$')) throw new Error('junction function body holds $svc$')
  return `$svc$${body}$svc$`
}

/** `SchemaManager.dropJunctions` on PostgreSQL. */
export async function dropPostgresJunctions(db: Db, table: string, tables: boolean): Promise<void> {
  for (const name of (await junctionTriggers(db, table)).keys()) {
    await dropTrigger(db, table, name, tables)
  }
}
