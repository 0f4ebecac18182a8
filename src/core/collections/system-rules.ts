/** The rule texts of the system collections' definitions (`system.ts`) and their changes. */
import type { RuleKey } from './model.js'

/** The requester is the row's owner (`recordRef` + `collectionRef`). */
export const owner = 'recordRef = @request.auth.id && collectionRef = @request.auth.collectionId'
/** PocketBase's own owner rule on `_mfas`, `_otps`, `_externalAuths` and `_authOrigins`. */
export const pbOwner = `@request.auth.id != '' && ${owner}`
/**
 * "The requester has a membership of the team in `field`" (`_teams`: `id`; `_team_members`:
 * `team`, through the alias `me`, since the rows are of the same collection).
 */
export const teamMember = (field: string, alias = ''): string => {
  const m = `@collection._team_members${alias ? `:${alias}` : ''}`
  return `@request.auth.id != "" && ${m}.team ?= ${field} && ${m}.recordRef ?= @request.auth.id && ${m}.collectionRef ?= @request.auth.collectionId`
}
/** The requester is an owner or admin of the membership's team. */
export const teamManager = `${teamMember('team', 'me')} && @collection._team_members:me.role ?!= "member"`

/** A change of default rules (see `SystemSpec.ruleChanges`). */
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
