import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

/**
 * A view's file fields show the files of the records they are read from, and are served from
 * there, as PocketBase's `FindRecordByViewFile`: through views of views, under the view's own
 * viewRule (PocketBase 0.40.4, checked against the oracle in `test/pocketbase/groups/files.ts`).
 */
describe('files of a view collection', () => {
  let t: TestServer
  let doc: { id: string; img: string[]; secret: string }

  const download = async (path: string) => {
    const res = await fetch(`${t.url}${path}`)
    return { status: res.status, body: Buffer.from(await res.arrayBuffer()) }
  }
  const view = async (name: string, viewQuery: string, viewRule: string | null = '') => {
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name, type: 'view', viewQuery, listRule: viewRule, viewRule },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'img', type: 'file', maxSelect: 2, thumbs: ['10x10'] },
          { name: 'secret', type: 'file', maxSelect: 1, protected: true },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const png = await sharp({
      create: { width: 40, height: 30, channels: 3, background: '#3366cc' },
    })
      .png()
      .toBuffer()
    const f = new FormData()
    f.append('title', 'one')
    f.append('img', new Blob([png]), 'pic.png')
    f.append('img', new Blob([png]), 'more.png')
    f.append('secret', new Blob(['top secret']), 'secret.txt')
    const created = await t.api('POST', '/api/collections/docs/records', {
      token: t.suToken,
      raw: f,
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    doc = created.body as typeof doc
    expect(doc.img).toHaveLength(2)
    await view('docs_view', 'SELECT id, title, img, secret FROM docs')
    await view('docs_renamed', "SELECT (id || 'x') AS id, img AS pictures FROM docs")
    await view('docs_nested', 'SELECT v.id, v.img, v.secret FROM docs_view v')
    await view('docs_closed', 'SELECT id, secret FROM docs', '@request.auth.id != ""')
  })
  afterAll(() => t.close())

  it('serves a view record’s file, each of a multi-file field, from the source record', async () => {
    for (const name of doc.img) {
      const r = await download(`/api/files/docs_view/${doc.id}/${name}`)
      expect(r.status).toBe(200)
      expect((await sharp(r.body).metadata()).width).toBe(40)
    }
  })

  it('makes the thumbs the field allows from the source file', async () => {
    const r = await download(`/api/files/docs_view/${doc.id}/${doc.img[0]}?thumb=10x10`)
    expect(r.status).toBe(200)
    const meta = await sharp(r.body).metadata()
    expect([meta.width, meta.height]).toEqual([10, 10])
  })

  it('finds the source record when the view’s id and field name are its own', async () => {
    const r = await download(`/api/files/docs_renamed/${doc.id}x/${doc.img[1]}`)
    expect(r.status).toBe(200)
    expect((await sharp(r.body).metadata()).height).toBe(30)
  })

  it('follows a view of a view', async () => {
    const r = await download(`/api/files/docs_nested/${doc.id}/${doc.secret}`)
    expect(r.status).toBe(200)
    expect(r.body.toString()).toBe('top secret')
  })

  it('gates a protected file by the view’s own viewRule, not the source’s', async () => {
    // The view's viewRule is public: a protected file needs no token (as in PocketBase).
    expect((await download(`/api/files/docs_view/${doc.id}/${doc.secret}`)).status).toBe(200)
    expect((await download(`/api/files/docs_closed/${doc.id}/${doc.secret}`)).status).toBe(404)
    const token = await t.api('POST', '/api/files/token', { token: t.suToken })
    const r = await download(
      `/api/files/docs_closed/${doc.id}/${doc.secret}?token=${String(token.body.token)}`,
    )
    expect(r.status).toBe(200)
  })

  it('answers 404 for a name the view record does not hold', async () => {
    const r = await download(`/api/files/docs_view/${doc.id}/nope_abc.png`)
    expect(r.status).toBe(404)
  })
})
