import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'
import { startSmtp } from './helpers/smtp.js'

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

  it('drives user auth: authWithPassword, authRefresh, requestOTP/authWithOTP, impersonate', async () => {
    const smtp = await startSmtp()
    try {
      await pb.settings.update({ smtp: { enabled: true, host: smtp.host, port: smtp.port } })
      await pb.collections.update('users', { authOptions: { otp: { enabled: true, length: 6 } } })
      const created = await pb.collection('users').create({
        email: 'sdk@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
      })

      const user = new PocketBase(t.url)
      user.autoCancellation(false)
      const auth = await user.collection('users').authWithPassword('sdk@example.com', 'password123')
      expect(auth.record.id).toBe(created.id)
      expect(user.authStore.record?.email).toBe('sdk@example.com')
      const refreshed = await user.collection('users').authRefresh()
      expect(refreshed.record.id).toBe(created.id)
      await expect(
        user.collection('users').authWithPassword('sdk@example.com', 'wrong'),
      ).rejects.toMatchObject({ status: 400 })

      const otp = new PocketBase(t.url)
      const { otpId } = await otp.collection('users').requestOTP('sdk@example.com')
      const mail = await smtp.waitForMail((m) => m.to.includes('sdk@example.com'))
      const code = /(\d{6})/.exec(mail.html)![1]!
      const viaOtp = await otp.collection('users').authWithOTP(otpId, code)
      expect(viaOtp.record.id).toBe(created.id)
      expect(otp.authStore.isValid).toBe(true)

      const impersonated = await pb.collection('users').impersonate(created.id, 3600)
      expect(impersonated.authStore.record?.id).toBe(created.id)
      const me = await impersonated.collection('users').getOne(created.id)
      expect(me.email).toBe('sdk@example.com')
    } finally {
      await smtp.close()
    }
  })
})

describe('official pocketbase JS SDK realtime', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('subscribes and receives record events', async () => {
    const { EventSource } = await import('eventsource')
    ;(globalThis as any).EventSource ??= EventSource
    const pb = new PocketBase(t.url)
    pb.autoCancellation(false)
    await pb.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
    await pb.collections.create({
      name: 'live',
      type: 'base',
      listRule: '',
      viewRule: '',
      fields: [{ name: 'text', type: 'text' }],
    })
    const got: { action: string; text: string }[] = []
    const unsubscribe = await pb.collection('live').subscribe('*', (e) => {
      got.push({ action: e.action, text: e.record.text })
    })
    const rec = await pb.collection('live').create({ text: 'hello' })
    await pb.collection('live').update(rec.id, { text: 'again' })
    for (let i = 0; i < 50 && got.length < 2; i++) await new Promise((r) => setTimeout(r, 50))
    await unsubscribe()
    await pb.realtime.unsubscribe()
    expect(got).toEqual([
      { action: 'create', text: 'hello' },
      { action: 'update', text: 'again' },
    ])
  })
})
