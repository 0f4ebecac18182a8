/**
 * What the SQL console's writes compare before and after the statement (`console.ts`): a digest
 * of each relation's catalog in the store's schema, the catalog rows of frozen tables written by
 * the open transaction, and a digest of the rows of read-only tables.
 */
import type pg from 'pg'
import { quoteDoubled } from '../sql.js'

/**
 * One digest per relation (table, view, materialized view) and per function of the current
 * schema: its kind, owner and privileges, columns with types and defaults, indexes,
 * constraints, triggers (with their state and their function's body), rules (a view's
 * definition) and row-level security policies.
 */
const CATALOG_DIGEST = `
SELECT c.relname AS name, md5(concat_ws('|',
  c.relkind, c.relpersistence, c.relrowsecurity, c.relforcerowsecurity, c.relowner,
  c.relacl::text, c.reloptions::text,
  (SELECT string_agg(concat_ws(':', a.attnum, a.attname, a.atttypid, a.atttypmod, a.attnotnull,
      a.attisdropped, a.attgenerated, a.attidentity, pg_get_expr(d.adbin, d.adrelid)), ','
      ORDER BY a.attnum)
     FROM pg_attribute a LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
    WHERE a.attrelid = c.oid AND a.attnum > 0),
  (SELECT string_agg(concat(pg_get_indexdef(i.indexrelid), i.indisvalid,
      obj_description(i.indexrelid, 'pg_class')), ',' ORDER BY 1)
     FROM pg_index i WHERE i.indrelid = c.oid),
  (SELECT string_agg(concat(k.conname, pg_get_constraintdef(k.oid)), ',' ORDER BY 1)
     FROM pg_constraint k WHERE k.conrelid = c.oid),
  (SELECT string_agg(concat(pg_get_triggerdef(t.oid), t.tgenabled::text, md5(p.prosrc)), ',' ORDER BY 1)
     FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid WHERE t.tgrelid = c.oid),
  (SELECT string_agg(concat(r.rulename, pg_get_ruledef(r.oid)), ',' ORDER BY 1)
     FROM pg_rewrite r WHERE r.ev_class = c.oid),
  (SELECT string_agg(concat_ws(':', pol.polname, pol.polcmd, pol.polpermissive,
      pg_get_expr(pol.polqual, pol.polrelid), pg_get_expr(pol.polwithcheck, pol.polrelid)), ','
      ORDER BY 1)
     FROM pg_policy pol WHERE pol.polrelid = c.oid)
)) AS digest
FROM pg_class c
WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'v', 'm', 'p', 'f')
UNION ALL
SELECT 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ')',
       md5(concat_ws('|', p.prosrc, p.prosecdef, p.proconfig::text, p.proowner))
FROM pg_proc p WHERE p.pronamespace = current_schema()::regnamespace`

/** The catalog digest of the current schema, by relation or function name. */
export async function catalogDigest(client: pg.Client): Promise<Map<string, string>> {
  const r = await client.query<{ name: string; digest: string }>(CATALOG_DIGEST)
  return new Map(r.rows.map((x) => [x.name, x.digest]))
}

/**
 * The first frozen relation (lower-case names) one of whose catalog rows this transaction wrote,
 * or null: a change made and undone inside one statement (a trigger disabled, rows deleted, the
 * trigger enabled again) leaves the same digest but new row versions.
 */
export async function changedCatalogOf(
  client: pg.Client,
  frozen: readonly string[],
): Promise<string | null> {
  if (frozen.length === 0) return null
  const r = await client.query<{ name: string }>(
    `WITH x AS (SELECT (pg_current_xact_id_if_assigned()::text::bigint % 4294967296)::text AS id)
     SELECT c.relname AS name FROM pg_class c, x
      WHERE x.id IS NOT NULL
        AND c.relnamespace = current_schema()::regnamespace
        AND lower(c.relname) = ANY($1::text[])
        AND (c.xmin::text = x.id
          OR EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = c.oid AND a.xmin::text = x.id)
          OR EXISTS (SELECT 1 FROM pg_index i WHERE i.indrelid = c.oid AND i.xmin::text = x.id)
          OR EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conrelid = c.oid AND k.xmin::text = x.id)
          OR EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgrelid = c.oid AND t.xmin::text = x.id)
          OR EXISTS (SELECT 1 FROM pg_rewrite w WHERE w.ev_class = c.oid AND w.xmin::text = x.id)
          OR EXISTS (SELECT 1 FROM pg_policy p WHERE p.polrelid = c.oid AND p.xmin::text = x.id))
      ORDER BY 1 LIMIT 1`,
    [frozen],
  )
  return r.rows[0]?.name ?? null
}

/** A digest of every row of each read-only table that exists in the current schema. */
export async function rowsDigest(
  client: pg.Client,
  tables: readonly string[],
): Promise<Map<string, string>> {
  const out = new Map<string, string>()
  if (tables.length === 0) return out
  const present = await client.query<{ name: string }>(
    `SELECT relname AS name FROM pg_class
      WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r' AND relname = ANY($1)`,
    [tables],
  )
  for (const { name } of present.rows) {
    const quoted = quoteDoubled(name)
    const r = await client.query<{ digest: string | null }>(
      `SELECT md5(string_agg(t::text, E'\\n' ORDER BY t::text)) AS digest FROM ${quoted} t`,
    )
    out.set(name, r.rows[0]?.digest ?? '')
  }
  return out
}
