import { createHash } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

const KEY_RE = /^svc_[A-Za-z0-9]{40}$/
const DATE_RE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z$/

describe('API keys', () => {
  let t: TestServer
  const users: Record<string, { id: string; token: string }> = {}

  const mint = async (token: string, body: unknown) => {
    const res = await t.api('POST', '/api/api-keys', { token, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as { id: string; name: string; key: string; expires: string; created: string }
  }
  /** The users visible to a caller: the users collection's listRule is `id = @request.auth.id`. */
  const visibleUsers = async (authorization: string) => {
    const res = await t.api('GET', '/api/collections/users/records', {
      headers: { authorization },
    })
    expect(res.status).toBe(200)
    return (res.body.items as { id: string }[]).map((r) => r.id)
  }

  beforeAll(async () => {
    t = await startServer()
    for (const name of ['alice', 'bob']) {
      const email = `${name}@example.com`
      const created = await t.api('POST', '/api/collections/users/records', {
        body: { email, password: 'password123', passwordConfirm: 'password123' },
      })
      expect(created.status, JSON.stringify(created.body)).toBe(200)
      const login = await t.api('POST', '/api/collections/users/auth-with-password', {
        body: { identity: email, password: 'password123' },
      })
      expect(login.status).toBe(200)
      users[name] = { id: created.body.id, token: login.body.token }
    }
  })
  afterAll(async () => {
    await t.close()
  })

  it('answers 401 without authentication, and for an invalid key', async () => {
    const res = await t.api('POST', '/api/api-keys', { body: { name: 'x' } })
    expect(res.status).toBe(401)
    expect(res.body).toEqual({
      code: 401,
      status: 401,
      message: 'The request requires valid record authorization token.',
      data: {},
    })
    const bogus = await t.api('POST', '/api/api-keys', {
      token: `svc_${'a'.repeat(40)}`,
      body: { name: 'x' },
    })
    expect(bogus.status).toBe(401)
  })

  it.each([
    ['no name', {}, 'name', 'validation_required'],
    ['blank name', { name: '   ' }, 'name', 'validation_required'],
    ['name not a string', { name: 42 }, 'name', 'validation_unsupported_value_type'],
    ['name too long', { name: 'n'.repeat(101) }, 'name', 'validation_length_out_of_range'],
    [
      'negative duration',
      { name: 'k', duration: -1 },
      'duration',
      'validation_min_greater_equal_than_required',
    ],
    [
      'decimal duration',
      { name: 'k', duration: 1.5 },
      'duration',
      'validation_only_int_constraint',
    ],
    [
      'duration as text',
      { name: 'k', duration: '60' },
      'duration',
      'validation_unsupported_value_type',
    ],
    [
      'duration over ten years',
      { name: 'k', duration: 315_360_001 },
      'duration',
      'validation_max_less_equal_than_required',
    ],
  ])('rejects %s with a precise field error', async (_label, body, field, code) => {
    const res = await t.api('POST', '/api/api-keys', { token: users.alice!.token, body })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('An error occurred while validating the submitted data.')
    expect(Object.keys(res.body.data)).toEqual([field])
    expect(res.body.data[field].code).toBe(code)
  })

  it('reports the length bounds of a too long name', async () => {
    const res = await t.api('POST', '/api/api-keys', {
      token: users.alice!.token,
      body: { name: 'n'.repeat(101) },
    })
    expect(res.body.data.name).toEqual({
      code: 'validation_length_out_of_range',
      message: 'The length must be between 1 and 100.',
      params: { min: 1, max: 100 },
    })
  })

  it('mints a key that authenticates as the minting record, with or without Bearer', async () => {
    const minted = await mint(users.alice!.token, { name: '  ci deploy  ' })
    expect(Object.keys(minted).sort()).toEqual(['created', 'expires', 'id', 'key', 'name'])
    expect(minted.key).toMatch(KEY_RE)
    expect(minted.name).toBe('ci deploy')
    expect(minted.expires).toBe('')
    expect(minted.created).toMatch(DATE_RE)

    expect(await visibleUsers(`Bearer ${minted.key}`)).toEqual([users.alice!.id])
    expect(await visibleUsers(minted.key)).toEqual([users.alice!.id])
    const view = await t.api('GET', `/api/collections/users/records/${users.alice!.id}`, {
      token: minted.key,
    })
    expect(view.status).toBe(200)
    expect(view.body.email).toBe('alice@example.com')
    const other = await t.api('GET', `/api/collections/users/records/${users.bob!.id}`, {
      token: minted.key,
    })
    expect(other.status).toBe(404)
  })

  it('mints distinct keys each time', async () => {
    const a = await mint(users.alice!.token, { name: 'a' })
    const b = await mint(users.alice!.token, { name: 'b' })
    expect(a.key).not.toBe(b.key)
    expect(a.id).not.toBe(b.id)
  })

  it('stores only the SHA-256 of the key, and never returns it again', async () => {
    const minted = await mint(users.alice!.token, { name: 'at rest' })
    const row = await t.server.app.db.get<Record<string, unknown>>(
      sql`SELECT * FROM _api_keys WHERE id = ${minted.id}`,
    )
    expect(row).toBeDefined()
    expect(row!.keyHash).toBe(createHash('sha256').update(minted.key).digest('hex'))
    expect(row!.recordRef).toBe(users.alice!.id)
    expect(row!.collectionRef).toBe('_pb_users_auth_')
    expect(JSON.stringify(row)).not.toContain(minted.key)
    expect(JSON.stringify(row)).not.toContain(minted.key.slice(4))

    const list = await t.api('GET', '/api/collections/_api_keys/records', {
      token: users.alice!.token,
    })
    expect(list.status).toBe(200)
    const item = (list.body.items as Record<string, unknown>[]).find((i) => i.id === minted.id)
    expect(item).toMatchObject({
      id: minted.id,
      name: 'at rest',
      recordRef: users.alice!.id,
      collectionRef: '_pb_users_auth_',
      expires: '',
    })
    expect(item).not.toHaveProperty('keyHash')
    expect(JSON.stringify(list.body)).not.toContain(minted.key)
    expect(JSON.stringify(list.body)).not.toContain(row!.keyHash as string)

    const view = await t.api('GET', `/api/collections/_api_keys/records/${minted.id}`, {
      token: minted.key,
    })
    expect(view.status).toBe(200)
    expect(view.body).not.toHaveProperty('keyHash')
    expect(JSON.stringify(view.body)).not.toContain(minted.key)
  })

  it('sets expires from duration, and an expired key is a guest', async () => {
    const before = Date.now()
    const minted = await mint(users.alice!.token, { name: 'short', duration: 3600 })
    const expires = Date.parse(minted.expires.replace(' ', 'T'))
    expect(expires).toBeGreaterThanOrEqual(before + 3600_000 - 1000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 3600_000 + 1000)
    expect(await visibleUsers(minted.key)).toEqual([users.alice!.id])

    const past = await t.api('PATCH', `/api/collections/_api_keys/records/${minted.id}`, {
      token: t.suToken,
      body: { expires: '2000-01-01 00:00:00.000Z' },
    })
    expect(past.status, JSON.stringify(past.body)).toBe(200)
    expect(await visibleUsers(minted.key)).toEqual([])
    const mintAgain = await t.api('POST', '/api/api-keys', {
      token: minted.key,
      body: { name: 'x' },
    })
    expect(mintAgain.status).toBe(401)
  })

  it('lets owners list and revoke their keys; a revoked key stops working', async () => {
    const minted = await mint(users.alice!.token, { name: 'to revoke' })
    expect(await visibleUsers(minted.key)).toEqual([users.alice!.id])

    const aliceList = await t.api('GET', '/api/collections/_api_keys/records', {
      token: users.alice!.token,
    })
    const ids = (aliceList.body.items as { id: string; recordRef: string }[]).map((i) => i.id)
    expect(ids).toContain(minted.id)
    for (const item of aliceList.body.items) expect(item.recordRef).toBe(users.alice!.id)

    const del = await t.api('DELETE', `/api/collections/_api_keys/records/${minted.id}`, {
      token: users.alice!.token,
    })
    expect(del.status).toBe(204)
    expect(await visibleUsers(minted.key)).toEqual([])
    const gone = await t.api('GET', `/api/collections/_api_keys/records/${minted.id}`, {
      token: users.alice!.token,
    })
    expect(gone.status).toBe(404)
  })

  it("hides a user's keys from another user, who cannot delete them either (404)", async () => {
    const minted = await mint(users.alice!.token, { name: 'private' })
    const bob = users.bob!.token
    const list = await t.api('GET', '/api/collections/_api_keys/records', { token: bob })
    expect(list.status).toBe(200)
    expect(list.body.items).toEqual([])
    const view = await t.api('GET', `/api/collections/_api_keys/records/${minted.id}`, {
      token: bob,
    })
    expect(view.status).toBe(404)
    const del = await t.api('DELETE', `/api/collections/_api_keys/records/${minted.id}`, {
      token: bob,
    })
    expect(del.status).toBe(404)
    const guest = await t.api('GET', '/api/collections/_api_keys/records')
    expect(guest.body.items).toEqual([])
    // Still there and still working for its owner.
    expect(await visibleUsers(minted.key)).toEqual([users.alice!.id])
  })

  it('cannot be created, updated or forged through the records API', async () => {
    const create = await t.api('POST', '/api/collections/_api_keys/records', {
      token: users.alice!.token,
      body: {
        name: 'forged',
        keyHash: 'x',
        recordRef: users.bob!.id,
        collectionRef: '_pb_users_auth_',
      },
    })
    expect(create.status).toBe(403)
    const minted = await mint(users.alice!.token, { name: 'fixed' })
    const update = await t.api('PATCH', `/api/collections/_api_keys/records/${minted.id}`, {
      token: users.alice!.token,
      body: { recordRef: users.bob!.id },
    })
    expect(update.status).toBe(403)
  })

  it('refuses to mint a key with a key', async () => {
    const minted = await mint(users.alice!.token, { name: 'parent' })
    const res = await t.api('POST', '/api/api-keys', { token: minted.key, body: { name: 'child' } })
    expect(res.status).toBe(403)
  })

  it('treats an unknown key as a guest, not 401', async () => {
    const unknown = `svc_${'Z'.repeat(40)}`
    expect(await visibleUsers(unknown)).toEqual([])
    expect(await visibleUsers('svc_short')).toEqual([])
    const health = await t.api('GET', '/api/health', { token: unknown })
    expect(health.status).toBe(200)
  })

  it('records lastUsed off the request path', async () => {
    const minted = await mint(users.alice!.token, { name: 'used' })
    const stamp = async () =>
      (
        await t.api('GET', `/api/collections/_api_keys/records/${minted.id}`, {
          token: users.alice!.token,
        })
      ).body.lastUsed as string
    expect(await stamp()).toBe('')
    await Promise.all([1, 2, 3].map(() => visibleUsers(minted.key)))
    let lastUsed = ''
    for (let i = 0; i < 50 && lastUsed === ''; i++) {
      await new Promise((r) => setTimeout(r, 20))
      lastUsed = await stamp()
    }
    expect(lastUsed).toMatch(DATE_RE)
    // Within the minute, further use does not write again.
    await visibleUsers(minted.key)
    await new Promise((r) => setTimeout(r, 100))
    expect(await stamp()).toBe(lastUsed)
  })

  it('works for superusers on superuser-only endpoints', async () => {
    const minted = await mint(t.suToken, { name: 'admin automation' })
    const res = await t.api('GET', '/api/collections', { token: minted.key })
    expect(res.status).toBe(200)
    const row = await t.server.app.db.get<{ collectionRef: string }>(
      sql`SELECT "collectionRef" FROM _api_keys WHERE id = ${minted.id}`,
    )
    expect(row?.collectionRef).toBe('pbc_3142635823')
  })
})

describe('API keys and other credentials', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('are not refreshable into a normal token, and go when their owner is deleted', async () => {
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'k@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'k@example.com', password: 'password123' },
    })
    const minted = await t.api('POST', '/api/api-keys', {
      token: login.body.token,
      body: { name: 'ci' },
    })
    expect(minted.status).toBe(200)
    const refreshed = await t.api('POST', '/api/collections/users/auth-refresh', {
      token: minted.body.key,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.token).toBe(minted.body.key)
    expect(
      (
        await t.api('DELETE', `/api/collections/users/records/${login.body.record.id}`, {
          token: t.suToken,
        })
      ).status,
    ).toBe(204)
    const left = await t.api('GET', '/api/collections/_api_keys/records', { token: t.suToken })
    expect(left.body.items.filter((k: any) => k.recordRef === login.body.record.id)).toEqual([])
  })

  it('validates IP lists in settings', async () => {
    const res = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { superuserIPs: ['10.0.0.1', 'nope'], rateLimits: { excludedIPs: ['1.2.3.0/33'] } },
    })
    expect(res.status).toBe(400)
    expect(res.body.data.superuserIPs['1'].code).toBe('validation_invlaid_ip_or_subnet')
    expect(res.body.data.rateLimits.excludedIPs['0'].code).toBe('validation_invlaid_ip_or_subnet')
  })
})
