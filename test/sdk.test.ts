import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

describe('official pocketbase JS SDK', () => {
  let t: TestServer
  let pb: PocketBase
  beforeAll(async () => {
    t = await startServer()
    pb = new PocketBase(t.url)
    pb.autoCancellation(false)
  })
  afterAll(() => t.close())

  it('signs in as a superuser and does record CRUD', async () => {
    const auth = await pb.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
    expect(auth.token).toBeTruthy()
    expect(auth.record.email).toBe(SU_EMAIL)
    expect(pb.authStore.isValid).toBe(true)
    expect(pb.authStore.isSuperuser).toBe(true)

    await pb.collections.create({
      name: 'notes',
      type: 'base',
      fields: [
        { name: 'text', type: 'text', required: true },
        { name: 'n', type: 'number' },
      ],
    })
    const created = await pb.collection('notes').create({ text: 'first', n: 1 })
    expect(created.id).toMatch(/^[a-z0-9]{15}$/)
    await pb.collection('notes').create({ text: 'second', n: 2 })

    const one = await pb.collection('notes').getOne(created.id)
    expect(one.text).toBe('first')
    const list = await pb.collection('notes').getList(1, 10, { sort: 'n', filter: 'n >= 1' })
    expect(list.totalItems).toBe(2)
    expect(list.items.map((r) => r.text)).toEqual(['first', 'second'])
    const full = await pb.collection('notes').getFullList({ sort: '-n' })
    expect(full.map((r) => r.n)).toEqual([2, 1])
    const first = await pb.collection('notes').getFirstListItem('text = "second"')
    expect(first.n).toBe(2)

    const updated = await pb.collection('notes').update(created.id, { text: 'changed' })
    expect(updated.text).toBe('changed')
    expect(await pb.collection('notes').delete(created.id)).toBe(true)
    await expect(pb.collection('notes').getOne(created.id)).rejects.toMatchObject({ status: 404 })
    await expect(pb.collection('notes').create({})).rejects.toMatchObject({
      status: 400,
      response: { data: { text: { code: 'validation_required' } } },
    })
  })

  it('refreshes the superuser token', async () => {
    const before = pb.authStore.token
    const res = await pb.collection('_superusers').authRefresh()
    expect(res.token).toBeTruthy()
    expect(res.record.email).toBe(SU_EMAIL)
    expect(typeof before).toBe('string')
  })
})
