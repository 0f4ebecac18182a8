/**
 * PocketBase's `pb_hooks` form (issue 13 part 4): `*.pb.js` files written as for PocketBase's
 * JSVM, loaded by a real server from its hooks dir and run unchanged: routes, record and request
 * hooks with `e.next()`, a cron job, the synchronous `$app` finds with `{:param}` placeholders,
 * saves and transactions through the record service, `$os.getenv`, and calls outside the subset
 * reported with their name and line.
 */
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  // Routes, as PocketBase's docs write them.
  'routes.pb.js': `/// <reference path="../pb_data/types.d.ts" />

routerAdd("GET", "/hello/{name}", (e) => {
    let name = e.request.pathValue("name")

    return e.json(200, { "message": "Hello " + name })
})

routerAdd("GET", "/api/pb/env", (e) => {
    return e.string(200, $os.getenv("SVC_PB_TEST_VALUE"))
})

routerAdd("GET", "/api/pb/me", (e) => {
    const info = e.requestInfo()
    return e.json(200, {
        id: e.auth.id,
        email: info.auth.email(),
        collection: e.auth.collection().name,
        method: info.method,
        q: info.query["q"],
        header: info.headers["x_custom"],
        viaRequest: e.request.header.get("X-Custom"),
        superuser: e.hasSuperuserAuth(),
    })
}, $apis.requireAuth())

routerAdd("GET", "/api/pb/published", (e) => {
    const min = parseInt(e.request.url.query().get("min") || "0")
    const records = $app.findRecordsByFilter(
        "posts",
        "status = {:status} && views >= {:min}",
        "-views",
        10,
        0,
        { status: "published", min: min },
    )
    return e.json(200, records.map((r) => ({ title: r.getString("title"), views: r.getInt("views") })))
})

routerAdd("GET", "/api/pb/first/{title}", (e) => {
    const record = $app.findFirstRecordByFilter("posts", "title = {:title}", { title: e.request.pathValue("title") })
    return e.json(200, record)
})

routerAdd("POST", "/api/pb/bump/{id}", (e) => {
    const record = $app.findRecordById("posts", e.request.pathValue("id"))
    record.set("views", record.getInt("views") + 1)
    $app.save(record)
    // a synchronous read after a queued save sees the state before it (docs/hook-scripts.md)
    const stored = $app.findRecordById("posts", record.id)
    return e.json(200, { views: record.getInt("views"), storedBefore: stored.getInt("views") })
})

routerAdd("POST", "/api/pb/transfer", (e) => {
    const body = e.requestInfo().body
    $app.runInTransaction((txApp) => {
        const from = txApp.findRecordById("posts", body.from)
        const to = txApp.findRecordById("posts", body.to)
        if (body.amount > 100) {
            throw new BadRequestError("Too much at once.")
        }
        from.set("views", from.getInt("views") - body.amount)
        to.set("views", to.getInt("views") + body.amount)
        if (body.breakTitle) {
            to.set("title", "")
        }
        txApp.save(from)
        txApp.save(to)
    })
    return e.json(200, { ok: true })
})

routerAdd("POST", "/api/pb/notes", (e) => {
    const note = new Record("audit", { action: "note", title: e.requestInfo().body.title })
    $app.save(note)
    return e.json(200, { id: note.id })
}, $apis.requireSuperuserAuth())

routerAdd("DELETE", "/api/pb/posts/{id}", (e) => {
    $app.delete($app.findRecordById("posts", e.request.pathValue("id")))
    return e.noContent(204)
})

routerAdd("GET", "/api/pb/broken", (e) => {
    throw new Error("a plain script error")
})

routerAdd("GET", "/api/pb/missing", (e) => {
    throw new NotFoundError("No such thing here.")
})
`,
  // A global middleware, around built-in and script routes.
  'middleware.pb.js': `routerUse((e) => {
    if (e.request.header.get("X-Pb-Block") === "yes") {
        return e.json(451, { blockedPath: e.request.url.path })
    }
    return e.next()
})
`,
  // Record hooks: the collection names come after the handler.
  'posts.pb.js': `onRecordCreateRequest((e) => {
    if (!e.record.get("status")) {
        e.record.set("status", "pending")
    }
    e.next()
}, "posts")

onRecordCreate((e) => {
    e.record.set("slug", e.record.getString("title").toLowerCase().replace(/\\s+/g, "-"))
    e.next()
}, "posts")

onRecordAfterCreateSuccess((e) => {
    const entry = new Record("audit", { action: "create", ref: e.record.id, title: e.record.getString("title") })
    $app.save(entry)
    e.next()
}, "posts")

onRecordUpdate((e) => {
    const before = e.record.original().getString("status")
    const after = e.record.getString("status")
    if (before !== after) {
        e.record.set("slug", before + " -> " + after)
    }
    e.next()
}, "posts")

onRecordUpdateRequest((e) => {
    if (e.record.getString("status") === "locked" && !e.hasSuperuserAuth()) {
        throw new ForbiddenError("Locked posts are for superusers.")
    }
    e.next()
}, "posts")

onRecordsListRequest((e) => {
    for (const r of e.records) {
        r.set("listedBy", "posts.pb.js")
    }
    e.next()
}, "posts")

onRecordAfterDeleteSuccess((e) => {
    $app.save(new Record("audit", { action: "delete", ref: e.record.id }))
    e.next()
}, "posts")
`,
  // A job.
  'cron.pb.js': `cronAdd("pbArchivePending", "0 3 * * *", () => {
    const pending = $app.findRecordsByFilter("posts", "status = 'pending'", "", 0, 0)
    for (const record of pending) {
        record.set("status", "archived")
        $app.save(record)
    }
    console.log("archived", pending.length)
})

cronAdd("pbFailing", "0 4 * * *", () => {
    $app.findRecordById("posts", "nosuchrecord000")
})

cronAdd("pbThrowing", "0 5 * * *", () => {
    throw new Error("the job gave up")
})
`,
  // Calls outside the subset: at run time in a handler, and at the top level (a load failure).
  // members of values a load-time scan cannot see (a use of \`$http.send\` and the like fails
  // the file's load instead: test/hook-scripts-pb-loadcheck.test.ts)
  'outside.pb.js': `routerAdd("GET", "/api/pb/collection", (e) => {
    const c = e.app.dao()
    return e.json(200, c)
})

routerAdd("POST", "/api/pb/mail", (e) => {
    e.request.multipartReader()
})
`,
  'z-mailer.pb.js': `// a PocketBase hook svcbase does not offer

onRecordAuthWithOAuth2Request((e) => {
    e.next()
})

routerAdd("GET", "/api/pb/never", (e) => e.string(200, "never bound"))
`,
  'z-syntax.pb.js': `routerAdd("GET", "/api/pb/syntax", (e) => {
    const = 5
    return e.json(200, { a: 1 })
})
`,
  'z-throw.pb.js': `const limit = parseInt($os.getenv("SVC_PB_MISSING") || "0")

if (limit === 0) {
    throw new Error("SVC_PB_MISSING is not set")
}
`,
}

