/**
 * POST /api/batch limits: off by default, the request list validated (empty, more than
 * batch.maxRequests, bad methods and URLs), the body capped by batch.maxBodySize, and a batch
 * rolled back when it outlives batch.timeout or its client goes away.
 */
import { describe, expect, it } from 'vitest'
import { sleep, useBatchServer } from './helpers/batch.js'
import { itScenarios, type Scenario } from './helpers/scenario.js'

const ITEM = { method: 'POST', url: '/api/collections/posts/records', body: { title: 'n' } }
/** A refused batch writes nothing: no record hook past the checks, no record event. */
const NO_WRITES = {
  onRecordCreate: 0,
  onRecordAfterCreateSuccess: 0,
  'bus:record.create': 0,
  '*': 0,
}
const invalid = (data: unknown) => ({
  code: 400,
  status: 400,
  message: 'Invalid batch request data.',
  data,
})

describe('POST /api/batch limits', () => {
  const s = useBatchServer({ enabled: false })
  const { settings, batch, titles } = s
  const BATCH = { method: 'POST', url: '/api/batch', token: 'superuser' }

  itScenarios(
    () => s.t,
    [
      {
        ...BATCH,
        name: 'answers 403 while batch is disabled (the default)',
        body: { requests: [{ method: 'POST', url: '/api/collections/posts/records' }] },
        expectedStatus: 403,
        expectedEvents: NO_WRITES,
        expect: (res) =>
          expect(res.body).toEqual({
            code: 403,
            status: 403,
            message: 'Batch requests are not allowed.',
            data: {},
          }),
      },
      {
        name: 'has batch off by default: 50 requests, 3 s, no own body limit',
        method: 'GET',
        url: '/api/settings',
        token: 'superuser',
        expectedStatus: 200,
        expect: (res) =>
          expect(res.body.batch).toEqual({
            enabled: false,
            maxRequests: 50,
            timeout: 3,
            maxBodySize: 0,
          }),
        afterTest: () => settings({ enabled: true }),
      },
    ],
  )

  describe('validates the request list: empty and more than maxRequests', () => {
    const scenarios: Scenario[] = [
      {
        ...BATCH,
        name: 'an empty list',
        body: { requests: [] },
        expectedStatus: 400,
        expectedEvents: NO_WRITES,
        expect: (res) =>
          expect(res.body).toEqual(
            invalid({ requests: { code: 'validation_required', message: 'Cannot be blank.' } }),
          ),
      },
      {
        ...BATCH,
        name: 'no list',
        body: {},
        expectedStatus: 400,
        expectedContent: ['"data":{"requests":{"code":"validation_required"'],
        expect: (res) => expect(res.body.data.requests.code).toBe('validation_required'),
      },
      {
        ...BATCH,
        name: 'more items than batch.maxRequests',
        beforeTest: () => settings({ maxRequests: 2 }),
        body: { requests: [ITEM, ITEM, ITEM] },
        expectedStatus: 400,
        expectedEvents: NO_WRITES,
        async expect(res) {
          expect(res.body).toEqual(
            invalid({
              requests: {
                code: 'validation_length_too_long',
                message: 'The length must be no more than 2.',
                params: { min: 0, max: 2 },
              },
            }),
          )
          expect(await titles()).not.toContain('n')
        },
        afterTest: () => settings({ maxRequests: 50 }),
      },
    ]
    itScenarios(() => s.t, scenarios)
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
      status: 400,
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
        response: { code: 400, status: 400, data: {} },
      })
      expect(await titles()).toEqual(before)
    }

    const unknown = await batch([
      { method: 'POST', url: '/api/collections/nope/records', body: { title: 'x' } },
    ])
    expect(unknown.body.data.requests['0'].response).toEqual({
      code: 404,
      status: 404,
      message: 'Missing collection context.',
      data: {},
    })

    const malformed = await s.t.api('POST', '/api/batch', {
      token: s.t.suToken,
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
    expect(big.body).toEqual({
      code: 413,
      status: 413,
      message: 'Request entity too large.',
      data: {},
    })
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
    const chunked = await fetch(`${s.t.url}/api/batch`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: s.t.suToken },
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
    const multipart = await s.t.api('POST', '/api/batch', { token: s.t.suToken, raw: form })
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
    const hook = s.t.server.app.hooks.onRecordCreate.bind(
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
      expect(res.body).toEqual({
        code: 400,
        status: 400,
        message: 'Batch transaction failed.',
        data: {},
      })
      expect(Date.now() - started).toBeLessThan(2400)
    } finally {
      s.t.server.app.hooks.onRecordCreate.unbind(hook)
      await settings({ timeout: 3 })
    }
    // The PATCH above waited for the writer, so the abandoned transaction has rolled back.
    const list = await titles()
    expect(list).not.toContain('fast')
    expect(list).not.toContain('slow')
  })

  it('rolls back when the client goes away before the batch ends', async () => {
    const hook = s.t.server.app.hooks.onRecordCreate.bind(
      async (e) => {
        if (e.record.title === 'dropped') await sleep(600)
        await e.next()
      },
      ['posts'],
    )
    try {
      const sent = fetch(`${s.t.url}/api/batch`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: s.t.suToken },
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
      s.t.server.app.hooks.onRecordCreate.unbind(hook)
    }
    const list = await titles()
    expect(list).not.toContain('kept?')
    expect(list).not.toContain('dropped')
  })
})
