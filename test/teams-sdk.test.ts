/**
 * Teams through the `pocketbase` JS SDK unchanged: a user creates a team (and is its owner),
 * invites, a member leaves, the "rows of my teams" rule through `subscribe`; a deleted user's
 * memberships go with it; with the feature disabled, the hooks do not run.
 */
import PocketBase, { ClientResponseError } from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

const MY_TEAMS =
  '@collection._team_members.team ?= team && @collection._team_members.recordRef ?= @request.auth.id && @collection._team_members.collectionRef ?= @request.auth.collectionId'

async function signUp(t: TestServer, email: string): Promise<PocketBase> {
  const pb = new PocketBase(t.url)
  pb.autoCancellation(false)
  await pb
    .collection('users')
    .create({ email, password: 'password123', passwordConfirm: 'password123' })
  await pb.collection('users').authWithPassword(email, 'password123')
  return pb
}

describe('teams through the pocketbase SDK', () => {
  let t: TestServer
  let su: PocketBase
  beforeAll(async () => {
    const { EventSource } = await import('eventsource')
    ;(globalThis as any).EventSource ??= EventSource
    t = await startServer()
    su = new PocketBase(t.url)
    su.autoCancellation(false)
    await su.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
  })
  afterAll(() => t.close())

  it('create, invite, list, subscribe, leave; a deleted user leaves its teams', async () => {
    const ann = await signUp(t, 'ann@example.com')
    const bob = await signUp(t, 'bob@example.com')
    const cat = await signUp(t, 'cat@example.com')
    const team = await ann.collection('_teams').create({ name: 'Red' })
    const roster = await ann
      .collection('_team_members')
      .getFullList({ filter: `team = "${team.id}"` })
    expect(roster.map((m) => [m.recordRef, m.role])).toEqual([[ann.authStore.record!.id, 'owner']])
    await ann.collection('_team_members').create({
      team: team.id,
      recordRef: bob.authStore.record!.id,
      collectionRef: bob.authStore.record!.collectionId,
      role: 'member',
    })
    expect((await bob.collection('_teams').getFullList()).map((x) => x.name)).toEqual(['Red'])
    expect(await cat.collection('_teams').getFullList()).toEqual([])
    const err = await cat
      .collection('_team_members')
      .create({
        team: team.id,
        recordRef: cat.authStore.record!.id,
        collectionRef: cat.authStore.record!.collectionId,
        role: 'member',
      })
      .catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ClientResponseError)
    expect((err as ClientResponseError).status).toBe(400)

    await su.collections.create({
      name: 'tasks',
      type: 'base',
      listRule: MY_TEAMS,
      viewRule: MY_TEAMS,
      fields: [
        { name: 'title', type: 'text' },
        { name: 'team', type: 'relation', collectionId: 'svc_teams', maxSelect: 1 },
      ],
    })
    const got: Record<string, string[]> = { bob: [], cat: [] }
    const unsubBob = await bob
      .collection('tasks')
      .subscribe('*', (e) => got.bob!.push(e.record.title))
    const unsubCat = await cat
      .collection('tasks')
      .subscribe('*', (e) => got.cat!.push(e.record.title))
    const own = await cat.collection('_teams').create({ name: 'Cat' })
    await su.collection('tasks').create({ title: 'red task', team: team.id })
    await su.collection('tasks').create({ title: 'cat task', team: own.id })
    for (let i = 0; i < 100 && (got.bob!.length < 1 || got.cat!.length < 1); i++)
      await new Promise((r) => setTimeout(r, 20))
    await new Promise((r) => setTimeout(r, 150))
    expect(got).toEqual({ bob: ['red task'], cat: ['cat task'] })
    expect((await bob.collection('tasks').getFullList()).map((x) => x.title)).toEqual(['red task'])
    await unsubBob()
    await unsubCat()

    // bob leaves; ann, the last owner, cannot
    const mine = await bob
      .collection('_team_members')
      .getFirstListItem(`recordRef = "${bob.authStore.record!.id}"`)
    await bob.collection('_team_members').delete(mine.id)
    expect(await bob.collection('_teams').getFullList()).toEqual([])
    const annRow = await ann.collection('_team_members').getFirstListItem(`team = "${team.id}"`)
    const last = await ann
      .collection('_team_members')
      .delete(annRow.id)
      .catch((e: unknown) => e)
    expect((last as ClientResponseError).status).toBe(400)

    // deleting a user deletes its memberships (a team it owned alone is left without owner)
    const catId = cat.authStore.record!.id
    await cat.collection('users').delete(catId)
    const catRows = await su
      .collection('_team_members')
      .getFullList({ filter: `recordRef = "${catId}"` })
    expect(catRows).toEqual([])
    expect((await su.collection('_teams').getOne(own.id)).name).toBe('Cat')
  })
})

describe('teams feature disabled', () => {
  it('has no team collections: the feature brings them (issue 36)', async () => {
    const t = await startServer({ disable: ['teams'] })
    try {
      const pb = await signUp(t, 'dan@example.com')
      const team = await pb
        .collection('_teams')
        .create({ name: 'x' })
        .catch((e: unknown) => e)
      expect((team as { status?: number }).status).toBe(404)
      const su = new PocketBase(t.url)
      await su.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
      const members = await su
        .collection('_team_members')
        .getFullList()
        .catch((e: unknown) => e)
      expect((members as { status?: number }).status).toBe(404)
    } finally {
      await t.close()
    }
  })
})