describe('PocketBase *.pb.js hook scripts', () => {
  let t: HooksServer
  const ids: Record<string, string> = {}

  const post = async (title: string, body: Record<string, unknown> = {}) => {
    const res = await t.api('POST', '/api/collections/posts/records', {
      token: t.suToken,
      body: { title, ...body },
    })
    expect(res.status, res.text).toBe(200)
    ids[title] = res.body.id as string
    return res.body as Record<string, unknown>
  }

  beforeAll(async () => {
    process.env.SVC_PB_TEST_VALUE = 'from the environment'
    t = await startHooksServer(files)
    for (const body of [
      {
        name: 'posts',
        type: 'base',
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '',
        fields: [
          { name: 'title', type: 'text', required: true },
          { name: 'status', type: 'text' },
          { name: 'slug', type: 'text' },
          { name: 'views', type: 'number' },
        ],
      },
      {
        name: 'audit',
        type: 'base',
        fields: [
          { name: 'action', type: 'text' },
          { name: 'ref', type: 'text' },
          { name: 'title', type: 'text' },
        ],
      },
      { name: 'members', type: 'auth', listRule: '', fields: [] },
    ]) {
      const made = await t.api('POST', '/api/collections', { token: t.suToken, body })
      expect(made.status, made.text).toBe(200)
    }
  })
  afterAll(async () => {
    delete process.env.SVC_PB_TEST_VALUE
    await t?.close()
  })

  const audit = async (filter: string) => {
    const res = await t.api(
      'GET',
      `/api/collections/audit/records?filter=${encodeURIComponent(filter)}`,
      { token: t.suToken },
    )
    expect(res.status, res.text).toBe(200)
    return res.body.items as Record<string, unknown>[]
  }

  it('answers a route written as in PocketBase docs, through the pocketbase SDK too', async () => {
    const res = await t.api('GET', '/hello/world')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ message: 'Hello world' })
    const pb = new PocketBase(t.url)
    expect(await pb.send('/hello/sdk', {})).toEqual({ message: 'Hello sdk' })
  })

  it('runs a routerUse middleware around built-in and script routes', async () => {
    const headers = { 'x-pb-block': 'yes' }
    const script = await t.api('GET', '/hello/blocked', { headers })
    expect(script.status).toBe(451)
    expect(script.body).toEqual({ blockedPath: '/hello/blocked' })
    const builtIn = await t.api('GET', '/api/health', { headers })
    expect(builtIn.status).toBe(451)
    expect(builtIn.body).toEqual({ blockedPath: '/api/health' })
    expect((await t.api('GET', '/api/health')).status).toBe(200)
  })

  it('reads the environment with $os.getenv', async () => {
    const res = await t.api('GET', '/api/pb/env')
    expect(res.status).toBe(200)
    expect(res.text).toBe('from the environment')
  })

  it('gives e.auth, e.requestInfo() and e.request as PocketBase does, behind $apis.requireAuth()', async () => {
    expect((await t.api('GET', '/api/pb/me')).status).toBe(401)
    const res = await t.api('GET', '/api/pb/me?q=search', {
      token: t.suToken,
      headers: { 'x-custom': 'hdr' },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[a-z0-9]{15}$/),
      email: 'hooks-admin@example.com',
      collection: '_superusers',
      method: 'GET',
      q: 'search',
      header: 'hdr',
      viaRequest: 'hdr',
      superuser: true,
    })
  })

  it('runs record request hooks and record hooks with e.next(), tagged by collection', async () => {
    const pb = new PocketBase(t.url)
    const created = await pb.collection('posts').create({ title: 'Hello Pb World' })
    // onRecordCreateRequest set the status; onRecordCreate (in the transaction) the slug
    expect(created.status).toBe('pending')
    expect(created.slug).toBe('hello-pb-world')
    // onRecordAfterCreateSuccess saved an audit record through $app.save
    const logged = await audit(`ref = "${created.id}"`)
    expect(logged).toMatchObject([{ action: 'create', title: 'Hello Pb World' }])
    // a given status is kept
    const kept = await post('Given', { status: 'published', views: 5 })
    expect(kept.status).toBe('published')
  })

  it('compares with e.record.original() in onRecordUpdate', async () => {
    const made = await post('Transitions', { status: 'published' })
    const res = await t.api('PATCH', `/api/collections/posts/records/${String(made.id)}`, {
      token: t.suToken,
      body: { status: 'draft' },
    })
    expect(res.status, res.text).toBe(200)
    expect(res.body.slug).toBe('published -> draft')
    const same = await t.api('PATCH', `/api/collections/posts/records/${String(made.id)}`, {
      token: t.suToken,
      body: { views: 3 },
    })
    expect(same.body.slug).toBe('published -> draft')
  })

  it('changes list results in onRecordsListRequest', async () => {
    const pb = new PocketBase(t.url)
    const list = await pb.collection('posts').getList(1, 10)
    expect(list.items.length).toBeGreaterThan(0)
    for (const item of list.items) expect(item.listedBy).toBe('posts.pb.js')
  })

  it('answers a thrown PocketBase error class with its status and message', async () => {
    const locked = await post('Locked one', { status: 'locked' })
    const res = await t.api('PATCH', `/api/collections/posts/records/${String(locked.id)}`, {
      body: { title: 'changed by a guest' },
    })
    expect(res.status).toBe(403)
    expect(res.body).toEqual({
      code: 403,
      status: 403,
      message: 'Locked posts are for superusers.',
      data: {},
    })
    const missing = await t.api('GET', '/api/pb/missing')
    expect(missing.status).toBe(404)
    expect(missing.body.message).toBe('No such thing here.')
  })

  it('finds records synchronously with {:param} placeholders, sort and limit', async () => {
    await post('Alpha', { status: 'published', views: 10 })
    await post('Beta', { status: 'published', views: 30 })
    await post('Gam\'ma "quoted"', { status: 'published', views: 20 })
    await post('Draft', { status: 'draft', views: 100 })
    const res = await t.api('GET', '/api/pb/published?min=10')
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual([
      { title: 'Beta', views: 30 },
      { title: 'Gam\'ma "quoted"', views: 20 },
      { title: 'Alpha', views: 10 },
    ])
    // a placeholder value is a value, never filter syntax
    const quoted = await t.api('GET', `/api/pb/first/${encodeURIComponent('Gam\'ma "quoted"')}`)
    expect(quoted.status, quoted.text).toBe(200)
    expect(quoted.body).toMatchObject({
      title: 'Gam\'ma "quoted"',
      views: 20,
      collectionName: 'posts',
    })
    const injected = await t.api('GET', `/api/pb/first/${encodeURIComponent('x" || title != "')}`)
    expect(injected.status).toBe(404)
  })

  it('saves through the record service after the handler returns; a read before sees the old state', async () => {
    const id = ids.Alpha!
    const res = await t.api('POST', `/api/pb/bump/${id}`)
    expect(res.status, res.text).toBe(200)
    expect(res.body).toEqual({ views: 11, storedBefore: 10 })
    const stored = await t.api('GET', `/api/collections/posts/records/${id}`)
    expect(stored.body.views).toBe(11)
    expect((await t.api('POST', '/api/pb/bump/doesnotexist123')).status).toBe(404)
  })

  it('runs $app.runInTransaction as one transaction: all or nothing', async () => {
    const [from, to] = [ids.Beta!, ids.Alpha!]
    const ok = await t.api('POST', '/api/pb/transfer', { body: { from, to, amount: 5 } })
    expect(ok.status, ok.text).toBe(200)
    const views = async (id: string) =>
      (await t.api('GET', `/api/collections/posts/records/${id}`)).body.views as number
    expect([await views(from), await views(to)]).toEqual([25, 16])
    // the second save fails validation: the first one is rolled back with it
    const broken = await t.api('POST', '/api/pb/transfer', {
      body: { from, to, amount: 5, breakTitle: true },
    })
    expect(broken.status).toBe(400)
    expect(broken.body.data).toHaveProperty('title')
    expect([await views(from), await views(to)]).toEqual([25, 16])
    // a throw inside the function writes nothing
    const refused = await t.api('POST', '/api/pb/transfer', { body: { from, to, amount: 500 } })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toBe('Too much at once.')
    expect([await views(from), await views(to)]).toEqual([25, 16])
  })

  it('creates with new Record and deletes with $app.delete, firing the record hooks', async () => {
    expect((await t.api('POST', '/api/pb/notes', { body: { title: 'n' } })).status).toBe(401)
    const note = await t.api('POST', '/api/pb/notes', {
      token: t.suToken,
      body: { title: 'a note' },
    })
    expect(note.status, note.text).toBe(200)
    const stored = await t.api('GET', `/api/collections/audit/records/${String(note.body.id)}`, {
      token: t.suToken,
    })
    expect(stored.body).toMatchObject({ action: 'note', title: 'a note' })
    const victim = await post('To delete')
    const del = await t.api('DELETE', `/api/pb/posts/${String(victim.id)}`)
    expect(del.status).toBe(204)
    expect((await t.api('GET', `/api/collections/posts/records/${String(victim.id)}`)).status).toBe(
      404,
    )
    expect(await audit(`action = "delete" && ref = "${String(victim.id)}"`)).toHaveLength(1)
  })

  it('runs a cron job of a *.pb.js file through the scheduler', async () => {
    const jobs = await t.api('GET', '/api/crons', { token: t.suToken })
    expect(jobs.body).toContainEqual({ id: 'pbArchivePending', expression: '0 3 * * *' })
    const pending = await post('Pending again')
    expect(pending.status).toBe('pending')
    const run = await t.api('POST', '/api/crons/pbArchivePending', { token: t.suToken })
    expect(run.status, run.text).toBe(204)
    const mirrored = await t.api(
      'GET',
      `/api/collections/_cron_jobs/records?filter=${encodeURIComponent('jobId="pbArchivePending"')}`,
      { token: t.suToken },
    )
    expect(mirrored.body.items).toMatchObject([
      { jobId: 'pbArchivePending', source: 'hooks', lastStatus: 'success', lastError: '' },
    ])
    const after = await t.api('GET', `/api/collections/posts/records/${String(pending.id)}`)
    expect(after.body.status).toBe('archived')
    expect(t.logs.some((l) => l.message.startsWith('archived '))).toBe(true)
    // a failing job: its error is recorded, with the script's line logged
    for (const [id, error] of [
      ['pbFailing', "The requested resource wasn't found."],
      ['pbThrowing', 'the job gave up'],
    ] as const) {
      expect((await t.api('POST', `/api/crons/${id}`, { token: t.suToken })).status).toBe(204)
      const row = await t.api(
        'GET',
        `/api/collections/_cron_jobs/records?filter=${encodeURIComponent(`jobId="${id}"`)}`,
        { token: t.suToken },
      )
      expect(row.body.items).toMatchObject([{ lastStatus: 'error', lastError: error }])
    }
    expect(t.logs.find((l) => l.data.error === 'the job gave up')?.data.script).toMatch(
      /cron\.pb\.js:15:\d+$/,
    )
  })

  it('answers a plain script error as PocketBase does (400) and logs it with the file and line', async () => {
    const res = await t.api('GET', '/api/pb/broken')
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Something went wrong while processing your request.')
    expect(res.text).not.toContain('plain script error')
    const logged = t.logs.find((l) => l.data.error === 'a plain script error')
    expect(logged?.data.script).toMatch(/routes\.pb\.js:\d+:\d+$/)
  })

  it('fails a call outside the subset in a handler with a 500, naming the call and its line', async () => {
    for (const [method, path, name, line] of [
      ['GET', '/api/pb/collection', '$app.dao', 2],
      ['POST', '/api/pb/mail', 'e.request.multipartReader', 7],
    ] as const) {
      const res = await t.api(method, path)
      expect(res.status).toBe(500)
      expect(res.body.message).toBe('Something went wrong while processing your request.')
      const logged = t.logs.find(
        (l) => l.level === 'error' && String(l.data.error).includes(`"${name}" is not supported`),
      )
      expect(logged?.data.error).toBe(
        `"${name}" is not supported in svcbase *.pb.js scripts (see docs/hook-scripts.md).`,
      )
      expect(logged?.data.script).toMatch(new RegExp(`outside\\.pb\\.js:${line}:\\d+$`))
    }
  })

  it('reports a file failing at load with its line and the call it names; the others load', async () => {
    const { errors } = t.server.app.services.get('hookScripts').listing()
    const byFile = Object.fromEntries(errors.map((e) => [e.file, e]))
    expect(byFile['z-mailer.pb.js']).toMatchObject({
      line: 3,
      message:
        '"onRecordAuthWithOAuth2Request" is not supported in svcbase *.pb.js scripts (see docs/hook-scripts.md).',
    })
    expect(byFile['z-syntax.pb.js']).toMatchObject({ line: 2 })
    expect(byFile['z-syntax.pb.js']?.message).toMatch(/Unexpected token/)
    expect(byFile['z-throw.pb.js']).toMatchObject({
      line: 4,
      message: 'SVC_PB_MISSING is not set',
    })
    expect(Object.keys(byFile).sort()).toEqual([
      'z-mailer.pb.js',
      'z-syntax.pb.js',
      'z-throw.pb.js',
    ])
    // what the failed file bound before the failure is gone
    expect((await t.api('GET', '/api/pb/never')).status).toBe(404)
    // the functions listing shows the *.pb.js routes
    const fns = await t.api('GET', '/api/functions', { token: t.suToken })
    expect(fns.status).toBe(200)
    expect(fns.body.routes).toContainEqual({ method: 'GET', pattern: '/hello/{name}' })
  })
})
