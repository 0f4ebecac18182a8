/**
 * Auto-embedding (issue 15 part 2; docs/vectors.md) black-box: a `vector` field with a
 * `sourceField` filled on create and update, with echo embeddings (no settings) and through a
 * local OpenAI-compatible double (test/helpers/openai-double.ts): the Bearer key, model, input and
 * dimensions sent; provider failures and time-outs fail the write with a 502 and write nothing;
 * a stalled provider does not hold the writer (other writes complete meanwhile).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { doubleEmbedding, startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.js'
import { startServer, type TestServer } from './helpers/server.js'

const DIMS = 64

const norm = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0))
const cosine = (a: number[], b: number[]) =>
  a.reduce((s, x, i) => s + x * b[i]!, 0) / (norm(a) * norm(b))

async function notesCollection(t: TestServer, name = 'notes'): Promise<void> {
  const res = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name,
      type: 'base',
      fields: [
        { name: 'body', type: 'text' },
        { name: 'tag', type: 'text', options: { max: 5 } },
        { name: 'emb', type: 'vector', options: { dimensions: DIMS, sourceField: 'body' } },
      ],
    },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
}

describe('auto-embedding with echo embeddings (no provider configured)', () => {
  let t: TestServer
  const create = (body: unknown) =>
    t.api('POST', '/api/collections/notes/records', { token: t.suToken, body })
  const update = (id: string, body: unknown) =>
    t.api('PATCH', `/api/collections/notes/records/${id}`, { token: t.suToken, body })

  beforeAll(async () => {
    t = await startServer()
    await notesCollection(t)
  })
  afterAll(() => t.close())

  it('fills the vector on create: deterministic in the text, unit length, of the dimensions', async () => {
    const a = await create({ body: 'cats and dogs play in the garden' })
    expect(a.status, JSON.stringify(a.body)).toBe(200)
    expect(a.body.emb).toHaveLength(DIMS)
    expect(norm(a.body.emb)).toBeCloseTo(1, 5)
    const same = await create({ body: 'cats and dogs play in the garden' })
    expect(same.body.emb).toEqual(a.body.emb)
    const other = await create({ body: 'quarterly stock market report' })
    expect(other.body.emb).not.toEqual(a.body.emb)
    // texts sharing words point the same way
    const near = await create({ body: 'cats and dogs' })
    expect(cosine(near.body.emb, a.body.emb)).toBeGreaterThan(cosine(other.body.emb, a.body.emb))
    const ranked = await t.api(
      'GET',
      `/api/collections/notes/records?nearestTo=emb:${near.body.id}&nearestLimit=3`,
      { token: t.suToken },
    )
    expect(
      ranked.body.items
        .map((r: { id: string }) => r.id)
        .slice(0, 2)
        .sort(),
    ).toEqual([a.body.id, same.body.id].sort())
  })

  it('recomputes on update only when the source changed or the vector is empty', async () => {
    const r = await create({ body: 'first text', tag: 'a' })
    const before = r.body.emb
    const tagOnly = await update(r.body.id, { tag: 'b' })
    expect(tagOnly.body.emb).toEqual(before)
    const changed = await update(r.body.id, { body: 'second text' })
    expect(changed.body.emb).not.toEqual(before)
    expect(changed.body.emb).toEqual((await create({ body: 'second text' })).body.emb)
    // an emptied vector is filled again from the unchanged source
    const cleared = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `UPDATE notes SET emb = NULL WHERE id = '${r.body.id}'`, write: true },
    })
    expect(cleared.status).toBe(200)
    const refilled = await update(r.body.id, { tag: 'c' })
    expect(refilled.body.emb).toEqual(changed.body.emb)
  })

  it('a blank source gives a null vector; a vector sent with the body is kept', async () => {
    const blank = await create({ body: '   ' })
    expect(blank.status).toBe(200)
    expect(blank.body.emb).toBeNull()
    const r = await create({ body: 'some words' })
    expect((await update(r.body.id, { body: '' })).body.emb).toBeNull()
    const own = Array.from({ length: DIMS }, (_, i) => (i === 0 ? 1 : 0))
    const sent = await create({ body: 'ignored for the vector', emb: own })
    expect(sent.body.emb).toEqual(own)
  })
})

describe('auto-embedding through an OpenAI-compatible provider', () => {
  let t: TestServer
  let double: OpenAiDouble
  const create = (body: unknown, coll = 'notes') =>
    t.api('POST', `/api/collections/${coll}/records`, { token: t.suToken, body })
  const count = async () =>
    (await t.api('GET', '/api/collections/notes/records?perPage=1', { token: t.suToken })).body
      .totalItems as number
  const embeddingRequests = () => double.requests.filter((r) => r.path.endsWith('/embeddings'))

  beforeAll(async () => {
    double = await startOpenAiDouble({ apiKey: 'sk-embed-test', models: ['emb-model'] })
    t = await startServer()
    await notesCollection(t)
    const other = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'other', type: 'base', fields: [{ name: 'v', type: 'text' }] },
    })
    expect(other.status).toBe(200)
    const settings = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: {
        llm: {
          enabled: true,
          provider: 'openai',
          baseUrl: double.url,
          apiKey: 'sk-embed-test',
          model: 'chat-model',
          embeddingModel: 'emb-model',
          timeout: 2,
        },
      },
    })
    expect(settings.status, JSON.stringify(settings.body)).toBe(200)
    expect(settings.body.llm.embeddingModel).toBe('emb-model')
    expect(settings.body.llm.apiKey).toBeUndefined()
  })
  afterAll(async () => {
    await t.close()
    await double.close()
  })

  it("stores the provider's embedding; sends the key, model, input and dimensions", async () => {
    const res = await create({ body: 'hello provider' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.emb).toEqual(doubleEmbedding('hello provider', DIMS).map(Math.fround))
    const seen = embeddingRequests().at(-1)!
    expect(seen.headers.authorization).toBe('Bearer sk-embed-test')
    expect(seen.body).toMatchObject({
      model: 'emb-model',
      input: ['hello provider'],
      dimensions: DIMS,
    })
    const upd = await t.api('PATCH', `/api/collections/notes/records/${res.body.id}`, {
      token: t.suToken,
      body: { body: 'changed text' },
    })
    expect(upd.body.emb).toEqual(doubleEmbedding('changed text', DIMS).map(Math.fround))
    expect(embeddingRequests().at(-1)!.body.input).toEqual(['changed text'])
  })

  it('validates the other fields before calling the provider', async () => {
    const calls = embeddingRequests().length
    const res = await create({ body: 'valid text', tag: 'far too long' })
    expect(res.status).toBe(400)
    expect(res.body.data.tag.code).toBe('validation_max_text_constraint')
    expect(embeddingRequests().length).toBe(calls)
  })

  it('a provider failure fails the write with a 502 and writes nothing', async () => {
    const before = await count()
    double.next({ fail: { status: 500, message: 'the embedding backend exploded' } })
    const failed = await create({ body: 'doomed' })
    expect(failed.status).toBe(502)
    expect(failed.body.message).toBe(
      'The embedding provider answered HTTP 500: the embedding backend exploded.',
    )
    double.apiKey = 'sk-another'
    const badKey = await create({ body: 'doomed too' })
    double.apiKey = 'sk-embed-test'
    expect(badKey.status).toBe(502)
    expect(badKey.body.message).toContain(
      'The embedding provider answered HTTP 401: Incorrect API key',
    )
    expect(await count()).toBe(before)
  })

  it('a stalled provider times out (settings.llm.timeout) without holding the writer', async () => {
    const before = await count()
    double.next({ stall: true })
    const started = Date.now()
    let stalledDone = false
    const stalled = create({ body: 'waiting forever' }).finally(() => {
      stalledDone = true
    })
    const seen = embeddingRequests().length
    await double.until(() => embeddingRequests().length > seen)
    // meanwhile, other writes go through at once
    for (let i = 0; i < 5; i++) expect((await create({ v: `w${i}` }, 'other')).status).toBe(200)
    expect(stalledDone).toBe(false)
    const res = await stalled
    expect(res.status).toBe(502)
    expect(res.body.message).toBe(
      'The embedding provider did not answer within 2 s (settings.llm.timeout).',
    )
    expect(Date.now() - started).toBeGreaterThanOrEqual(1900)
    expect(await count()).toBe(before)
    expect((await create({ body: 'works again' })).status).toBe(200)
  })
})

describe('with the vectors feature disabled', () => {
  it('leaves auto-embedded vectors empty', async () => {
    const t = await startServer({ disable: ['vectors'] })
    try {
      await notesCollection(t)
      const res = await t.api('POST', '/api/collections/notes/records', {
        token: t.suToken,
        body: { body: 'no embedding here' },
      })
      expect(res.status).toBe(200)
      expect(res.body.emb).toBeNull()
    } finally {
      await t.close()
    }
  })
})
