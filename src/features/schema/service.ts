import type { App } from '../../core/app.js'
import {
  applySchema,
  planEntry,
  schemaPayloadItems,
  type PlanEntry,
} from '../../core/collections/apply.js'
import { badRequest, messages } from '../../core/errors.js'

/** The answer of `POST /api/schema/apply` (SPEC §4.8). */
export interface ApplyAnswer {
  applied: boolean
  force: boolean
  collections: PlanEntry[]
}

/**
 * A boolean query parameter: absent, `0`, `false` or empty is false; `1` or `true` (any case)
 * is true; anything else is a 400, so a typo never turns into an unintended write.
 */
export function parseFlag(name: string, value: string | undefined): boolean {
  if (value === undefined) return false
  const v = value.trim().toLowerCase()
  if (v === '1' || v === 'true') return true
  if (v === '' || v === '0' || v === 'false') return false
  throw badRequest(messages.schemaFlagInvalid({ name, value }))
}

/** Runs an apply for the HTTP API: the flags from the query, the payload from the body. */
export async function applyRequest(
  app: App,
  body: unknown,
  query: Record<string, string>,
): Promise<ApplyAnswer> {
  const dryRun = parseFlag('dryRun', query.dryRun)
  const force = parseFlag('force', query.force)
  const items = schemaPayloadItems(body)
  const result = await applySchema(app, items, { dryRun, force })
  return {
    applied: result.applied,
    force: result.force,
    collections: result.collections.map(planEntry),
  }
}
