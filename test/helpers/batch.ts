/**
 * The server of the batch tests (test/batch*.test.ts): open collections authors, posts (title
 * required, author relation), members (create needs an auth), batchonly (create only inside a
 * batch with `X-Tag: ok`) and docs (a required name, up to 2 files); one author, Ada; every bus
 * event recorded in `events`.
 */
import { afterAll, beforeAll, expect } from 'vitest'
import type { BusEvent } from '../../src/core/events.js'
import { startServer, type TestServer } from './server.js'

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The running server and the helpers of a batch test file; fields are set in `beforeAll`. */
export interface BatchServer {
  t: TestServer
  authorId: string
  docsId: string
  events: BusEvent[]
  /** A request as the superuser. */
  su: (method: string, path: string, body?: unknown) => ReturnType<TestServer['api']>
  /** Patches the batch settings (must succeed). */
  settings: (batch: Record<string, unknown>) => Promise<void>
  /** POST /api/batch with these items, as the superuser unless `token` says otherwise. */
  batch: (requests: unknown[], token?: string | null) => ReturnType<TestServer['api']>
  /** Creates a post; returns its id. */
  post: (title: string) => Promise<string>
  /** Every post title, sorted. */
  titles: () => Promise<string[]>
}

/** Starts the server before the file's tests (batch enabled if asked) and closes it after. */
export function useBatchServer(opts: { enabled: boolean }): BatchServer {
  const s: BatchServer = {
    t: undefined as unknown as TestServer,
    authorId: '',
    docsId: '',
    events: [],
    su: (method, path, body) => s.t.api(method, path, { token: s.t.suToken, body }),
    settings: async (batch) => {
      const res = await s.su('PATCH', '/api/settings', { batch })
      expect(res.status).toBe(200)
    },
    batch: (requests, token = s.t.suToken) =>
      s.t.api('POST', '/api/batch', { token, body: { requests } }),
    post: async (title) => {
      const res = await s.su('POST', '/api/collections/posts/records', { title })
      expect(res.status).toBe(200)
      return res.body.id as string
    },
    titles: async () => {
      const res = await s.su('GET', '/api/collections/posts/records?perPage=500&sort=title')
      return (res.body.items as { title: string }[]).map((r) => r.title)
    },
  }
  const { su } = s

  beforeAll(async () => {
    s.t = await startServer()
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
    s.docsId = docs.body.id as string
    const author = await su('POST', '/api/collections/authors/records', { name: 'Ada' })
    s.authorId = author.body.id as string
    s.t.server.app.events.subscribe((e) => {
      s.events.push(e)
    })
    if (opts.enabled) await s.settings({ enabled: true })
  })
  afterAll(() => s.t?.close())
  return s
}
