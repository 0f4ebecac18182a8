import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('plain text downloads (local storage)', () => {
  let t: TestServer
  let collectionId: string

  const upload = async (data: string, name: string) => {
    const form = new FormData()
    form.append('files', new Blob([data]), name)
    const res = await t.api('POST', '/api/collections/notes/records', { raw: form })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return `/api/files/${collectionId}/${res.body.id}/${res.body.files[0]}`
  }
  const download = async (path: string) => {
    const res = await fetch(`${t.url}${path}`)
    return { status: res.status, headers: res.headers, text: await res.text() }
  }

  beforeAll(async () => {
    t = await startServer()
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        listRule: '',
        viewRule: '',
        createRule: '',
        fields: [{ name: 'files', type: 'file', maxSelect: 5 }],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    collectionId = res.body.id
  })
  afterAll(() => t.close())

  it('serves a text/plain upload as text/plain; charset=utf-8 with nosniff, inline (DECISIONS "File downloads")', async () => {
    const res = await download(await upload('héllo wörld', 'notes.txt'))
    expect(res.status).toBe(200)
    expect(res.text).toBe('héllo wörld')
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    expect(res.headers.get('content-disposition')).toMatch(/^inline; filename="notes_/)
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
  })

  it('names text without an extension .txt and serves it the same way', async () => {
    const path = await upload('just some words', 'README')
    expect(path).toMatch(/\/readme_[a-z0-9]{10}\.txt$/)
    const res = await download(path)
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('still serves other text types (HTML, SVG) as octet-stream attachments', async () => {
    for (const [data, name] of [
      ['<script>alert(1)</script>', 'page.html'],
      ['<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>', 'pic.svg'],
    ] as const) {
      const res = await download(await upload(data, name))
      expect(res.headers.get('content-type'), name).toBe('application/octet-stream')
      expect(res.headers.get('content-disposition'), name).toMatch(/^attachment/)
      expect(res.headers.get('x-content-type-options'), name).toBe('nosniff')
    }
  })

  it('serves plain text as an attachment with download=1', async () => {
    const res = await download(`${await upload('x', 'a.txt')}?download=1`)
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment/)
  })
})
