/** The teams feature's system collections: teams and their memberships (docs/teams.md). */
import type { SystemCollectionSpec } from '../../core/collections/system.js'
import { relation, select, text } from '../../core/collections/system-fields.js'
import { allRules, owner } from '../../core/collections/system-rules.js'

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

export const teamsCollections: SystemCollectionSpec[] = [
  // Members point at any auth record by reference, so no user collection is pinned by them.
  // The role checks rules cannot express are hooks of features/teams (docs/teams.md).
  {
    id: 'svc_teams',
    name: '_teams',
    type: 'base',
    fields: [text('name', { required: true }), text('ownerRef'), text('ownerCollection')],
    rules: {
      listRule: teamMember('id'),
      viewRule: teamMember('id'),
      createRule: '@request.auth.id != ""',
      // ownerRef/ownerCollection record the creator: only superusers change them.
      updateRule: `${teamMember('id')} && @collection._team_members.role ?!= "member" && @request.body.ownerRef:isset = false && @request.body.ownerCollection:isset = false`,
      deleteRule: `${teamMember('id')} && @collection._team_members.role ?= "owner"`,
    },
    // Databases made before teams had rules: every rule superuser-only.
    ruleChanges: [{ version: 1, former: allRules(null) }],
  },
  {
    id: 'svc_team_members',
    name: '_team_members',
    type: 'base',
    fields: [
      relation('team', 'svc_teams'),
      text('recordRef', { required: true }),
      text('collectionRef', { required: true }),
      { ...select('role', ['owner', 'admin', 'member']), required: true },
    ],
    rules: {
      listRule: teamMember('team', 'me'),
      viewRule: teamMember('team', 'me'),
      createRule: `${teamManager} && @collection._team_members:me.id ?!= id`,
      updateRule: teamManager,
      deleteRule: `(${owner}) || (${teamManager})`,
    },
    ruleChanges: [{ version: 1, former: allRules(null) }],
    indexes: [
      'CREATE UNIQUE INDEX `idx_team_members_member` ON `_team_members` (team, collectionRef, recordRef)',
      'CREATE INDEX `idx_team_members_record` ON `_team_members` (recordRef)',
    ],
  },
]
