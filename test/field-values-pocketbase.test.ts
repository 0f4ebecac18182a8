/**
 * Record field values stored and shown as PocketBase 0.40.4 stores and shows them (checked against
 * it): a value that does not read as the field's type is its zero value, not an error; password
 * fields of base collections show as `""`; a create lists every failing field; select, date and
 * password errors are worded as PocketBase words them. On SQLite and on PostgreSQL
 * (SVC_TEST_PG_URL, started by the global setup).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }

async function setUp(t: TestServer): Promise<void> {
  const make = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', '/api/collections', { token: t.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.id as string
  }
  const tgt = await make({ name: 'targets', fields: [{ name: 'label', type: 'text' }], ...open })
  for (const id of ['tgt000000000001', 'tgt000000000002']) {
    const res = await t.api('POST', '/api/collections/targets/records', { body: { id } })
    expect(res.status).toBe(200)
  }
  await make({
    name: 'kinds',
    ...open,
    fields: [
      { name: 'txt', type: 'text' },
      { name: 'num', type: 'number' },
      { name: 'flag', type: 'bool' },
      { name: 'mail', type: 'email', onlyDomains: ['example.com'] },
      { name: 'html', type: 'editor' },
      { name: 'link', type: 'url' },
      { name: 'day', type: 'date' },
      { name: 'pick', type: 'select', values: ['a', 'b'], maxSelect: 1 },
      { name: 'picks', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
      { name: 'refs', type: 'relation', collectionId: tgt, maxSelect: 3 },
      { name: 'geo', type: 'geoPoint' },
      { name: 'secret', type: 'password' },
    ],
  })
  await make({
    name: 'bounded',
    ...open,
    fields: [
      { name: 'day', type: 'date', min: '2020-01-01 00:00:00.000Z' },
      { name: 'secret', type: 'password', min: 8, max: 12 },
    ],
  })
  await make({ name: 'members', type: 'auth', ...open })
  await make({
    name: 'needs',
    ...open,
    fields: [
      { name: 'txt', type: 'text', required: true },
      { name: 'num', type: 'number', required: true },
      { name: 'flag', type: 'bool', required: true },
      { name: 'day', type: 'date', required: true },
      { name: 'secret', type: 'password', required: true },
    ],
  })
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`field values as PocketBase stores them, on ${engine}`, () => {
    let t: TestServer
    const create = (body: Record<string, unknown>, col = 'kinds') =>
      t.api('POST', `/api/collections/${col}/records`, { body })
    /** Creates a record, reads it back and returns the stored value of `field`. */
    const stored = async (field: string, value: unknown) => {
      const res = await create({ [field]: value })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const view = await t.api('GET', `/api/collections/kinds/records/${res.body.id}`)
      expect(view.body[field]).toEqual(res.body[field])
      return view.body[field] as unknown
    }

    beforeAll(async () => {
      t = await startOn(engine === 'postgres')
      await setUp(t)
    })
    afterAll(() => t?.close())

    it('stores the zero value for what does not read as the field type', async () => {
      expect(await stored('num', 'abc')).toBe(0)
      expect(await stored('num', ' 12 ')).toBe(0)
      expect(await stored('num', '0x10')).toBe(0)
      expect(await stored('num', [5])).toBe(0)
      expect(await stored('num', '1e3')).toBe(1000)
      expect(await stored('flag', 'yes')).toBe(false)
      expect(await stored('flag', 'on')).toBe(false)
      expect(await stored('flag', 'TRUE')).toBe(true)
      expect(await stored('txt', ['a', 'b'])).toBe('')
      expect(await stored('txt', { a: 1 })).toBe('')
      expect(await stored('txt', 1e21)).toBe('1000000000000000000000')
      expect(await stored('html', [])).toBe('')
      expect(await stored('mail', {})).toBe('')
      expect(await stored('day', 'not a date')).toBe('')
      expect(await stored('day', 1700000000)).toBe('')
      expect(await stored('day', '2024-01-02T03:04')).toBe('')
      expect(await stored('day', 'Tue, 02 Jan 2024 03:04:05 GMT')).toBe('2024-01-02 03:04:05.000Z')
      expect(await stored('pick', { a: 1 })).toBe('')
      expect(await stored('picks', ['a', { b: 1 }])).toEqual([])
      expect(await stored('refs', { a: 1 })).toEqual([])
      expect(await stored('geo', { lon: '1', lat: 2 })).toEqual({ lon: 0, lat: 0 })
      expect(await stored('geo', 'junk')).toEqual({ lon: 0, lat: 0 })
      expect(await stored('geo', '{"lon":3,"lat":4}')).toEqual({ lon: 3, lat: 4 })
    })

    it('shows a password field of a base collection as "", never its hash', async () => {
      const res = await create({ secret: 'secret12345' })
      expect(res.status).toBe(200)
      expect(res.body.secret).toBe('')
      const list = await t.api('GET', '/api/collections/kinds/records?perPage=1', {
        token: t.suToken,
      })
      expect(list.body.items[0].secret).toBe('')
      // An auth collection's own password stays out, for superusers too.
      const users = await t.api('GET', '/api/collections/_superusers/records', {
        token: t.suToken,
      })
      expect(users.body.items[0]).not.toHaveProperty('password')
      expect(users.body.items[0]).not.toHaveProperty('tokenKey')
    })

    it('applies modifiers as PocketBase: junk adds nothing, +num and password+ are ignored', async () => {
      const rec = await create({ num: 10, refs: ['tgt000000000001', 'tgt000000000002'] })
      const url = `/api/collections/kinds/records/${rec.body.id}`
      const patch = async (body: Record<string, unknown>) => {
        const res = await t.api('PATCH', url, { body })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        return res.body
      }
      expect((await patch({ 'num+': 'x' })).num).toBe(10)
      expect((await patch({ 'num+': [] })).num).toBe(10)
      expect((await patch({ 'num-': ' 4 ' })).num).toBe(10)
      expect((await patch({ '+num': 1 })).num).toBe(10)
      expect((await patch({ 'num+': true })).num).toBe(11)
      expect((await patch({ 'refs-': { a: 1 } })).refs).toEqual([
        'tgt000000000001',
        'tgt000000000002',
      ])
      expect((await t.api('GET', url)).body).toMatchObject({ num: 11 })
      // A password has no modifiers: `password+` changes nothing.
      const pair = { password: 'oldpass123', passwordConfirm: 'oldpass123' }
      const m = await create({ email: 'm@example.com', ...pair }, 'members')
      expect(m.status, JSON.stringify(m.body)).toBe(200)
      const plus = await t.api('PATCH', `/api/collections/members/records/${m.body.id}`, {
        token: t.suToken,
        body: { 'password+': 'newpass123' },
      })
      expect(plus.status, JSON.stringify(plus.body)).toBe(200)
      const login = (password: string) =>
        t.api('POST', '/api/collections/members/auth-with-password', {
          body: { identity: 'm@example.com', password },
        })
      expect((await login('oldpass123')).status).toBe(200)
      expect((await login('newpass123')).status).toBe(400)
    })

    it('reads a text part sent twice as no text, as PocketBase', async () => {
      const form = new FormData()
      form.append('txt', 'one')
      form.append('txt', 'two')
      form.append('flag', 'on')
      form.append('num', '7')
      const res = await t.api('POST', '/api/collections/kinds/records', { raw: form })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(res.body).toMatchObject({ txt: '', flag: false, num: 7 })
    })

    it('lists every failing field of a create or update, not only the password', async () => {
      const res = await create({}, 'needs')
      expect(res.status).toBe(400)
      const codes = Object.fromEntries(
        Object.entries(res.body.data as Record<string, { code: string }>).map(([k, v]) => [
          k,
          v.code,
        ]),
      )
      expect(codes).toEqual({
        txt: 'validation_required',
        num: 'validation_required',
        flag: 'validation_required',
        day: 'validation_required',
        secret: 'validation_required',
      })
      const yes = await create(
        { txt: 'x', num: 1, flag: 'yes', day: '2024-01-02', secret: 'pw' },
        'needs',
      )
      expect(yes.status).toBe(400)
      expect(yes.body.data).toEqual({
        flag: { code: 'validation_required', message: 'Cannot be blank.' },
      })
      // An auth record's password checks answer alone, as PocketBase's auth form does.
      const member = await create({}, 'members')
      expect(Object.keys(member.body.data).sort()).toEqual(['password', 'passwordConfirm'])
      // An update too: the password's error comes with the others.
      const full = { txt: 'x', num: 1, flag: true, day: '2024-01-02', secret: 'pw' }
      const rec = await create(full, 'needs')
      expect(rec.status, JSON.stringify(rec.body)).toBe(200)
      const upd = await t.api('PATCH', `/api/collections/needs/records/${rec.body.id}`, {
        body: { secret: '', txt: '' },
      })
      expect(upd.status).toBe(400)
      expect(Object.keys(upd.body.data).sort()).toEqual(['secret', 'txt'])
    })

    it('words select, date, password, email and url errors as PocketBase', async () => {
      const pick = await create({ pick: ' 12 ', picks: ['a', 'nope'] })
      expect(pick.body.data).toEqual({
        pick: {
          code: 'validation_invalid_value',
          message: 'Invalid value  12.',
          params: { value: ' 12 ' },
        },
        picks: {
          code: 'validation_invalid_value',
          message: 'Invalid value nope.',
          params: { value: 'nope' },
        },
      })
      const day = await create({ day: '2019-12-31 23:59:59.999Z' }, 'bounded')
      expect(day.body.data.day).toEqual({
        code: 'validation_min_greater_equal_than_required',
        message: 'Must be no less than 2020-01-01 00:00:00 +0000 UTC.',
        params: { threshold: '2020-01-01T00:00:00Z' },
      })
      const short = await create({ secret: 'abcdefg' }, 'bounded')
      expect(short.body.data.secret).toEqual({
        code: 'validation_min_text_constraint',
        message: 'Must be at least 8 character(s).',
      })
      const mail = await create({ mail: 'a@EXAMPLE.com' })
      expect(mail.body.data.mail.code).toBe('validation_email_domain_not_allowed')
      // URLs as govalidator checks them: no scheme or mailto: pass, an upper-case scheme does not.
      expect(await stored('link', 'example.com')).toBe('example.com')
      expect(await stored('link', 'mailto:a@example.com')).toBe('mailto:a@example.com')
      const upper = await create({ link: 'HTTP://EXAMPLE.COM' })
      expect(upper.body.data.link.code).toBe('validation_invalid_url')
    })
  })
}
