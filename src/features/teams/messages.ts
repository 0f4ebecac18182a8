/**
 * Messages of teams (`features/teams`): the role rules of `_team_members` that the collection
 * rules cannot express (the last owner, what an admin may not do to owners).
 */
import type { Entry } from '../../core/errors/catalogue.js'

/** Top-level messages of teams. */
export const teamsMessages = {
  teamLastOwner: 'A team must keep at least one owner: add another owner first.',
  teamOwnerByAdmin: 'Only an owner of the team can grant the owner role.',
  teamOwnerChangedByAdmin: 'Only an owner of the team can change or remove an owner.',
  teamMemberMoved: 'A membership cannot be moved to another team or record.',
} as const satisfies Record<string, Entry>

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    teams: typeof teamsMessages
  }
}
