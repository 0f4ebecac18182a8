/**
 * Issue 11, point 2: JSON nesting has a budget (64 levels in a json field, 128 in a body), and a
 * client overstepping it gets a precise 400, never a 500 or a stalled server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const nested = (depth: number, leaf: unknown = 1): unknown => {
  let v: unknown = leaf
  for (let i = 0; i < depth; i++) v = [v]
  return v
}
const nestedText = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth)

describe('JSON nesting depth (point 2)', () => {
  let t: TestServer
  let docId: string

  beforeAll(async () => {
    t = await startServer()
    const c = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        listRule: 'meta != "x"',
        viewRule: '',
        createRule: '',
        updateRule: '@request.body.meta != "x"',
        schema: [
          { name: 'title', type: 'text' },
          { name: 'meta', type: 'json' },
        ],
      },
    })
    expect(c.status, JSON.stringify(c.body)).toBe(200)
    const doc = await t.api('POST', '/api/collections/docs/records', { body: { title: 'd' } })
    docId = doc.body.id as string
  })
  afterAll(() => t.close())

  const tooDeep = {
    code: 'validation_json_too_deep',
    message: 'The maximum allowed JSON nesting depth is 64 levels.',
    params: { maxDepth: 64 },
  }

  it('a json field takes 64 levels and refuses 65 with a field error', async () => {
    const ok = await t.api('POST', '/api/collections/docs/records', {
      body: { title: 'deep', meta: nested(64) },
    })
    expect(ok.status, JSON.stringify(ok.body).slice(0, 300)).toBe(200)
    expect(ok.body.meta).toEqual(nested(64))
    // A string holding JSON is read as JSON: 1 001 levels used to be stored, breaking every
    // later list with a rule or filter on the field (SQLite's JSON functions stop at 1 000).
    for (const meta of [nested(65), { a: nested(64) }, JSON.stringify(nested(1001))]) {
      const res = await t.api('POST', '/api/collections/docs/records', { body: { meta } })
      expect(res.status).toBe(400)
      expect(res.body.data).toEqual({ meta: tooDeep })
    }
  })

  it('a body nested 5 000 deep is refused while parsing, whatever the format', async () => {
    const json = await t.api('POST', '/api/collections/docs/records', {
      raw: `{"meta":${nestedText(5000)}}`,
      headers: { 'content-type': 'application/json' },
    })
    expect(json.status).toBe(400)
    expect(json.body.message).toBe(
      'Failed to read the submitted data: the JSON body is nested deeper than 128 levels.',
    )
    const form = await t.api('POST', '/api/collections/docs/records', {
      raw: `@jsonPayload=${encodeURIComponent(`{"meta":${nestedText(5000)}}`)}`,
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(400)
    expect(form.body.message).toBe(
      'Failed to read the submitted data: @jsonPayload is nested deeper than 128 levels.',
    )
    const fd = new FormData()
    fd.set('meta', nestedText(5000))
    const multipart = await t.api('POST', '/api/collections/docs/records', { raw: fd })
    expect(multipart.status).toBe(400)
    expect(multipart.body.data).toEqual({ meta: tooDeep })
    // The updateRule reads @request.body.meta before validation: still a field error.
    const patch = new FormData()
    patch.set('meta', nestedText(5000))
    const updated = await t.api('PATCH', `/api/collections/docs/records/${docId}`, { raw: patch })
    expect(updated.status).toBe(400)
    expect(updated.body.data).toEqual({ meta: tooDeep })
  })

  it('lists with a rule and a filter on the field keep working, fields= included', async () => {
    const list = await t.api(
      'GET',
      `/api/collections/docs/records?filter=${encodeURIComponent('meta.0.0.0 != 7')}`,
    )
    expect(list.status, JSON.stringify(list.body).slice(0, 300)).toBe(200)
    expect(list.body.totalItems).toBe(2)
    const fields = `meta${'.0'.repeat(3000)}`
    const picked = await t.api('GET', `/api/collections/docs/records?fields=${fields}`)
    expect(picked.status).toBe(200)
    expect(picked.body.items).toHaveLength(2)
  })
})
