/**
 * Teams black-box (issue 14 part 5): the default rules of `_teams` / `_team_members` and the
 * built-in hooks of features/teams, over HTTP against a real server; the documented "rows of my
 * teams" rule in lists, views and realtime (a real SSE client).
 */
import { EventSource } from 'eventsource'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { rmSync } from 'node:fs'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'
import { otherConnection } from './helpers/other-connection.js'

/** The rule docs/teams.md documents for a collection with a `team` relation to `_teams`. */
const MY_TEAMS =
  '@collection._team_members.team ?= team && @collection._team_members.recordRef ?= @request.auth.id && @collection._team_members.collectionRef ?= @request.auth.collectionId'

describe('teams', () => {
  let t: TestServer
  const token: Record<string, string> = {}
  const uid: Record<string, string> = {}
  const api = (method: string, path: string, who: string | null, body?: unknown) =>
    t.api(method, path, {
      body,
      token: who === null ? null : who === 'su' ? t.suToken : token[who],
    })
  const members = '/api/collections/_team_members/records'
  const teams = '/api/collections/_teams/records'

  const newTeam = async (who: string, name: string) => {
    const res = await api('POST', teams, who, { name })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.id as string
  }
  const add = (who: string, team: string, user: string, role: string) =>
    api('POST', members, who, {
      team,
      recordRef: uid[user],
      collectionRef: '_pb_users_auth_',
      role,
    })
  const membershipOf = async (team: string, user: string) => {
    const res = await api(
      'GET',
      `${members}?filter=${encodeURIComponent(`team="${team}" && recordRef="${uid[user]}"`)}`,
      'su',
    )
    return res.body.items[0] as { id: string; role: string } | undefined
  }

  beforeAll(async () => {
    t = await startServer()
    for (const name of ['owner', 'admin', 'member', 'stranger', 'other']) {
      const email = `${name}@example.com`
      const c = await api('POST', '/api/collections/users/records', null, {
        email,
        password: 'password123',
        passwordConfirm: 'password123',
      })
      expect(c.status, JSON.stringify(c.body)).toBe(200)
      uid[name] = c.body.id
      const a = await api('POST', '/api/collections/users/auth-with-password', null, {
        identity: email,
        password: 'password123',
      })
      token[name] = a.body.token
    }
  })
  afterAll(async () => {
    await t.close()
  })

  it('a team created by a user makes that user its owner, in the same transaction', async () => {
    const res = await api('POST', teams, 'owner', { name: 'Alpha', ownerRef: uid.stranger })
    expect(res.status).toBe(200)
    expect(res.body.ownerRef).toBe(uid.owner) // the creator, whatever the body says
    const m = await membershipOf(res.body.id, 'owner')
    expect(m?.role).toBe('owner')
    expect(await membershipOf(res.body.id, 'stranger')).toBeUndefined()
    // guests cannot create teams; a refused team leaves no membership behind
    expect((await api('POST', teams, null, { name: 'x' })).status).toBe(400)
    const bad = await api('POST', teams, 'owner', { name: '' })
    expect(bad.status).toBe(400)
    const all = await api('GET', `${members}?perPage=500`, 'su')
    expect(all.body.items.every((i: any) => i.team !== '')).toBe(true)
    const tcount = await api('GET', teams, 'su')
    expect(all.body.totalItems).toBe(tcount.body.totalItems)
  })

  it('in a batch: the owner row is written with the team and rolled back with it', async () => {
    const on = await api('PATCH', '/api/settings', 'su', { batch: { enabled: true } })
    expect(on.status).toBe(200)
    const item = (id: string) => [
      { method: 'POST', url: '/api/collections/_teams/records', body: { id, name: 'Batch' } },
      {
        method: 'POST',
        url: '/api/collections/_team_members/records',
        body: { team: id, recordRef: uid.other, collectionRef: '_pb_users_auth_', role: 'admin' },
      },
    ]
    const ok = await api('POST', '/api/batch', 'owner', { requests: item('batchteam000001') })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect((await membershipOf('batchteam000001', 'owner'))?.role).toBe('owner')
    expect((await membershipOf('batchteam000001', 'other'))?.role).toBe('admin')
    const failing = [
      ...item('batchteam000002'),
      { method: 'POST', url: '/api/collections/_teams/records', body: { name: '' } },
    ]
    const bad = await api('POST', '/api/batch', 'owner', { requests: failing })
    expect(bad.status).toBe(400)
    expect((await api('GET', `${teams}/batchteam000002`, 'su')).status).toBe(404)
    expect(await membershipOf('batchteam000002', 'owner')).toBeUndefined()
  })

  it('members see their team and its members; strangers and guests do not', async () => {
    const team = await newTeam('owner', 'Beta')
    expect((await add('owner', team, 'member', 'member')).status).toBe(200)
    const seen = await api('GET', `${teams}/${team}`, 'member')
    expect(seen.status).toBe(200)
    expect(seen.body.name).toBe('Beta')
    expect((await api('GET', `${teams}/${team}`, 'stranger')).status).toBe(404)
    expect((await api('GET', `${teams}/${team}`, null)).status).toBe(404)
    const list = await api('GET', teams, 'stranger')
    expect(list.body.items.map((i: any) => i.id)).not.toContain(team)
    const mine = await api('GET', teams, 'member')
    expect(mine.body.items.map((i: any) => i.id)).toEqual([team])
    const roster = await api(
      'GET',
      `${members}?filter=${encodeURIComponent(`team="${team}"`)}`,
      'member',
    )
    expect(roster.body.items.map((i: any) => i.role).sort()).toEqual(['member', 'owner'])
    const peek = await api(
      'GET',
      `${members}?filter=${encodeURIComponent(`team="${team}"`)}`,
      'stranger',
    )
    expect(peek.body.items).toEqual([])
  })

  it('owners and admins add members; members, strangers and self-invites are refused', async () => {
    const team = await newTeam('owner', 'Gamma')
    expect((await add('owner', team, 'admin', 'admin')).status).toBe(200)
    expect((await add('admin', team, 'member', 'member')).status).toBe(200)
    expect((await add('member', team, 'other', 'member')).status).toBe(400)
    expect((await add('stranger', team, 'stranger', 'owner')).status).toBe(400)
    expect((await add('stranger', team, 'stranger', 'member')).status).toBe(400)
    expect(await membershipOf(team, 'stranger')).toBeUndefined()
    // an admin cannot grant the owner role, nor change or remove an owner
    const grant = await add('admin', team, 'other', 'owner')
    expect(grant.status).toBe(403)
    expect(grant.body.message).toBe('Only an owner of the team can grant the owner role.')
    const own = await membershipOf(team, 'owner')
    const demote = await api('PATCH', `${members}/${own!.id}`, 'admin', { role: 'member' })
    expect(demote.status).toBe(403)
    expect((await api('DELETE', `${members}/${own!.id}`, 'admin')).status).toBe(403)
    // a member cannot promote itself; an admin cannot make itself owner
    const mm = await membershipOf(team, 'member')
    expect((await api('PATCH', `${members}/${mm!.id}`, 'member', { role: 'admin' })).status).toBe(
      404,
    )
    const am = await membershipOf(team, 'admin')
    expect((await api('PATCH', `${members}/${am!.id}`, 'admin', { role: 'owner' })).status).toBe(
      403,
    )
    // the owner promotes; a membership cannot be moved to another team
    expect((await api('PATCH', `${members}/${mm!.id}`, 'owner', { role: 'admin' })).status).toBe(
      200,
    )
    const other = await newTeam('owner', 'Other')
    const move = await api('PATCH', `${members}/${mm!.id}`, 'owner', { team: other })
    expect(move.status).toBe(400)
    // one membership per user and team
    expect((await add('owner', team, 'member', 'member')).status).toBe(400)
    // only managers rename the team, only owners delete it
    expect((await api('PATCH', `${teams}/${team}`, 'admin', { name: 'G2' })).status).toBe(200)
    expect((await add('owner', team, 'other', 'member')).status).toBe(200)
    expect((await api('PATCH', `${teams}/${team}`, 'other', { name: 'G3' })).status).toBe(404)
    const steal = await api('PATCH', `${teams}/${team}`, 'admin', { ownerRef: uid.admin })
    expect(steal.status).toBe(404)
    expect((await api('DELETE', `${teams}/${team}`, 'admin')).status).toBe(404)
  })

  it('the last owner can neither leave nor be demoted; a member leaves', async () => {
    const team = await newTeam('owner', 'Delta')
    await add('owner', team, 'member', 'member')
    const own = (await membershipOf(team, 'owner'))!
    const leave = await api('DELETE', `${members}/${own.id}`, 'owner')
    expect(leave.status).toBe(400)
    expect(leave.body.message).toBe('A team must keep at least one owner: add another owner first.')
    const demote = await api('PATCH', `${members}/${own.id}`, 'owner', { role: 'admin' })
    expect(demote.status).toBe(400)
    // superusers are held to it too
    expect((await api('DELETE', `${members}/${own.id}`, 'su')).status).toBe(400)
    const mm = (await membershipOf(team, 'member'))!
    expect((await api('DELETE', `${members}/${mm.id}`, 'member')).status).toBe(204)
    expect((await api('GET', `${teams}/${team}`, 'member')).status).toBe(404)
    // with a second owner, the first may step down
    await add('owner', team, 'admin', 'owner')
    expect((await api('PATCH', `${members}/${own.id}`, 'owner', { role: 'member' })).status).toBe(
      200,
    )
  })

  it('deleting a team deletes its memberships, owners included', async () => {
    const team = await newTeam('owner', 'Epsilon')
    await add('owner', team, 'member', 'member')
    await add('owner', team, 'admin', 'owner')
    expect((await api('DELETE', `${teams}/${team}`, 'member')).status).toBe(404)
    expect((await api('DELETE', `${teams}/${team}`, 'owner')).status).toBe(204)
    const left = await api('GET', `${members}?filter=${encodeURIComponent(`team="${team}"`)}`, 'su')
    expect(left.body.totalItems).toBe(0)
  })

  it('the "rows of my teams" rule holds in lists, views and realtime', async () => {
    const mk = await api('POST', '/api/collections', 'su', {
      name: 'notes',
      type: 'base',
      listRule: MY_TEAMS,
      viewRule: MY_TEAMS,
      fields: [
        { name: 'text', type: 'text' },
        { name: 'team', type: 'relation', options: { collectionId: 'svc_teams', maxSelect: 1 } },
      ],
    })
    expect(mk.status, JSON.stringify(mk.body)).toBe(200)
    const red = await newTeam('owner', 'Red')
    const blue = await newTeam('other', 'Blue')
    await add('owner', red, 'member', 'member')
    // `stranger` belongs to a third team only: a rule that matched team and member on
    // different membership rows would leak to it
    const third = await newTeam('stranger', 'Third')
    await add('stranger', third, 'other', 'member')

    const sse = async (who: string) => {
      const es = new EventSource(`${t.url}/api/realtime`)
      const got: any[] = []
      const clientId = await new Promise<string>((resolve) =>
        es.addEventListener('SVC_CONNECT', (e) => resolve(JSON.parse(e.data).clientId)),
      )
      es.addEventListener('notes', (e) => got.push(JSON.parse(e.data)))
      const res = await api('POST', '/api/realtime', who, { clientId, subscriptions: ['notes'] })
      expect(res.status).toBe(204)
      return { es, got }
    }
    const clients = {
      owner: await sse('owner'),
      member: await sse('member'),
      stranger: await sse('stranger'),
      other: await sse('other'),
    }
    const create = async (text: string, team: string) => {
      const r = await api('POST', '/api/collections/notes/records', 'su', { text, team })
      expect(r.status).toBe(200)
      return r.body.id as string
    }
    const redNote = await create('red note', red)
    const blueNote = await create('blue note', blue)
    const lastNote = await create('last', blue) // `other` receives it after every earlier one

    const seen = (who: string) => clients[who as keyof typeof clients].got.map((g) => g.record.text)
    const deadline = Date.now() + 5000
    while (Date.now() < deadline && !(seen('other').includes('last') && seen('member').length >= 1))
      await new Promise((r) => setTimeout(r, 20))
    // the owner-only mark: wait for the red note at the owner too, then a short settle
    await new Promise((r) => setTimeout(r, 200))
    expect(seen('owner')).toEqual(['red note'])
    expect(seen('member')).toEqual(['red note'])
    expect(seen('other')).toEqual(['blue note', 'last'])
    expect(seen('stranger')).toEqual([])

    const list = async (who: string) =>
      (await api('GET', '/api/collections/notes/records?sort=created', who)).body.items.map(
        (i: any) => i.text,
      )
    expect(await list('member')).toEqual(['red note'])
    expect(await list('other')).toEqual(['blue note', 'last'])
    expect(await list('stranger')).toEqual([])
    expect(await list(null as unknown as string)).toEqual([])
    expect((await api('GET', `/api/collections/notes/records/${redNote}`, 'member')).status).toBe(
      200,
    )
    expect((await api('GET', `/api/collections/notes/records/${blueNote}`, 'member')).status).toBe(
      404,
    )
    expect((await api('GET', `/api/collections/notes/records/${redNote}`, 'stranger')).status).toBe(
      404,
    )
    expect((await api('GET', `/api/collections/notes/records/${lastNote}`, 'other')).status).toBe(
      200,
    )
    for (const c of Object.values(clients)) c.es.close()
  })
})

