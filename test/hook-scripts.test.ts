/**
 * Hook scripts of our form (issue 13 part 4, DECISIONS "Hook scripts"): `*.js`, `*.mjs` and
 * `*.ts` modules of the hooks dir loaded by a real server at start; routes, record and request
 * hooks, jobs, and `GET /api/functions`.
 */
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  // A plain ES module: a route with a path value and the route event's answers.
  'a-hello.js': `
export default (app) => {
  app.routerAdd('GET', '/hello/{name}', (e) => {
    e.json(200, { message: 'Hello ' + e.request.pathValue('name'), q: e.requestInfo.query.q ?? null })
  })
  app.routerAdd('GET', '/text', (e) => e.string(201, 'plain text'))
  app.routerAdd('DELETE', '/nothing', (e) => e.noContent())
  app.routerAdd('GET', '/go', (e) => e.redirect(302, '/hello/redirected'))
  app.routerAdd('GET', '/files/{path...}', (e) => e.json(200, { path: e.request.pathValue('path') }))
  app.routerAdd('POST', '/echo', (e) => e.json(200, { body: e.requestInfo.body, method: e.request.method }))
  app.routerAdd('GET', '/fail', () => { throw new Error('secret detail of a broken route') })
  app.routerAdd('GET', '/teapot', () => { throw new app.ApiError(418, 'I am a teapot.') })
}
`,
  // .mjs with Node's own modules.
  'b-node.mjs': `
import { createHash } from 'node:crypto'
export default function (app) {
  app.routerAdd('GET', '/api/sha/{text}', (e) => {
    e.json(200, { sha1: createHash('sha1').update(e.request.pathValue('text')).digest('hex') })
  })
  // the script sees its own location, not the bundle's
  app.routerAdd('GET', '/api/where', (e) => {
    e.json(200, { url: import.meta.url, dir: import.meta.dirname, file: import.meta.filename })
  })
}
`,
  // TypeScript with a type annotation, a relative import and an npm package.
  'c-typed.ts': `
import mime from 'mime-types'
import { shout, type Shouted } from './lib/shout.js'

interface Reply { type: string | false; shouted: Shouted }

export default (app: any): void => {
  app.routerAdd('GET', '/api/typed/{file}', (e: any) => {
    const reply: Reply = { type: mime.lookup(e.request.pathValue('file')), shouted: shout('ts') }
    e.json(200, reply)
  })
  // record hook: changes the data on create, inside the transaction
  app.onRecordCreate('posts', async (e: any) => {
    e.record.title = String(e.record.title).toUpperCase()
    e.record.note = 'set by c-typed.ts'
    await e.next()
  })
  // request hook: answers for the records API
  app.onRecordViewRequest('posts', async (e: any) => {
    await e.next()
    e.response.body.viewedThrough = 'script'
  })
  app.hooks.onRecordCreateRequest.bind(async (e: any) => {
    if (e.requestInfo.body.title === 'forbidden') {
      throw new app.ApiError(400, 'Forbidden title.')
    }
    await e.next()
  }, ['posts'])
}
`,
  'lib/shout.ts': `
export type Shouted = \`\${string}!\`
export const shout = (s: string): Shouted => \`\${s.toUpperCase()}!\`
`,
  // A job, run through the scheduler.
  'd-cron.js': `
export default (app) => {
  app.cronAdd('hooks-counter', '*/5 * * * *', async () => {
    const c = app.collections.find('posts')
    await app.records.create(c, { title: 'from cron' }, app.internalRequest())
  })
}
`,
  // The other hook families as app methods: collection, auth, lifecycle.
  'e-families.mjs': `
const seen = []
export default (app) => {
  app.onServe(async (e) => { seen.push('serve'); await e.next() })
  app.onCollectionAfterCreateSuccess(async (e) => { seen.push('collection ' + e.collection.name); await e.next() })
  app.onRecordAuthRequest('members', async (e) => { e.meta = { via: 'script' }; await e.next() })
  app.routerAdd('GET', '/api/families', (e) => e.json(200, seen))
}
`,
  // Not a script: ignored.
  'notes.txt': 'not loaded',
  'types.d.ts': 'export type X = 1',
}

