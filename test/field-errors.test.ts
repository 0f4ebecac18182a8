import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

/**
 * Values that were sent but are not of the field's type: read as PocketBase reads them (the zero
 * value, so "Cannot be blank." when required), errors worded as PocketBase words them.
 */
describe('field errors for values that were sent', () => {
  let t: TestServer
  let tagId: string

  const create = (body: Record<string, unknown>) =>
    t.api('POST', '/api/collections/things/records', { body })

  beforeAll(async () => {
    t = await startServer()
    const tags = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'tags', listRule: '', viewRule: '', fields: [{ name: 'label', type: 'text' }] },
    })
    expect(tags.status, JSON.stringify(tags.body)).toBe(200)
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'things',
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '@request.body.title != "forbidden"',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'count', type: 'number', required: true },
          { name: 'flag', type: 'bool' },
          { name: 'due', type: 'date', required: true },
          { name: 'contact', type: 'email' },
          { name: 'status', type: 'select', values: ['draft', 'live'], maxSelect: 1 },
          { name: 'labels', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
          { name: 'tag', type: 'relation', collectionId: tags.body.id, maxSelect: 1 },
          { name: 'doc', type: 'file', maxSelect: 1 },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const tag = await t.api('POST', '/api/collections/tags/records', {
      token: t.suToken,
      body: { label: 'x' },
    })
    tagId = tag.body.id
  })
  afterAll(() => t.close())

  const valid = () => ({ title: 'ok', count: 1, due: '2024-05-01' })

  it('an object or list for a text field is no text, as PocketBase ("Cannot be blank." if required)', async () => {
    const res = await create({ ...valid(), title: { text: 'hello' } })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to create record.')
    expect(res.body.data).toEqual({
      title: { code: 'validation_required', message: 'Cannot be blank.' },
    })
    const list = await create({ ...valid(), contact: ['a@example.com', { x: 1 }] })
    expect(list.status, JSON.stringify(list.body)).toBe(200)
    expect(list.body.contact).toBe('')
  })

  it('still casts numbers and booleans to text, as PocketBase', async () => {
    const res = await create({ ...valid(), title: 12.5 })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.title).toBe('12.5')
    const flag = await create({ ...valid(), title: true })
    expect(flag.body.title).toBe('true')
    // Multipart: numbers are inferred from text; a repeated key is a list, which is no boolean.
    const form = new FormData()
    form.append('title', '123')
    form.append('count', '7')
    form.append('due', '2024-05-01')
    form.append('flag', 'false')
    form.append('flag', 'true')
    const multi = await t.api('POST', '/api/collections/things/records', { raw: form })
    expect(multi.status, JSON.stringify(multi.body)).toBe(200)
    expect(multi.body).toMatchObject({ title: '123', count: 7, flag: false })
  })

  it('junk for a number, bool or date is stored as 0, false or no date, as PocketBase', async () => {
    const res = await create({ title: 'ok', count: 'twelve', flag: 'maybe', due: 'yesterday' })
    expect(res.status).toBe(400)
    // Required fields read as blank.
    expect(res.body.data).toEqual({
      count: { code: 'validation_required', message: 'Cannot be blank.' },
      due: { code: 'validation_required', message: 'Cannot be blank.' },
    })
    const ok = await create({ ...valid(), flag: 'maybe' })
    expect(ok.status).toBe(200)
    expect(ok.body.flag).toBe(false)
  })

  it('a bad select value is named as sent, with PocketBase code and words', async () => {
    const res = await create({ ...valid(), status: 'gone', labels: ['a', 'z'] })
    expect(res.body.data).toEqual({
      status: {
        code: 'validation_invalid_value',
        message: 'Invalid value gone.',
        params: { value: 'gone' },
      },
      labels: {
        code: 'validation_invalid_value',
        message: 'Invalid value z.',
        params: { value: 'z' },
      },
    })
    const obj = await create({ ...valid(), status: { v: 'draft' }, labels: ['a', { v: 'b' }] })
    expect(obj.status).toBe(200)
    expect(obj.body).toMatchObject({ status: '', labels: [] })
  })

  it('relations name the missing ids; objects for relation and file fields are blank', async () => {
    const missing = await create({ ...valid(), tag: 'nosuchid0000000' })
    expect(missing.body.data.tag).toEqual({
      code: 'validation_missing_rel_records',
      message:
        'Failed to find all relation records with the provided ids (missing: nosuchid0000000).',
      params: { missing: ['nosuchid0000000'] },
    })
    const obj = await create({ ...valid(), tag: { id: tagId }, doc: { name: 'a.txt' } })
    expect(obj.status).toBe(200)
    expect(obj.body).toMatchObject({ tag: '', doc: '' })
    expect((await create({ ...valid(), tag: tagId })).status).toBe(200)
  })

  it('updates read values alike, also behind a rule reading @request.body and for modifiers', async () => {
    const rec = await create(valid())
    expect(rec.status).toBe(200)
    const url = `/api/collections/things/records/${rec.body.id}`
    const obj = await t.api('PATCH', url, { body: { title: { a: 1 } } })
    expect(obj.status).toBe(400)
    expect(obj.body.data.title.code).toBe('validation_required')
    const add = await t.api('PATCH', url, { body: { 'count+': 'abc' } })
    expect(add.status).toBe(200)
    expect(add.body.count).toBe(1)
    const append = await t.api('PATCH', url, { body: { 'labels+': [{ v: 'a' }] } })
    expect(append.status).toBe(200)
    const after = await t.api('GET', url)
    expect(after.body).toMatchObject({ title: 'ok', count: 1, labels: [] })
  })

  it('ignores unknown body keys, as PocketBase does', async () => {
    const res = await create({ ...valid(), nosuchfield: 'x', another: { a: 1 } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body).not.toHaveProperty('nosuchfield')
    expect(res.body).not.toHaveProperty('another')
  })
})
