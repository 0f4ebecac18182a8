/**
 * POST /api/batch semantics: items run in order in one transaction and each gets its answer;
 * any failure rolls every item back (files included) with the failing index; collection rules
 * apply per item; record events are published only after the commit; the official SDK works.
 * Limits and validation: batch-limits.test.ts.
 */
import PocketBase, { ClientResponseError } from 'pocketbase'
import { describe, expect, it } from 'vitest'
import { sleep, useBatchServer } from './helpers/batch.js'

describe('POST /api/batch', () => {
  const s = useBatchServer({ enabled: true })
  const { su, batch, post, titles } = s

  it('runs create, update, upsert and delete in order and answers each', async () => {
    const toUpdate = await post('to update')
    const toDelete = await post('to delete')
    const toUpsert = await post('to upsert')
    const newId = 'upsertnew000001'
    const res = await batch([
      {
        method: 'POST',
        url: '/api/collections/posts/records?expand=author',
        body: { title: 'created', author: s.authorId },
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
      author: s.authorId,
      collectionName: 'posts',
      expand: { author: { id: s.authorId, name: 'Ada' } },
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
      { method: 'POST', url: '/api/collections/posts/records', body: { author: s.authorId } },
      { method: 'POST', url: '/api/collections/posts/records', body: { title: 'never run' } },
    ])
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      code: 400,
      status: 400,
      message: 'Batch transaction failed.',
      data: {
        requests: {
          '2': {
            code: 'batch_request_failed',
            message: 'Batch request failed.',
            response: {
              code: 400,
              status: 400,
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
          headers: { Authorization: s.t.suToken },
          body: { title: 'x' },
        },
      ],
      null,
    )
    expect(guest.status).toBe(400)
    expect(guest.body.data.requests['0'].response).toEqual({
      code: 400,
      status: 400,
      message: 'Failed to create record.',
      data: {},
    })
    const user = await su('POST', '/api/collections/users/records', {
      email: 'member@example.com',
      password: 'password123',
      passwordConfirm: 'password123',
    })
    expect(user.status).toBe(200)
    const login = await s.t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'member@example.com', password: 'password123' },
    })
    const ok = await batch(
      [{ method: 'POST', url: '/api/collections/members/records', body: { title: 'mine' } }],
      login.body.token as string,
    )
    expect(ok.status).toBe(200)

    // A rule on @request.context and the item's headers: refused outside a batch.
    const direct = await s.t.api('POST', '/api/collections/batchonly/records', {
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
      response: {
        code: 404,
        status: 404,
        message: "The requested resource wasn't found.",
        data: {},
      },
    })
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
    const res = await s.t.api('POST', '/api/batch', { token: s.t.suToken, raw: form })
    expect(res.status).toBe(200)
    const [one, two] = res.body.map((r: { body: Record<string, unknown> }) => r.body)
    expect(one.attachment).toHaveLength(1)
    expect(one.attachment[0]).toMatch(/^first_[a-z0-9]{10}\.txt$/)
    expect(two.attachment).toHaveLength(2)
    expect(await s.t.storedKeys(`${s.docsId}/${one.id}/`)).toEqual([
      `${s.docsId}/${one.id}/${one.attachment[0]}`,
    ])
    expect(await s.t.storedKeys(`${s.docsId}/${two.id}/`)).toHaveLength(2)
    const file = await fetch(`${s.t.url}/api/files/docs/${one.id}/${one.attachment[0]}`)
    expect(await file.text()).toBe('first file')

    const before = await s.t.storedKeys(`${s.docsId}/`)
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
    const bad = await s.t.api('POST', '/api/batch', { token: s.t.suToken, raw: failing })
    expect(bad.status).toBe(400)
    expect(bad.body.data.requests['2'].response.data.name.code).toBe('validation_required')
    expect(await s.t.storedKeys(`${s.docsId}/`)).toEqual(before)
    const names = await su('GET', '/api/collections/docs/records?perPage=500')
    expect(names.body.items.map((r: { name: string }) => r.name).sort()).toEqual(['one', 'two'])
    expect(names.body.items.find((r: { id: string }) => r.id === one.id).attachment).toEqual(
      one.attachment,
    )
  })

  it('emits record events only after the commit', async () => {
    const seenDuringTx: number[] = []
    const hook = s.t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        await e.next()
        await sleep(30) // long enough for an already-published event to be delivered
        seenDuringTx.push(s.events.length)
      },
      ['authors'],
    )
    try {
      s.events.length = 0
      const failed = await batch([
        { method: 'POST', url: '/api/collections/authors/records', body: { name: 'e1' } },
        { method: 'POST', url: '/api/collections/posts/records', body: {} },
      ])
      expect(failed.status).toBe(400)
      await sleep(50)
      expect(s.events).toEqual([])

      const ok = await batch([
        { method: 'POST', url: '/api/collections/authors/records', body: { name: 'e2' } },
        { method: 'POST', url: '/api/collections/authors/records', body: { name: 'e3' } },
        { method: 'DELETE', url: `/api/collections/authors/records/${s.authorId}` },
      ])
      expect(ok.status).toBe(200)
      expect(seenDuringTx).toEqual([0, 0, 0])
      await sleep(50)
      const records = s.events.flatMap((e) =>
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
      s.t.server.app.hooks.onRecordCreate.unbind(hook)
    }
  })

  it('works with the official SDK (pb.createBatch)', async () => {
    const pb = new PocketBase(s.t.url)
    pb.autoCancellation(false)
    pb.authStore.save(s.t.suToken)
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
