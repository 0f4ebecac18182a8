/**
 * The built-in hooks of teams: what the default rules of `_teams` and `_team_members` cannot
 * express. All bound before user handlers (a user handler can wrap or replace one by its id).
 *
 * | id                         | hook                                   | does                                   |
 * | -------------------------- | -------------------------------------- | -------------------------------------- |
 * | `__svcTeamsOwner`          | `onRecordCreate` of `_teams`           | the creator becomes the team's owner   |
 * | `__svcTeamsDeleting`       | `onRecordDelete` of `_teams`           | lets the cascade remove every member   |
 * | `__svcTeamsRoleCreate`     | `onRecordCreate` of `_team_members`    | only owners grant `owner`              |
 * | `__svcTeamsRoleUpdate`     | `onRecordUpdate` of `_team_members`    | owners, the last owner, no moves       |
 * | `__svcTeamsRoleDelete`     | `onRecordDelete` of `_team_members`    | owners, the last owner                 |
 * | `__svcTeamsMemberGone`     | `onRecordDelete` of auth collections   | a deleted record's memberships go too  |
 */
import type { App } from '../../core/app.js'
import { BEFORE_USER_HOOKS } from '../../core/auth/cascade.js'
import { systemRequest } from '../../core/auth/superusers.js'
import { badRequest, forbidden } from '../../core/errors.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../../core/request-info.js'
import { ident, sql } from '../../store/sql.js'
import { teamsMessages } from './messages.js'

export const TEAMS = '_teams'
export const MEMBERS = '_team_members'

/** A text value of a record (ids, refs), '' for anything else. */
const str = (v: unknown): string => (typeof v === 'string' ? v : '')

/** The requester's role in a team, or '' (guests, superusers, non-members). */
async function roleOf(app: App, team: string, info: RequestInfo): Promise<string> {
  const auth = info.auth
  if (!auth || isSuperuser(info) || !auth.record.id) return ''
  const members = app.collections.get(MEMBERS)
  const row = await app
    .dbFor(members)
    .get<{ role: string }>(
      sql`SELECT role FROM ${ident(MEMBERS)} WHERE team = ${team} AND "recordRef" = ${str(auth.record.id)} AND "collectionRef" = ${auth.collection.id}`,
    )
  return row?.role ?? ''
}

/** The number of owners of a team other than the membership `except`. */
async function otherOwners(app: App, team: string, except: string): Promise<number> {
  const members = app.collections.get(MEMBERS)
  const row = await app
    .dbFor(members)
    .get<{ n: number }>(
      sql`SELECT COUNT(*) AS n FROM ${ident(MEMBERS)} WHERE team = ${team} AND role = 'owner' AND id != ${except}`,
    )
  return Number(row?.n ?? 0)
}

/** Binds the teams hooks on `app.hooks`. */
export function bindTeamsHooks(app: App): void {
  // Teams whose delete is running: their memberships go with them, owners included.
  const deleting = new Set<string>()
  // Auth records whose delete is running (`collectionId/id`): their memberships go with them.
  const leaving = new Set<string>()

  app.hooks.onRecordCreate.bind(
    {
      id: '__svcTeamsOwner',
      priority: BEFORE_USER_HOOKS,
      func: async (e) => {
        const auth = e.request.auth
        if (auth && !isSuperuser(e.request) && auth.record.id) {
          e.record.ownerRef = str(auth.record.id)
          e.record.ownerCollection = auth.collection.id
        }
        await e.next()
        const ownerRef = str(e.record.ownerRef)
        const ownerCollection = str(e.record.ownerCollection)
        if (!ownerRef || !ownerCollection) return
        // Same transaction as the team: a refused team leaves no membership, and back.
        await e.app.records.create(
          e.app.collections.get(MEMBERS),
          { team: e.record.id, recordRef: ownerRef, collectionRef: ownerCollection, role: 'owner' },
          systemRequest(e.app),
        )
      },
    },
    [TEAMS],
  )

  app.hooks.onRecordDelete.bind(
    {
      id: '__svcTeamsDeleting',
      priority: BEFORE_USER_HOOKS,
      func: async (e) => {
        const id = str(e.record.id)
        deleting.add(id)
        try {
          await e.next()
        } finally {
          deleting.delete(id)
        }
      },
    },
    [TEAMS],
  )

  app.hooks.onRecordCreate.bind(
    {
      id: '__svcTeamsRoleCreate',
      priority: BEFORE_USER_HOOKS,
      func: async (e) => {
        const team = str(e.record.team)
        if (e.record.role === 'owner' && (await roleOf(e.app, team, e.request)) === 'admin')
          throw forbidden(teamsMessages.teamOwnerByAdmin)
        await e.next()
      },
    },
    [MEMBERS],
  )

  app.hooks.onRecordUpdate.bind(
    {
      id: '__svcTeamsRoleUpdate',
      priority: BEFORE_USER_HOOKS,
      func: async (e) => {
        const before = e.original as RecordData
        const team = str(before.team)
        if (
          e.record.team !== before.team ||
          e.record.recordRef !== before.recordRef ||
          e.record.collectionRef !== before.collectionRef
        )
          throw badRequest(teamsMessages.teamMemberMoved)
        if ((await roleOf(e.app, team, e.request)) === 'admin') {
          if (before.role === 'owner') throw forbidden(teamsMessages.teamOwnerChangedByAdmin)
          if (e.record.role === 'owner') throw forbidden(teamsMessages.teamOwnerByAdmin)
        }
        if (
          before.role === 'owner' &&
          e.record.role !== 'owner' &&
          (await otherOwners(e.app, team, str(before.id))) === 0
        )
          throw badRequest(teamsMessages.teamLastOwner)
        await e.next()
      },
    },
    [MEMBERS],
  )

  app.hooks.onRecordDelete.bind(
    {
      id: '__svcTeamsRoleDelete',
      priority: BEFORE_USER_HOOKS,
      func: async (e) => {
        const team = str(e.record.team)
        const gone = leaving.has(`${str(e.record.collectionRef)}/${str(e.record.recordRef)}`)
        if (!deleting.has(team) && !gone && e.record.role === 'owner') {
          const auth = e.request.auth
          const self =
            auth?.record.id === e.record.recordRef && auth?.collection.id === e.record.collectionRef
          if (!self && (await roleOf(e.app, team, e.request)) === 'admin')
            throw forbidden(teamsMessages.teamOwnerChangedByAdmin)
          if ((await otherOwners(e.app, team, str(e.record.id))) === 0)
            throw badRequest(teamsMessages.teamLastOwner)
        }
        await e.next()
      },
    },
    [MEMBERS],
  )

  app.hooks.onRecordDelete.bind({
    id: '__svcTeamsMemberGone',
    priority: BEFORE_USER_HOOKS,
    func: async (e) => {
      if (e.collection.type !== 'auth') return e.next()
      const key = `${e.collection.id}/${str(e.record.id)}`
      leaving.add(key)
      try {
        await e.next()
        const members = e.app.collections.get(MEMBERS)
        const rows = await e.app
          .dbFor(members)
          .all<{ id: string }>(
            sql`SELECT id FROM ${ident(MEMBERS)} WHERE "recordRef" = ${str(e.record.id)} AND "collectionRef" = ${e.collection.id}`,
          )
        for (const { id } of rows) {
          const row = await e.app.records.findById(members, id)
          if (row) await e.app.records.deleteLoaded(members, row, e.request)
        }
      } finally {
        leaving.delete(key)
      }
    },
  })
}
