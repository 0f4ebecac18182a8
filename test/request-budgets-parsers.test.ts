/**
 * Issue 11, point 3: client mistakes that reached a parser (page numbers past int64,
 * multipart bodies without a boundary or cut short, numbers a double cannot hold) get a precise
 * 400 or keep their value, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('client mistakes that reached a parser (point 3)', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
    const c = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        listRule: '',
        createRule: '',
        schema: [{ name: 'title', type: 'text' }],
      },
    })
    expect(c.status).toBe(200)
  })
  afterAll(() => t.close())

  it('a page is any int64, as PocketBase reads it, on the records, collections and logs lists', async () => {
    for (const path of ['/api/collections/docs/records', '/api/collections', '/api/logs']) {
      for (const page of ['9223372036854775808', '9'.repeat(400)]) {
        const res = await t.api('GET', `${path}?page=${page}`, { token: t.suToken })
        expect(res.status, path).toBe(400)
        expect(res.body).toEqual({
          code: 400,
          status: 400,
          message: 'Invalid "page" value: must be at most 9223372036854775807.',
          data: {},
        })
      }
      const last = await t.api('GET', `${path}?page=1000000001&perPage=1000`, {
        token: t.suToken,
      })
      expect(last.status, path).toBe(200)
      expect(last.body.items).toEqual([])
      // NB: as in PocketBase, an offset past int64 wraps around: this page reads from the start.
      const huge = await t.api('GET', `${path}?page=9223372036854775807`, { token: t.suToken })
      expect(huge.status, path).toBe(200)
      expect(huge.body.page).toBe(2 ** 63) // 9223372036854775807 read as a double
      const bad = await t.api('GET', `${path}?page=1e3`, { token: t.suToken })
      expect(bad.body.message).toBe('Invalid "page" value: expected an integer.')
    }
    const perPage = await t.api('GET', '/api/collections/docs/records?perPage=400000000000000000')
    expect(perPage.status).toBe(200)
    expect(perPage.body.perPage).toBe(500)
  })

  it('multipart/form-data without a boundary is a 400', async () => {
    const res = await t.api('POST', '/api/collections/docs/records', {
      raw: 'title=x',
      headers: { 'content-type': 'multipart/form-data' },
    })
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      code: 400,
      status: 400,
      message:
        'Failed to read the submitted data: multipart/form-data without a boundary parameter.',
      data: {},
    })
    const fd = new FormData()
    fd.set('title', 'with a boundary')
    const ok = await t.api('POST', '/api/collections/docs/records', { raw: fd })
    expect(ok.status).toBe(200)
    expect(ok.body.title).toBe('with a boundary')
  })

  it('a multipart body cut before its closing boundary is a 400 and saves nothing', async () => {
    const before = await t.api('GET', '/api/collections/docs/records', { token: t.suToken })
    const body =
      '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\ncut short\r\n' +
      '--XyZ\r\nContent-Disposition: form-data; name="title"\r\n\r\nsecond'
    const res = await t.api('POST', '/api/collections/docs/records', {
      raw: body,
      headers: { 'content-type': 'multipart/form-data; boundary=XyZ' },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'Failed to read the submitted data: malformed multipart body (it ends before the closing boundary).',
    )
    const after = await t.api('GET', '/api/collections/docs/records', { token: t.suToken })
    expect(after.body.totalItems).toBe(before.body.totalItems)
    // The same body, closed, is read; the delimiter may arrive split over chunks of any size.
    const whole = await t.api('POST', '/api/collections/docs/records', {
      raw: `${body}\r\n--XyZ--\r\n`,
      headers: { 'content-type': 'multipart/form-data; boundary="XyZ"' },
    })
    expect(whole.status, JSON.stringify(whole.body)).toBe(200)
  })

  it('form values keep every digit of numbers a double cannot hold', async () => {
    const fd = new FormData()
    fd.set('title', '12345678901234567890')
    const res = await t.api('POST', '/api/collections/docs/records', { raw: fd })
    expect(res.status).toBe(200)
    expect(res.body.title).toBe('12345678901234567890')
    const small = new FormData()
    small.set('title', '12.5')
    expect((await t.api('POST', '/api/collections/docs/records', { raw: small })).body.title).toBe(
      '12.5',
    )
  })
})
