import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

/** Field errors where a value was sent: they say what was wrong, never "Cannot be blank.". */
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

  it('an object or list for a text field is a type error, not "Cannot be blank."', async () => {
    const res = await create({ ...valid(), title: { text: 'hello' } })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to create record.')
    expect(res.body.data).toEqual({
      title: {
        code: 'validation_unsupported_value_type',
        message: 'Must be a string, not an object.',
        params: { expected: 'a string', actual: 'an object' },
      },
    })
    const list = await create({ ...valid(), title: [] })
    expect(list.body.data.title.message).toBe('Must be a string, not an empty list.')
    const email = await create({ ...valid(), contact: ['a@example.com', { x: 1 }] })
    expect(email.body.data.contact.message).toBe('Must be a string, not a list.')
  })

  it('still casts numbers and booleans to text, as PocketBase', async () => {
    const res = await create({ ...valid(), title: 12.5 })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.title).toBe('12.5')
    const flag = await create({ ...valid(), title: true })
    expect(flag.body.title).toBe('true')
    // Multipart: numbers are inferred from text, repeated keys take the last value.
    const form = new FormData()
    form.append('title', '123')
    form.append('count', '7')
    form.append('due', '2024-05-01')
    form.append('flag', 'false')
    form.append('flag', 'on')
    const multi = await t.api('POST', '/api/collections/things/records', { raw: form })
    expect(multi.status, JSON.stringify(multi.body)).toBe(200)
    expect(multi.body).toMatchObject({ title: '123', count: 7, flag: true })
  })

  it('junk for a number, bool or date says so; it is not stored as 0, false or blank', async () => {
    const res = await create({ title: 'ok', count: 'twelve', flag: 'maybe', due: 'yesterday' })
    expect(res.status).toBe(400)
    expect(res.body.data).toEqual({
      count: {
        code: 'validation_unsupported_value_type',
        message: 'Must be a number, not the text "twelve".',
        params: { expected: 'a number', actual: 'the text "twelve"' },
      },
      flag: {
        code: 'validation_unsupported_value_type',
        message: 'Must be a boolean, not the text "maybe".',
        params: { expected: 'a boolean', actual: 'the text "maybe"' },
      },
      due: {
        code: 'validation_date_invalid',
        message:
          'Must be a valid date (such as 2024-01-31 12:00:00.000Z), not the text "yesterday".',
        params: { actual: 'the text "yesterday"' },
      },
    })
    // Blank values are still blank.
    const blank = await create({ title: '', count: '', due: '' })
    expect(
      Object.fromEntries(Object.entries(blank.body.data).map(([k, v]: any) => [k, v.code])),
    ).toEqual({
      title: 'validation_required',
      count: 'validation_required',
      due: 'validation_required',
    })
  })

  it('a bad select value lists the allowed values, with PocketBase code', async () => {
    const res = await create({ ...valid(), status: 'gone', labels: ['a', 'z'] })
    expect(res.body.data).toEqual({
      status: {
        code: 'validation_invalid_value',
        message: 'Invalid value "gone"; allowed values: "draft", "live".',
        params: { value: '"gone"', values: ['"draft"', '"live"'] },
      },
      labels: {
        code: 'validation_invalid_value',
        message: 'Invalid value "z"; allowed values: "a", "b", "c".',
        params: { value: '"z"', values: ['"a"', '"b"', '"c"'] },
      },
    })
    const obj = await create({ ...valid(), status: { v: 'draft' }, labels: ['a', { v: 'b' }] })
    expect(obj.body.data).toMatchObject({
      status: {
        code: 'validation_unsupported_value_type',
        message: 'Must be a string, not an object.',
      },
      labels: {
        code: 'validation_unsupported_value_type',
        message: 'Each value must be a string, not an object.',
      },
    })
  })

  it('relations name the missing ids; objects for relation and file fields are type errors', async () => {
    const missing = await create({ ...valid(), tag: 'nosuchid0000000' })
    expect(missing.body.data.tag).toEqual({
      code: 'validation_missing_rel_records',
      message:
        'Failed to find all relation records with the provided ids (missing: nosuchid0000000).',
      params: { missing: ['nosuchid0000000'] },
    })
    const obj = await create({ ...valid(), tag: { id: tagId }, doc: { name: 'a.txt' } })
    expect(obj.body.data).toMatchObject({
      tag: {
        code: 'validation_unsupported_value_type',
        message: 'Must be a string, not an object.',
      },
      doc: {
        code: 'validation_unsupported_value_type',
        message: 'Must be a string, not an object.',
      },
    })
    expect((await create({ ...valid(), tag: tagId })).status).toBe(200)
  })

  it('updates report the same errors, also behind a rule reading @request.body and for modifiers', async () => {
    const rec = await create(valid())
    expect(rec.status).toBe(200)
    const url = `/api/collections/things/records/${rec.body.id}`
    const obj = await t.api('PATCH', url, { body: { title: { a: 1 } } })
    expect(obj.status).toBe(400)
    expect(obj.body.data.title.code).toBe('validation_unsupported_value_type')
    const add = await t.api('PATCH', url, { body: { 'count+': 'abc' } })
    expect(add.status).toBe(400)
    expect(add.body.data.count.message).toBe('Must be a number, not the text "abc".')
    const append = await t.api('PATCH', url, { body: { 'labels+': [{ v: 'a' }] } })
    expect(append.body.data.labels.code).toBe('validation_unsupported_value_type')
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
