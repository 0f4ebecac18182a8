import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

/** PocketBase v0.23's top-level auth collection keys. */
const authKeys = [
  'authRule',
  'manageRule',
  'passwordAuth',
  'oauth2',
  'mfa',
  'otp',
  'authAlert',
  'authToken',
  'passwordResetToken',
  'emailChangeToken',
  'verificationToken',
  'fileToken',
  'verificationTemplate',
  'resetPasswordTemplate',
  'confirmEmailChangeTemplate',
]

describe('collection shapes: both views of one model', () => {
  let t: TestServer
  let su: string
  const get = async (name: string) =>
    (await t.api('GET', `/api/collections/${name}`, { token: su })).body
  const patch = (name: string, body: unknown) =>
    t.api('PATCH', `/api/collections/${name}`, { token: su, body })

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    const made = await t.api('POST', '/api/collections', {
      token: su,
      body: {
        name: 'members',
        type: 'auth',
        fields: [
          { name: 'nick', type: 'text', max: 20 },
          { name: 'level', type: 'select', values: ['a', 'b'], maxSelect: 1 },
        ],
      },
    })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
  })
  afterAll(() => t.close())

  it('returns auth options at the top level too, as PocketBase v0.23 does', async () => {
    const c = await get('members')
    for (const key of authKeys) expect(c[key], key).toEqual(c.authOptions[key])
    expect(c.authToken).toEqual({ duration: 432000 })
    expect(JSON.stringify(c)).not.toMatch(/secret/i)
    // Non-auth collections get none of them.
    const base = await get('_logs')
    for (const key of authKeys) expect(base[key], key).toBeUndefined()
  })

  it('reports validation errors at the paths the input used', async () => {
    const top = await patch('members', { otp: { enabled: true, duration: 5 } })
    expect(top.status).toBe(400)
    expect(top.body.data.otp.duration.code).toBe('validation_min_greater_equal_than_required')
    expect(top.body.data.authOptions).toBeUndefined()
    const nested = await patch('members', { authOptions: { otp: { enabled: true, duration: 5 } } })
    expect(nested.body.data.authOptions.otp.duration.code).toBe(
      'validation_min_greater_equal_than_required',
    )
    expect(nested.body.data.otp).toBeUndefined()
    const ids = await patch('members', { passwordAuth: { identityFields: ['nope'] } })
    expect(ids.body.data.passwordAuth.identityFields.code).toBe('validation_missing_field')

    const c = await get('members')
    const bad = { name: 'kind', type: 'select', values: [], maxSelect: 1 }
    const flat = await patch('members', { fields: [...c.fields, bad] })
    expect(flat.status).toBe(400)
    const at = String(c.fields.length)
    expect(flat.body.data.fields[at].values.code).toBe('validation_required')
    expect(flat.body.data.schema).toBeUndefined()
    const spec = await patch('members', {
      schema: [...c.schema, { name: 'kind', type: 'select', options: { values: [] } }],
    })
    expect(spec.body.data.schema[at].options.values.code).toBe('validation_required')
  })

  it('get → edit fields → save applies the edit though the body also carries schema', async () => {
    const c = await get('members')
    c.fields.find((f: any) => f.name === 'nick').max = 30
    c.fields.push({ name: 'bio', type: 'text' })
    const res = await patch('members', c)
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.fields.find((f: any) => f.name === 'nick').max).toBe(30)
    expect(res.body.schema.map((f: any) => f.name)).toContain('bio')
  })

  it('get → edit schema → save applies too; the same edit in both views is fine', async () => {
    const c = await get('members')
    c.schema.find((f: any) => f.name === 'nick').options.max = 40
    expect((await patch('members', c)).body.fields.find((f: any) => f.name === 'nick').max).toBe(40)
    const d = await get('members')
    d.schema.find((f: any) => f.name === 'nick').options.max = 41
    d.fields.find((f: any) => f.name === 'nick').max = 41
    const both = await patch('members', d)
    expect(both.status, JSON.stringify(both.body)).toBe(200)
    expect(both.body.schema.find((f: any) => f.name === 'nick').options.max).toBe(41)
  })

  it('refuses different edits in schema and fields with a 400 that says so', async () => {
    const before = await get('members')
    const c = structuredClone(before)
    c.schema.find((f: any) => f.name === 'nick').options.max = 50
    c.fields.find((f: any) => f.name === 'nick').max = 60
    const res = await patch('members', c)
    expect(res.status).toBe(400)
    expect(res.body.data.fields.code).toBe('validation_conflicting_values')
    expect(res.body.data.schema.code).toBe('validation_conflicting_values')
    expect(res.body.data.fields.message).toMatch(/"schema" and "fields"/)
    expect((await get('members')).fields).toEqual(before.fields)
  })

  it('applies an auth option edit made in either view; refuses different edits in both', async () => {
    const c = await get('members')
    c.otp.duration = 300
    const top = await patch('members', c)
    expect(top.status, JSON.stringify(top.body)).toBe(200)
    expect(top.body.authOptions.otp.duration).toBe(300)
    const d = await get('members')
    d.authOptions.authToken.duration = 7200
    d.authOptions.manageRule = 'id != ""'
    const nested = await patch('members', d)
    expect(nested.status, JSON.stringify(nested.body)).toBe(200)
    expect(nested.body).toMatchObject({ authToken: { duration: 7200 }, manageRule: 'id != ""' })
    const e = await get('members')
    e.mfa.duration = 100
    e.authOptions.mfa.duration = 200
    const conflict = await patch('members', e)
    expect(conflict.status).toBe(400)
    expect(conflict.body.data.mfa.code).toBe('validation_conflicting_values')
    expect((await get('members')).mfa.duration).toBe(d.mfa.duration)
  })

  it('applies an edit of fields in an import body that also carries schema', async () => {
    const c = await get('members')
    c.fields.push({ name: 'imported_too', type: 'bool' })
    const res = await t.api('PUT', '/api/collections/import', {
      token: su,
      body: { collections: [c] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    expect((await get('members')).fields.map((f: any) => f.name)).toContain('imported_too')
  })
})

describe('the official pocketbase SDK: get → edit → save', () => {
  let t: TestServer
  let pb: PocketBase
  beforeAll(async () => {
    t = await startServer()
    pb = new PocketBase(t.url)
    pb.authStore.save(t.suToken)
  })
  afterAll(() => t.close())

  it('edits fields and auth options of the model it read', async () => {
    await pb.collections.create({
      name: 'articles',
      type: 'base',
      fields: [{ name: 'title', type: 'text', max: 10 }],
    })
    const c = await pb.collections.getOne('articles')
    const title = c.fields.find((f) => f.name === 'title')!
    ;(title as any).max = 99
    c.fields.push({ name: 'views', type: 'number', onlyInt: true } as any)
    const saved = await pb.collections.update('articles', c)
    expect(saved.fields.find((f) => f.name === 'title')).toMatchObject({ max: 99 })
    expect(saved.fields.find((f) => f.name === 'views')).toMatchObject({ onlyInt: true })
    const again = await pb.collections.getOne('articles')
    expect(again.fields.map((f) => f.name)).toEqual(['id', 'title', 'created', 'updated', 'views'])

    const users = await pb.collections.getOne('users')
    ;(users as any).otp.enabled = true
    ;(users as any).otp.duration = 120
    const savedUsers: any = await pb.collections.update('users', users)
    expect(savedUsers.otp).toMatchObject({ enabled: true, duration: 120 })
    expect(savedUsers.authOptions.otp).toMatchObject({ enabled: true, duration: 120 })
  })
})
