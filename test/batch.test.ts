import PocketBase, { ClientResponseError } from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BusEvent } from '../src/core/events.js'
import { startServer, type TestServer } from './helpers/server.js'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe('POST /api/batch', () => {
  let t: TestServer
  let authorId: string
  let docsId: string
  const events: BusEvent[] = []

  const su = (method: string, path: string, body?: unknown) =>
    t.api(method, path, { token: t.suToken, body })
  const settings = async (batch: Record<string, unknown>) => {
    const res = await su('PATCH', '/api/settings', { batch })
    expect(res.status).toBe(200)
  }
  const batch = (requests: unknown[], token: string | null = t.suToken) =>
    t.api('POST', '/api/batch', { token, body: { requests } })
  const post = async (title: string) => {
    const res = await su('POST', '/api/collections/posts/records', { title })
    expect(res.status).toBe(200)
    return res.body.id as string
  }
  const titles = async () => {
    const res = await su('GET', '/api/collections/posts/records?perPage=500&sort=title')
    return (res.body.items as { title: string }[]).map((r) => r.title)
  }
  const storedKeys = (prefix: string): Promise<string[]> => t.storedKeys(prefix)

  beforeAll(async () => {
    t = await startServer()
    const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
    const authors = await su('POST', '/api/collections', {
      name: 'authors',
      ...open,
      schema: [{ name: 'name', type: 'text' }],
    })
    expect(authors.status).toBe(200)
    const posts = await su('POST', '/api/collections', {
      name: 'posts',
      ...open,
      schema: [
        { name: 'title', type: 'text', required: true },
        {
          name: 'author',
          type: 'relation',
          options: { collectionId: authors.body.id, maxSelect: 1 },
        },
      ],
    })
    expect(posts.status).toBe(200)
    const members = await su('POST', '/api/collections', {
      name: 'members',
      ...open,
      createRule: '@request.auth.id != ""',
      schema: [{ name: 'title', type: 'text' }],
    })
    expect(members.status).toBe(200)
    const batchOnly = await su('POST', '/api/collections', {
      name: 'batchonly',
      ...open,
      createRule: '@request.context = "batch" && @request.headers.x_tag = "ok"',
      schema: [{ name: 'title', type: 'text' }],
    })
    expect(batchOnly.status).toBe(200)
    const docs = await su('POST', '/api/collections', {
      name: 'docs',
      ...open,
      schema: [
        { name: 'name', type: 'text', required: true },
        { name: 'attachment', type: 'file', options: { maxSelect: 2, maxSize: 100_000 } },
      ],
    })
    expect(docs.status).toBe(200)
    docsId = docs.body.id as string
    const author = await su('POST', '/api/collections/authors/records', { name: 'Ada' })
    authorId = author.body.id as string
    t.server.app.events.subscribe((e) => {
      events.push(e)
    })
  })
  afterAll(() => t.close())

  it('answers 403 while batch is disabled (the default)', async () => {
    const res = await batch([{ method: 'POST', url: '/api/collections/posts/records' }])
    expect(res.status).toBe(403)
    expect(res.body).toEqual({ code: 403, message: 'Batch requests are not allowed.', data: {} })
    const settingsRes = await su('GET', '/api/settings')
    expect(settingsRes.body.batch).toEqual({
      enabled: false,
      maxRequests: 50,
      timeout: 3,
      maxBodySize: 0,
    })
    await settings({ enabled: true })
  })

  it('runs create, update, upsert and delete in order and answers each', async () => {
    const toUpdate = await post('to update')
    const toDelete = await post('to delete')
    const toUpsert = await post('to upsert')
    const newId = 'upsertnew000001'
    const res = await batch([
      {
        method: 'POST',
        url: '/api/collections/posts/records?expand=author',
        body: { title: 'created', author: authorId },
      },
      {
        method: 'PATCH',
        url: `/api/collections/posts/records/${toUpdate}`,
        body: { title: 'updated' },
      },
      {
        method: 'PUT',
        url: '/api/collections/posts/records',
        body: { id: toUpsert, title: 'upserted' },
      },
      {
        method: 'PUT',
        url: '/api/collections/posts/records',
        body: { id: newId, title: 'upcreated' },
      },
      { method: 'DELETE', url: `/api/collections/posts/records/${toDelete}` },
      {
        method: 'POST',
        url: '/api/collections/posts/records?fields=title',
        body: { title: 'picked' },
      },
    ])
    expect(res.status).toBe(200)
    expect(res.body).toHaveLength(6)
    expect(res.body.map((r: { status: number }) => r.status)).toEqual([
      200, 200, 200, 200, 204, 200,
    ])
    const [created, updated, upserted, upcreated, deleted, picked] = res.body
    expect(created.body).toMatchObject({
      title: 'created',
      author: authorId,
      collectionName: 'posts',
      expand: { author: { id: authorId, name: 'Ada' } },
    })
    expect(updated.body).toMatchObject({ id: toUpdate, title: 'updated' })
    expect(updated.body.expand).toBeUndefined()
    expect(upserted.body).toMatchObject({ id: toUpsert, title: 'upserted' })
    expect(upcreated.body).toMatchObject({ id: newId, title: 'upcreated' })
    expect(deleted).toEqual({ body: null, status: 204 })
    expect(picked).toEqual({ body: { title: 'picked' }, status: 200 })
    expect(await titles()).toEqual(['created', 'picked', 'upcreated', 'updated', 'upserted'])
    expect((await su('GET', `/api/collections/posts/records/${toDelete}`)).status).toBe(404)
  })

  it('rolls back every earlier item when item 2 fails, with the exact error shape', async () => {
    const keep = await post('keep')
    const before = await titles()
    const res = await batch([
      { method: 'POST', url: '/api/collections/posts/records', body: { title: 'first' } },
      {
        method: 'PATCH',
        url: `/api/collections/posts/records/${keep}`,
        body: { title: 'changed' },
      },
      { method: 'POST', url: '/api/collections/posts/records', body: { author: authorId } },
      { method: 'POST', url: '/api/collections/posts/records', body: { title: 'never run' } },
    ])
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      code: 400,
      message: 'Batch transaction failed.',
      data: {
        requests: {
          '2': {
            code: 'batch_request_failed',
            message: 'Batch request failed.',
            response: {
              code: 400,
              message: 'Failed to create record.',
              data: { title: { code: 'validation_required', message: 'Cannot be blank.' } },
            },
          },
        },
      },
    })
    expect(await titles()).toEqual(before)
    expect((await su('GET', `/api/collections/posts/records/${keep}`)).body.title).toBe('keep')
  })

  it('applies each collection rule per item, with the batch auth and context', async () => {
    const guest = await batch(
      [
        {
          method: 'POST',
          url: '/api/collections/members/records',
          headers: { Authorization: t.suToken },
          body: { title: 'x' },
        },
      ],
      null,
    )
    expect(guest.status).toBe(400)
    expect(guest.body.data.requests['0'].response).toEqual({
      code: 400,
      message: 'Failed to create record.',
      data: {},
    })
    const user = await su('POST', '/api/collections/users/records', {
      email: 'member@example.com',
      password: 'password123',
      passwordConfirm: 'password123',
    })
    expect(user.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'member@example.com', password: 'password123' },
    })
    const ok = await batch(
      [{ method: 'POST', url: '/api/collections/members/records', body: { title: 'mine' } }],
      login.body.token as string,
    )
    expect(ok.status).toBe(200)

    // A rule on @request.context and the item's headers: refused outside a batch.
    const direct = await t.api('POST', '/api/collections/batchonly/records', {
      headers: { 'x-tag': 'ok' },
      body: { title: 'direct' },
    })
    expect(direct.status).toBe(400)
    const tagged = await batch(
      [
        {
          method: 'POST',
          url: '/api/collections/batchonly/records',
          headers: { 'X-Tag': 'ok' },
          body: { title: 'tagged' },
        },
      ],
      null,
    )
    expect(tagged.status).toBe(200)
    expect(tagged.body[0].body.title).toBe('tagged')
    const untagged = await batch(
      [{ method: 'POST', url: '/api/collections/batchonly/records', body: { title: 'no' } }],
      null,
    )
    expect(untagged.status).toBe(400)

    // A delete the guest may not see is a 404 inside the envelope.
    const id = await post('guarded')
    await su('PATCH', '/api/collections/posts', { deleteRule: '@request.auth.id != ""' })
    const denied = await batch(
      [{ method: 'DELETE', url: `/api/collections/posts/records/${id}` }],
      null,
    )
    await su('PATCH', '/api/collections/posts', { deleteRule: '' })
    expect(denied.status).toBe(400)
    expect(denied.body.data.requests['0']).toEqual({
      code: 'batch_request_failed',
      message: 'Batch request failed.',
      response: { code: 404, message: "The requested resource wasn't found.", data: {} },
    })
  })

  it('validates the request list: empty and more than maxRequests', async () => {
    const empty = await batch([])
    expect(empty.status).toBe(400)
    expect(empty.body).toEqual({
      code: 400,
      message: 'Invalid batch request data.',
      data: { requests: { code: 'validation_required', message: 'Cannot be blank.' } },
    })
    const missing = await t.api('POST', '/api/batch', { token: t.suToken, body: {} })
    expect(missing.body.data.requests.code).toBe('validation_required')

    await settings({ maxRequests: 2 })
    const item = { method: 'POST', url: '/api/collections/posts/records', body: { title: 'n' } }
    const tooMany = await batch([item, item, item])
    await settings({ maxRequests: 50 })
    expect(tooMany.status).toBe(400)
    expect(tooMany.body).toEqual({
      code: 400,
      message: 'Invalid batch request data.',
      data: {
        requests: {
          code: 'validation_length_too_long',
          message: 'The length must be no more than 2.',
          params: { min: 0, max: 2 },
        },
      },
    })
    expect(await titles()).not.toContain('n')
  })

  it('refuses invalid methods and URLs with the index of the item', async () => {
    const fields = await batch([
      { method: 'POST', url: '/api/collections/posts/records' },
      { method: 'FETCH', url: '/api/collections/posts/records' },
      { method: 'POST' },
      { method: 'POST', url: `/api/collections/posts/records?filter=${'x'.repeat(2000)}` },
    ])
    expect(fields.status).toBe(400)
    expect(fields.body).toEqual({
      code: 400,
      message: 'Invalid batch request data.',
      data: {
        requests: {
          '1': { method: { code: 'validation_in_invalid', message: 'Must be a valid value.' } },
          '2': { url: { code: 'validation_required', message: 'Cannot be blank.' } },
          '3': {
            url: {
              code: 'validation_length_too_long',
              message: 'The length must be no more than 2000.',
              params: { min: 0, max: 2000 },
            },
          },
        },
      },
    })

    const unsupported: [string, string][] = [
      ['GET', '/api/collections/posts/records'],
      ['POST', '/api/collections'],
      ['PATCH', '/api/collections/posts/records'],
      ['POST', '/api/collections/posts/records/abc'],
      ['DELETE', '/api/settings'],
      ['POST', '/api/collections/posts/records/'],
    ]
    for (const [method, url] of unsupported) {
      const before = await titles()
      const res = await batch([
        { method: 'POST', url: '/api/collections/posts/records', body: { title: 'pre' } },
        { method, url, body: { title: 'x' } },
      ])
      expect(res.status, `${method} ${url}`).toBe(400)
      expect(res.body.message).toBe('Batch transaction failed.')
      expect(Object.keys(res.body.data.requests)).toEqual(['1'])
      expect(res.body.data.requests['1']).toMatchObject({
        code: 'batch_request_failed',
        response: { code: 400, data: {} },
      })
      expect(await titles()).toEqual(before)
    }

    const unknown = await batch([
      { method: 'POST', url: '/api/collections/nope/records', body: { title: 'x' } },
    ])
    expect(unknown.body.data.requests['0'].response).toEqual({
      code: 404,
      message: 'Missing collection context.',
      data: {},
    })

    const malformed = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: { requests: 'nope' },
    })
    expect(malformed.status).toBe(400)
    expect(malformed.body.message).toMatch(/^Failed to read the submitted batch data/)
  })

  it('limits the body by batch.maxBodySize instead of the global limit', async () => {
    await settings({ maxBodySize: 2048 })
    const big = await batch([
      { method: 'POST', url: '/api/collections/posts/records', body: { title: 'y'.repeat(4096) } },
    ])
    expect(big.status).toBe(413)
    expect(big.body).toEqual({ code: 413, message: 'Request entity too large.', data: {} })
    const small = await batch([
      { method: 'POST', url: '/api/collections/posts/records', body: { title: 'small body' } },
    ])
    expect(small.status).toBe(200)

    // A chunked body (no Content-Length) is cut off while it streams.
    const text = JSON.stringify({
      requests: [
        {
          method: 'POST',
          url: '/api/collections/posts/records',
          body: { title: 'y'.repeat(4096) },
        },
      ],
    })
    const chunked = await fetch(`${t.url}/api/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: t.suToken },
      body: new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text))
          controller.close()
        },
      }),
      duplex: 'half',
    })
    expect(chunked.status).toBe(413)

    const form = new FormData()
    form.append(
      '@jsonPayload',
      JSON.stringify({
        requests: [{ method: 'POST', url: '/api/collections/docs/records', body: { name: 'big' } }],
      }),
    )
    form.append('requests.0.attachment', new Blob([Buffer.alloc(8192, 1)]), 'big.bin')
    const multipart = await t.api('POST', '/api/batch', { token: t.suToken, raw: form })
    expect(multipart.status).toBe(413)
    await settings({ maxBodySize: 0 })

    // 0 means 128 MiB, above the global 32 MiB: a 33 MiB JSON body goes through.
    const huge = await batch([
      {
        method: 'POST',
        url: '/api/collections/docs/records',
        body: { name: 'z'.repeat(33 << 20) },
      },
    ])
    expect(huge.status).toBe(400)
    expect(huge.body.data.requests['0'].response.data.name.code).toBe(
      'validation_max_text_constraint',
    )
  })

  it('rolls back and answers 400 when the batch outlives batch.timeout', async () => {
    await settings({ timeout: 1 })
    const hook = t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        if (e.record.title === 'slow') await sleep(2500)
        await e.next()
      },
      ['posts'],
    )
    try {
      const started = Date.now()
      const res = await batch([
        { method: 'POST', url: '/api/collections/posts/records', body: { title: 'fast' } },
        { method: 'POST', url: '/api/collections/posts/records', body: { title: 'slow' } },
      ])
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ code: 400, message: 'Batch transaction failed.', data: {} })
      expect(Date.now() - started).toBeLessThan(2400)
    } finally {
      t.server.app.hooks.onRecordCreate.unbind(hook)
      await settings({ timeout: 3 })
    }
    // The PATCH above waited for the writer, so the abandoned transaction has rolled back.
    const list = await titles()
    expect(list).not.toContain('fast')
    expect(list).not.toContain('slow')
  })

  it('rolls back when the client goes away before the batch ends', async () => {
    const hook = t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        if (e.record.title === 'dropped') await sleep(600)
        await e.next()
      },
      ['posts'],
    )
    try {
      const sent = fetch(`${t.url}/api/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: t.suToken },
        body: JSON.stringify({
          requests: [
            { method: 'POST', url: '/api/collections/posts/records', body: { title: 'kept?' } },
            { method: 'POST', url: '/api/collections/posts/records', body: { title: 'dropped' } },
          ],
        }),
        signal: AbortSignal.timeout(150),
      })
      await expect(sent).rejects.toThrow()
      await sleep(800)
    } finally {
      t.server.app.hooks.onRecordCreate.unbind(hook)
    }
    const list = await titles()
    expect(list).not.toContain('kept?')
    expect(list).not.toContain('dropped')
  })

  it('stores the files of a multipart batch, and none of a failed one', async () => {
    const form = new FormData()
    form.append(
      '@jsonPayload',
      JSON.stringify({
        requests: [
          { method: 'POST', url: '/api/collections/docs/records', body: { name: 'one' } },
          { method: 'POST', url: '/api/collections/docs/records', body: { name: 'two' } },
        ],
      }),
    )
    form.append('requests.0.attachment', new Blob(['first file']), 'first.txt')
    form.append('requests[1].attachment', new Blob(['second file']), 'second.txt')
    form.append('requests[1].attachment', new Blob(['third file']), 'third.txt')
    const res = await t.api('POST', '/api/batch', { token: t.suToken, raw: form })
    expect(res.status).toBe(200)
    const [one, two] = res.body.map((r: { body: Record<string, unknown> }) => r.body)
    expect(one.attachment).toHaveLength(1)
    expect(one.attachment[0]).toMatch(/^first_[a-z0-9]{10}\.txt$/)
    expect(two.attachment).toHaveLength(2)
    expect(await storedKeys(`${docsId}/${one.id}/`)).toEqual([
      `${docsId}/${one.id}/${one.attachment[0]}`,
    ])
    expect(await storedKeys(`${docsId}/${two.id}/`)).toHaveLength(2)
    const file = await fetch(`${t.url}/api/files/docs/${one.id}/${one.attachment[0]}`)
    expect(await file.text()).toBe('first file')

    const before = await storedKeys(`${docsId}/`)
    const failing = new FormData()
    failing.append(
      '@jsonPayload',
      JSON.stringify({
        requests: [
          { method: 'POST', url: '/api/collections/docs/records', body: { name: 'three' } },
          { method: 'PATCH', url: `/api/collections/docs/records/${one.id}`, body: {} },
          { method: 'POST', url: '/api/collections/docs/records', body: {} },
        ],
      }),
    )
    failing.append('requests.0.attachment', new Blob(['orphan 0']), 'orphan0.txt')
    failing.append('requests.1.attachment+', new Blob(['orphan 1']), 'orphan1.txt')
    failing.append('requests.2.attachment', new Blob(['orphan 2']), 'orphan2.txt')
    const bad = await t.api('POST', '/api/batch', { token: t.suToken, raw: failing })
    expect(bad.status).toBe(400)
    expect(bad.body.data.requests['2'].response.data.name.code).toBe('validation_required')
    expect(await storedKeys(`${docsId}/`)).toEqual(before)
    const names = await su('GET', '/api/collections/docs/records?perPage=500')
    expect(names.body.items.map((r: { name: string }) => r.name).sort()).toEqual(['one', 'two'])
    expect(names.body.items.find((r: { id: string }) => r.id === one.id).attachment).toEqual(
      one.attachment,
    )
  })

  it('emits record events only after the commit', async () => {
    const seenDuringTx: number[] = []
    const hook = t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        await e.next()
        await sleep(30) // long enough for an already-published event to be delivered
        seenDuringTx.push(events.length)
      },
      ['authors'],
    )
    try {
      events.length = 0
      const failed = await batch([
        { method: 'POST', url: '/api/collections/authors/records', body: { name: 'e1' } },
        { method: 'POST', url: '/api/collections/posts/records', body: {} },
      ])
      expect(failed.status).toBe(400)
      await sleep(50)
      expect(events).toEqual([])

      const ok = await batch([
        { method: 'POST', url: '/api/collections/authors/records', body: { name: 'e2' } },
        { method: 'POST', url: '/api/collections/authors/records', body: { name: 'e3' } },
        { method: 'DELETE', url: `/api/collections/authors/records/${authorId}` },
      ])
      expect(ok.status).toBe(200)
      expect(seenDuringTx).toEqual([0, 0, 0])
      await sleep(50)
      const records = events.flatMap((e) =>
        e.kind === 'record' && e.collection.name === 'authors'
          ? [[e.action, e.record.name ?? e.record.id]]
          : [],
      )
      expect(records).toEqual([
        ['create', 'e2'],
        ['create', 'e3'],
        ['delete', 'Ada'],
      ])
    } finally {
      t.server.app.hooks.onRecordCreate.unbind(hook)
    }
  })

  it('works with the official SDK (pb.createBatch)', async () => {
    const pb = new PocketBase(t.url)
    pb.autoCancellation(false)
    pb.authStore.save(t.suToken)
    const target = await post('sdk target')
    const gone = await post('sdk gone')
    const b = pb.createBatch()
    b.collection('posts').create({ title: 'sdk created' }, { fields: 'id,title' })
    b.collection('posts').update(target, { title: 'sdk updated' })
    b.collection('posts').upsert({ id: 'sdkupsert000001', title: 'sdk upserted' })
    b.collection('posts').delete(gone)
    b.collection('docs').create({
      name: 'sdk doc',
      attachment: [new File(['sdk file'], 'sdk.txt', { type: 'text/plain' })],
    })
    const res = await b.send()
    expect(res.map((r) => r.status)).toEqual([200, 200, 200, 204, 200])
    expect(Object.keys(res[0]!.body as object).sort()).toEqual(['id', 'title'])
    expect(res[1]!.body).toMatchObject({ id: target, title: 'sdk updated' })
    expect(res[2]!.body).toMatchObject({ id: 'sdkupsert000001', title: 'sdk upserted' })
    expect(res[4]!.body.attachment).toHaveLength(1)
    expect(await pb.collection('posts').getOne('sdkupsert000001')).toMatchObject({
      title: 'sdk upserted',
    })

    const failing = pb.createBatch()
    failing.collection('posts').create({ title: 'sdk never' })
    failing.collection('posts').create({})
    const err: unknown = await failing.send().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ClientResponseError)
    expect((err as ClientResponseError).status).toBe(400)
    expect((err as ClientResponseError).response.data.requests['1'].code).toBe(
      'batch_request_failed',
    )
    expect(await titles()).not.toContain('sdk never')
  })
})
