import type { Feature } from '../../http/feature.js'
import { bindTeamsHooks } from './service.js'
import { teamsMessages } from './messages.js'
import { teamsCollections } from './collections.js'

/**
 * The teams feature: the built-in hooks of the `_teams` and `_team_members` system collections
 * (their default rules live with the collections, `core/collections/system.ts`). No routes: the
 * records API serves both collections. See docs/teams.md.
 */
export function teamsFeature(): Feature {
  return {
    name: 'teams',
    systemCollections: teamsCollections,
    messages: teamsMessages,
    register: ({ app }) => bindTeamsHooks(app),
  }
}
