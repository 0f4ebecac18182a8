/**
 * The view dry run's sample (`POST /api/collections/meta/dry-run-view`): the first rows a view
 * query gives, read in a transaction that is rolled back, so nothing the query might do is kept.
 */
import type { App } from '../../core/app.js'
import type { Collection } from '../../core/collections/model.js'
import { ident, raw, sql } from '../../store/sql.js'

/** The most sample rows a dry run returns. */
export const DRY_RUN_VIEW_ROWS = 10

/** Thrown inside the sample's transaction so that nothing it might have done is kept. */
class RollBack extends Error {}

/**
 * The first `DRY_RUN_VIEW_ROWS` rows of `view`'s query, as stored rows; throws the engine's
 * error when the query fails.
 */
export async function sampleViewRows(
  app: App,
  view: Collection,
): Promise<Record<string, unknown>[]> {
  let rows: Record<string, unknown>[] = []
  try {
    await app.db.transaction(async (tx) => {
      rows = await tx.all(
        sql`SELECT * FROM (${raw(view.viewQuery ?? '')}) AS ${ident('_dry_run')} LIMIT ${DRY_RUN_VIEW_ROWS}`,
      )
      throw new RollBack()
    })
  } catch (err) {
    if (!(err instanceof RollBack)) throw err
  }
  return rows
}
