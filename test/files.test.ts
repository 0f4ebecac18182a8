import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { s3Settings } from './helpers/s3.js'
import { startServer, type TestServer } from './helpers/server.js'

const png = (w: number, h: number) =>
  sharp({ create: { width: w, height: h, channels: 3, background: '#3366cc' } })
    .png()
    .toBuffer()

describe.each(['local', 's3'] as const)('file fields on %s storage', (driver) => {
  let t: TestServer
  let owner: { id: string; token: string }
  let other: { id: string; token: string }
  let image: Buffer

  const user = async (email: string) => {
    const r = await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'password123', passwordConfirm: 'password123' },
    })
    const l = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: email, password: 'password123' },
    })
    return { id: r.body.id as string, token: l.body.token as string }
  }
  const form = (fields: Record<string, string>, files: [string, Buffer | string, string][]) => {
    const f = new FormData()
    for (const [k, v] of Object.entries(fields)) f.append(k, v)
    for (const [k, data, name] of files) f.append(k, new Blob([data]), name)
    return f
  }
  const download = async (path: string, headers: Record<string, string> = {}) => {
    const res = await fetch(`${t.url}${path}`, { headers })
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) }
  }
  const listKeys = (prefix: string): Promise<string[]> => t.storedKeys(prefix)

  beforeAll(async () => {
    t = await startServer()
    if (driver === 's3') {
      const res = await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { s3: s3Settings() },
      })
      expect(res.status).toBe(200)
    }
    owner = await user('owner@example.com')
    other = await user('other@example.com')
    image = await png(200, 100)
    const res = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'docs',
        listRule: 'owner = @request.auth.id',
        viewRule: 'owner = @request.auth.id',
        createRule: '@request.auth.id != "" && owner = @request.auth.id',
        updateRule: 'owner = @request.auth.id',
        deleteRule: 'owner = @request.auth.id',
        schema: [
          { name: 'owner', type: 'text' },
          { name: 'single', type: 'file', options: { maxSelect: 1, maxSize: 200_000 } },
          {
            name: 'multi',
            type: 'file',
            options: { maxSelect: 3, thumbs: ['50x50', '20x0', '40x40f'] },
          },
          {
            name: 'images',
            type: 'file',
            options: { maxSelect: 2, mimeTypes: ['image/png', 'image/jpeg'] },
          },
          { name: 'secret', type: 'file', options: { maxSelect: 1, protected: true } },
        ],
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  })
  afterAll(() => t.close())

  const create = (
    fields: Record<string, string>,
    files: [string, Buffer | string, string][],
    token = owner.token,
  ) =>
    t.api('POST', '/api/collections/docs/records', {
      token,
      raw: form({ owner: owner.id, ...fields }, files),
    })

  it('uploads single and multiple files with PocketBase names and serves them back', async () => {
    const res = await create({}, [
      ['single', image, 'My Photo.PNG'],
      ['multi', 'one', 'a.txt'],
      ['multi', 'two', 'b.txt'],
    ])
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    // The extension keeps its case, as PocketBase 0.40.4 stores it.
    expect(res.body.single).toMatch(/^my_photo_[a-z0-9]{10}\.PNG$/)
    expect(res.body.multi).toHaveLength(2)
    expect(res.body.multi[0]).toMatch(/^a[a-z0-9]{10}_[a-z0-9]{10}\.txt$/)
    const c = res.body.collectionId
    const img = await download(`/api/files/${c}/${res.body.id}/${res.body.single}`, {
      authorization: owner.token,
    })
    expect(img.status).toBe(200)
    expect(img.body.equals(image)).toBe(true)
    expect(img.headers.get('content-type')).toBe('image/png')
    expect(img.headers.get('content-disposition')).toMatch(/^inline/)
    expect(img.headers.get('content-security-policy')).toContain('sandbox')
    expect(img.headers.get('x-frame-options')).toBeNull()
    const attach = await download(`/api/files/${c}/${res.body.id}/${res.body.single}?download=1`, {
      authorization: owner.token,
    })
    expect(attach.headers.get('content-disposition')).toMatch(/^attachment/)
    const txt = await download(`/api/files/${c}/${res.body.id}/${res.body.multi[1]}`, {
      authorization: owner.token,
    })
    expect(txt.body.toString()).toBe('two')
    expect(txt.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(txt.headers.get('content-disposition')).toMatch(/^inline/)
    expect(await listKeys(`${c}/${res.body.id}/`)).toHaveLength(3)
  })

  it('serves HTML uploads as an attachment, never as a page', async () => {
    const res = await create({}, [['multi', '<script>alert(1)</script>', 'x.html']])
    const file = await download(
      `/api/files/${res.body.collectionId}/${res.body.id}/${res.body.multi[0]}`,
      { authorization: owner.token },
    )
    expect(file.headers.get('content-type')).toBe('application/octet-stream')
    expect(file.headers.get('content-disposition')).toMatch(/^attachment/)
  })

  it('appends, removes and replaces files, deleting replaced ones after commit', async () => {
    const res = await create({}, [
      ['single', 'first', 'first.txt'],
      ['multi', '1', 'one.txt'],
    ])
    const { id, collectionId: c } = res.body
    const base = `/api/collections/docs/records/${id}`
    const appended = await t.api('PATCH', base, {
      token: owner.token,
      raw: form({}, [
        ['multi+', '2', 'two.txt'],
        ['+multi', '0', 'zero.txt'],
      ]),
    })
    expect(appended.status, JSON.stringify(appended.body)).toBe(200)
    expect(appended.body.multi).toHaveLength(3)
    expect(appended.body.multi[0]).toMatch(/^zero_/)
    expect(appended.body.multi[2]).toMatch(/^two_/)
    const tooMany = await t.api('PATCH', base, {
      token: owner.token,
      raw: form({}, [['multi+', '3', 'three.txt']]),
    })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body.data.multi.code).toBe('validation_too_many_files')
    expect(await listKeys(`${c}/${id}/`)).toHaveLength(4) // the refused upload left nothing behind
    const removedName = appended.body.multi[1]
    const removed = await t.api('PATCH', base, {
      token: owner.token,
      body: { 'multi-': removedName },
    })
    expect(removed.body.multi).not.toContain(removedName)
    expect(
      (await download(`/api/files/${c}/${id}/${removedName}`, { authorization: owner.token }))
        .status,
    ).toBe(404)
    const oldSingle = res.body.single
    const replaced = await t.api('PATCH', base, {
      token: owner.token,
      raw: form({}, [['single', 'second', 'second.txt']]),
    })
    expect(replaced.body.single).toMatch(/^second_/)
    expect((await listKeys(`${c}/${id}/`)).some((k) => k.endsWith(oldSingle))).toBe(false)
    const cleared = await t.api('PATCH', base, {
      token: owner.token,
      body: { single: null, multi: [] },
    })
    expect(cleared.body).toMatchObject({ single: '', multi: [] })
    expect(await listKeys(`${c}/${id}/`)).toEqual([])
    const bogus = await t.api('PATCH', base, {
      token: owner.token,
      body: { multi: ['not_uploaded.txt'] },
    })
    expect(bogus.body.data.multi.code).toBe('validation_invalid_file')
  })

  it('validates size and mime types with PocketBase codes, storing nothing', async () => {
    const big = await create({}, [['single', Buffer.alloc(300_000, 1), 'big.bin']])
    expect(big.status).toBe(400)
    expect(big.body.data.single.code).toBe('validation_file_size_limit')
    const mime = await create({}, [['images', 'plain text', 'fake.png']])
    expect(mime.status).toBe(400)
    expect(mime.body.data.images.code).toBe('validation_invalid_mime_type')
    const denied = await create({ owner: other.id }, [['single', 'x', 'x.txt']])
    expect(denied.status).toBe(400)
    expect(denied.body.message).toBe('Failed to create record.')
    const all = await listKeys('')
    const records = await t.api('GET', '/api/collections/docs/records?perPage=100', {
      token: t.suToken,
    })
    const names = new Set(
      records.body.items.flatMap((r: any) =>
        [r.single, ...r.multi, ...r.images, r.secret].filter(Boolean),
      ),
    )
    expect(
      all.filter((k) => !k.includes('/thumbs_')).every((k) => names.has(k.split('/').pop())),
    ).toBe(true)
  })

  it('gates downloads by viewRule: bearer, file token, other users, guests', async () => {
    const res = await create({}, [
      ['secret', 'classified', 's.txt'],
      ['single', 'open', 'o.txt'],
    ])
    const { id, collectionId: c } = res.body
    for (const name of [res.body.secret, res.body.single]) {
      const path = `/api/files/${c}/${id}/${name}`
      expect((await download(path)).status).toBe(404)
      expect((await download(path, { authorization: other.token })).status).toBe(404)
      expect((await download(path, { authorization: owner.token })).status).toBe(200)
      const mine = await t.api('POST', '/api/files/token', { token: owner.token })
      expect(mine.status).toBe(200)
      expect((await download(`${path}?token=${mine.body.token}`)).body.toString()).toMatch(
        /classified|open/,
      )
      const theirs = await t.api('POST', '/api/files/token', { token: other.token })
      expect((await download(`${path}?token=${theirs.body.token}`)).status).toBe(404)
      expect((await download(`${path}?token=garbage`)).status).toBe(404)
    }
    expect((await t.api('POST', '/api/files/token')).status).toBe(401)
    expect(
      (await download(`/api/files/${c}/${id}/unknown.txt`, { authorization: owner.token })).status,
    ).toBe(404)
    // PocketBase's words for an unknown collection and a path without a file name.
    const nope = await t.api('GET', `/api/files/nope/${id}/x.txt`)
    expect([nope.status, nope.body.message]).toEqual([
      404,
      'Missing or invalid collection context.',
    ])
    const bare = await t.api('GET', `/api/files/${c}/${id}/`)
    expect([bare.status, bare.body.message]).toEqual([404, 'File not found.'])
  })

  it('cuts a long file name when storing it, as PocketBase (not a 400)', async () => {
    const res = await create({}, [['single', 'x', `${'n'.repeat(160)}.txt`]])
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.single).toMatch(/^n{100}_[a-z0-9]{10}\.txt$/)
  })

  it('answers range requests', async () => {
    const res = await create({}, [['single', 'abcdefghij', 'r.txt']])
    const path = `/api/files/${res.body.collectionId}/${res.body.id}/${res.body.single}`
    const part = await download(path, { authorization: owner.token, range: 'bytes=2-5' })
    expect(part.status).toBe(206)
    expect(part.body.toString()).toBe('cdef')
    expect(part.headers.get('content-range')).toBe('bytes 2-5/10')
    const tail = await download(path, { authorization: owner.token, range: 'bytes=-3' })
    expect(tail.body.toString()).toBe('hij')
    const bad = await download(path, { authorization: owner.token, range: 'bytes=50-60' })
    expect(bad.status).toBe(416)
  })

  it('makes allowed thumbnails once, caches them, and serves the original otherwise', async () => {
    const res = await create({}, [['multi', image, 'pic.png']])
    const { id, collectionId: c } = res.body
    const name = res.body.multi[0]
    const path = `/api/files/${c}/${id}/${name}`
    const dims = async (size: string) => {
      const r = await download(`${path}?thumb=${size}`, { authorization: owner.token })
      expect(r.status).toBe(200)
      const m = await sharp(r.body).metadata()
      return [m.width, m.height]
    }
    const parallel = await Promise.all(Array.from({ length: 8 }, () => dims('50x50')))
    for (const d of parallel) expect(d).toEqual([50, 50])
    expect(await dims('20x0')).toEqual([20, 10])
    expect(await dims('40x40f')).toEqual([40, 20])
    expect(await dims('100x100')).toEqual([100, 100])
    expect(await dims('30x30')).toEqual([200, 100]) // not allowed: the original
    const thumbs = (await listKeys(`${c}/${id}/`)).filter((k) => k.includes('/thumbs_'))
    expect(thumbs.map((k) => k.split('/').pop()!.split('_')[0]).sort()).toEqual([
      '100x100',
      '20x0',
      '40x40f',
      '50x50',
    ])
    const del = await t.api('DELETE', `/api/collections/docs/records/${id}`, { token: owner.token })
    expect(del.status).toBe(204)
    expect(await listKeys(`${c}/${id}/`)).toEqual([])
  })

  it('deletes files with their field and their collection', async () => {
    const col = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: `gone_${driver}`,
        createRule: '',
        schema: [
          { name: 'a', type: 'file' },
          { name: 'b', type: 'file' },
        ],
      },
    })
    const rec = await t.api('POST', `/api/collections/gone_${driver}/records`, {
      raw: form({}, [
        ['a', 'A', 'a.txt'],
        ['b', 'B', 'b.txt'],
      ]),
    })
    expect(rec.status).toBe(200)
    const prefix = `${col.body.id}/`
    expect(await listKeys(prefix)).toHaveLength(2)
    const schema = col.body.schema.filter((f: any) => f.name !== 'b')
    expect(
      (
        await t.api('PATCH', `/api/collections/gone_${driver}`, {
          token: t.suToken,
          body: { schema },
        })
      ).status,
    ).toBe(200)
    expect((await listKeys(prefix)).map((k) => k.split('/').pop()!)).toEqual([rec.body.a])
    expect(
      (await t.api('DELETE', `/api/collections/gone_${driver}`, { token: t.suToken })).status,
    ).toBe(204)
    expect(await listKeys(prefix)).toEqual([])
  })
})