describe('teams on a database made before the default rules', () => {
  it('gets the default rules and indexes at start', async () => {
    const t = await startServer()
    const dir = t.dir
    await t.server.close()
    // the state of a database made before: every rule empty (superusers only), no index
    const db = await otherConnection(dir)
    await db.run('DROP INDEX idx_team_members_member')
    await db.run('DROP INDEX idx_team_members_record')
    await db.run(
      `UPDATE _collections SET "listRule" = NULL, "viewRule" = NULL, "createRule" = NULL,
       "updateRule" = NULL, "deleteRule" = NULL, indexes = '[]' WHERE name IN ('_teams', '_team_members')`,
    )
    // An older svcbase recorded no versions of the system definitions.
    await db.run(`DELETE FROM _params WHERE id = 'svc_system_versions'`)
    await db.close()
    const server = await createServer({ dataDir: dir, logger: silentLogger })
    try {
      const url = await server.listen({ host: '127.0.0.1', port: 0 })
      const login = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ identity: SU_EMAIL, password: SU_PASSWORD }),
      }).then((r) => r.json() as Promise<{ token: string }>)
      const get = (name: string) =>
        fetch(`${url}/api/collections/${name}`, { headers: { authorization: login.token } }).then(
          (r) => r.json() as Promise<Record<string, any>>,
        )
      const teams = await get('_teams')
      const members = await get('_team_members')
      expect(teams.listRule).toContain('@collection._team_members.team ?= id')
      expect(members.createRule).toContain('@collection._team_members:me.id ?!= id')
      expect(members.indexes.join(' ')).toContain('idx_team_members_member')
    } finally {
      await server.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
