/** The `_params` table: named values (JSON text) of the app itself, such as the settings row. */
import type { Db } from '../store/db.js'
import { sql } from '../store/sql.js'
import { nowDate } from '../tools/dates.js'

/** The stored text of param `id`, or undefined when it is missing or null. */
export async function readParam(db: Db, id: string): Promise<string | undefined> {
  const row = await db.get<{ value: string | null }>(
    sql`SELECT value FROM _params WHERE id = ${id}`,
  )
  return row?.value ?? undefined
}

/** Creates or replaces param `id` with `value` (JSON text). */
export async function writeParam(db: Db, id: string, value: string): Promise<void> {
  const now = nowDate()
  await db.run(
    sql`INSERT INTO _params (id, value, created, updated) VALUES (${id}, ${value}, ${now}, ${now})
        ON CONFLICT (id) DO UPDATE SET value = excluded.value, updated = excluded.updated`,
  )
}
