/** The rule texts of the system collections' definitions (`system.ts`) and their changes. */
import type { RuleKey } from './model.js'

/** The requester is the row's owner (`recordRef` + `collectionRef`). */
export const owner = 'recordRef = @request.auth.id && collectionRef = @request.auth.collectionId'
/** PocketBase's own owner rule on `_mfas`, `_otps`, `_externalAuths` and `_authOrigins`. */
export const pbOwner = `@request.auth.id != '' && ${owner}`
/** A change of default rules (see `SystemCollectionSpec.ruleChanges`). */
export interface RuleChange {
  version: number
  former: Partial<Record<RuleKey, (string | null)[]>>
}

/** Every rule a collection has (for "all its rules were…" changes). */
export const allRules = (value: string | null): Partial<Record<RuleKey, (string | null)[]>> => ({
  listRule: [value],
  viewRule: [value],
  createRule: [value],
  updateRule: [value],
  deleteRule: [value],
})