describe('hook scripts of our form', () => {
  let t: HooksServer

  beforeAll(async () => {
    t = await startHooksServer(files)
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'posts',
        type: 'base',
        listRule: '',
        viewRule: '',
        createRule: '',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'note', type: 'text' },
        ],
      },
    })
    expect(made.status, made.text).toBe(200)
  })
  afterAll(() => t.close())

  it('loads every script without errors', () => {
    expect(t.logs.filter((l) => l.level === 'error')).toEqual([])
    const listing = t.server.app.services.get('hookScripts').listing()
    expect(listing.errors).toEqual([])
  })

  it('answers a route of a .js file with a path value and the query', async () => {
    const res = await t.api('GET', '/hello/world?q=1')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ message: 'Hello world', q: '1' })
    // security headers of the root hooks apply to script routes too
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    // and so does the fields picker
    expect((await t.api('GET', '/hello/world?fields=message')).body).toEqual({
      message: 'Hello world',
    })
  })

  it('answers text, no content, redirects and rest paths', async () => {
    const text = await t.api('GET', '/text')
    expect(text.status).toBe(201)
    expect(text.text).toBe('plain text')
    expect(text.headers.get('content-type')).toMatch(/^text\/plain/)
    const none = await t.api('DELETE', '/nothing')
    expect(none.status).toBe(204)
    expect(none.text).toBe('')
    const go = await t.api('GET', '/go')
    expect(go.status).toBe(302)
    expect(go.headers.get('location')).toBe('/hello/redirected')
    const rest = await t.api('GET', '/files/a/b%20c/d.txt')
    expect(rest.body).toEqual({ path: 'a/b c/d.txt' })
    const head = await fetch(`${t.url}/hello/head`, { method: 'HEAD' })
    expect(head.status).toBe(200)
  })

  it('reads the body with the same readers as the built-in routes', async () => {
    const json = await t.api('POST', '/echo', { body: { a: 1, b: [true] } })
    expect(json.body).toEqual({ body: { a: 1, b: [true] }, method: 'POST' })
    const form = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'n=12&flag=true&s=x',
    })
    expect(await form.json()).toEqual({ body: { n: 12, flag: true, s: 'x' }, method: 'POST' })
    const fd = new FormData()
    fd.append('title', 'multi')
    const multi = await fetch(`${t.url}/echo`, { method: 'POST', body: fd })
    expect(await multi.json()).toEqual({ body: { title: 'multi' }, method: 'POST' })
    const bad = await fetch(`${t.url}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":',
    })
    expect(bad.status).toBe(400)
  })

  it('answers a failing handler with a generic 500 and logs the cause with the file and line', async () => {
    const res = await t.api('GET', '/fail')
    expect(res.status).toBe(500)
    expect(res.text).not.toContain('secret detail')
    expect(res.body.message).toBe('Something went wrong while processing your request.')
    const logged = t.logs.find(
      (l) => l.level === 'error' && String(l.data.error).includes('secret detail'),
    )
    expect(logged?.data.error).toMatch(
      /^hook script a-hello\.js:11:\d+: .*secret detail.*\n\s+at a-hello\.js:11:\d+/,
    )
  })

  it('keeps the status and message of an ApiError a handler throws', async () => {
    const res = await t.api('GET', '/teapot')
    expect(res.status).toBe(418)
    expect(res.body).toMatchObject({ code: 418, status: 418, message: 'I am a teapot.' })
  })

  it('runs .mjs with node: imports and .ts with a relative and an npm import', async () => {
    const sha = await t.api('GET', '/api/sha/abc')
    expect(sha.body).toEqual({ sha1: 'a9993e364706816aba3e25717850c26c9cd0d89d' })
    const where = await t.api('GET', '/api/where')
    expect(where.body).toEqual({
      url: pathToFileURL(join(t.hooksDir, 'b-node.mjs')).href,
      dir: t.hooksDir,
      file: join(t.hooksDir, 'b-node.mjs'),
    })
    const typed = await t.api('GET', '/api/typed/photo.png')
    expect(typed.body).toEqual({ type: 'image/png', shouted: 'TS!' })
  })

  it('leaves unknown paths and wrong methods at 404 and built-in routes untouched', async () => {
    const unknown = await t.api('GET', '/nope/nothing')
    expect(unknown.status).toBe(404)
    expect(unknown.body).toEqual({
      code: 404,
      status: 404,
      message: 'File not found.',
      data: {},
    })
    expect((await t.api('POST', '/hello/world')).status).toBe(404)
    expect((await t.api('GET', '/')).status).toBe(404)
    expect((await t.api('GET', '/api/health')).status).toBe(200)
    // the dashboard keeps /_/ (served, or 503 when its build is missing)
    expect([200, 503]).toContain((await t.api('GET', '/_/')).status)
  })

  it('runs a record hook that changes the data on create', async () => {
    const res = await t.api('POST', '/api/collections/posts/records', { body: { title: 'quiet' } })
    expect(res.status, res.text).toBe(200)
    expect(res.body).toMatchObject({ title: 'QUIET', note: 'set by c-typed.ts' })
    const posts = t.server.app.collections.find('posts')!
    const stored = await t.server.app.records.findById(posts, res.body.id)
    expect(stored).toMatchObject({ title: 'QUIET', note: 'set by c-typed.ts' })
  })

  it('runs request hooks: one refuses a create, one changes a view answer', async () => {
    const refused = await t.api('POST', '/api/collections/posts/records', {
      body: { title: 'forbidden' },
    })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe('Forbidden title.')
    const made = await t.api('POST', '/api/collections/posts/records', { body: { title: 'v' } })
    const view = await t.api('GET', `/api/collections/posts/records/${made.body.id}`)
    expect(view.body).toMatchObject({ id: made.body.id, title: 'V', viewedThrough: 'script' })
  })

  it('adds a job with source hooks, run now through POST /api/crons/{id}', async () => {
    const job = t.server.app.cron.list().find((j) => j.id === 'hooks-counter')
    expect(job).toMatchObject({ expression: '*/5 * * * *', source: 'hooks' })
    const crons = await t.api('GET', '/api/crons', { token: t.suToken })
    expect(crons.body).toContainEqual({ id: 'hooks-counter', expression: '*/5 * * * *' })
    const run = await t.api('POST', '/api/crons/hooks-counter', { token: t.suToken })
    expect(run.status, run.text).toBe(204)
    const list = await t.api(
      'GET',
      '/api/collections/posts/records?filter=title%3D%22FROM%20CRON%22',
    )
    expect(list.body.totalItems).toBe(1)
  })

  it('lists the scripts and routes at GET /api/functions for superusers only', async () => {
    expect((await t.api('GET', '/api/functions')).status).toBe(401)
    const user = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'members', type: 'auth', createRule: '' },
    })
    expect(user.status, user.text).toBe(200)
    await t.api('POST', '/api/collections/members/records', {
      body: { email: 'm@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/members/auth-with-password', {
      body: { identity: 'm@example.com', password: 'password123' },
    })
    expect((await t.api('GET', '/api/functions', { token: login.body.token })).status).toBe(403)
    // the auth and collection hooks of e-families.mjs ran (and onServe before the first request)
    expect(login.body.meta).toEqual({ via: 'script' })
    expect((await t.api('GET', '/api/families')).body).toEqual([
      'serve',
      'collection posts',
      'collection members',
    ])

    const res = await t.api('GET', '/api/functions', { token: t.suToken })
    expect(res.status).toBe(200)
    expect(res.body.hooksDir).toBe(t.hooksDir)
    expect(res.body.files.map((f: { name: string }) => f.name)).toEqual([
      'a-hello.js',
      'b-node.mjs',
      'c-typed.ts',
      'd-cron.js',
      'e-families.mjs',
    ])
    for (const f of res.body.files) {
      expect(f.sizeBytes).toBe(Buffer.byteLength(files[f.name]!))
      expect(f.modifiedAt).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/)
    }
    expect(res.body.routes).toContainEqual({ method: 'GET', pattern: '/hello/{name}' })
    expect(res.body.routes).toContainEqual({ method: 'GET', pattern: '/api/typed/{file}' })
    expect(res.body.routes).toHaveLength(12)
    expect(res.body.errors).toEqual([])
  })
})

describe('the hooks feature switched off', () => {
  it('loads no script and has no /api/functions', async () => {
    const t = await startHooksServer(
      {
        'a.js': `export default (app) => app.routerAdd('GET', '/api/off', (e) => e.json(200, {}))`,
      },
      { disable: ['hooks'] },
    )
    try {
      expect(t.server.features).not.toContain('hooks')
      expect((await t.api('GET', '/api/off')).status).toBe(404)
      expect((await t.api('GET', '/api/functions', { token: t.suToken })).status).toBe(404)
    } finally {
      await t.close()
    }
  })
})
