/**
 * `new Middleware(fn, priority, id)` in `routerUse`/`routerAdd` (one chain of global and route
 * middlewares in priority order, a same id replacing, a middleware answering or throwing, a
 * handler as source text) and the `$apis` middlewares in `*.pb.js` files: the same hook files
 * ran on PocketBase 0.40.4 (`test/pocketbase/hooks/middleware.json`, recorded by
 * `test/pocketbase/hooks/record.ts`) and here answer alike, request after request.
 */
import { symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'
import { useSmtp } from './pocketbase/hooks/ask.js'
import { SU } from './pocketbase/hooks/cases.js'
import { middlewareSuite } from './pocketbase/hooks/cases-middleware.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(middlewareSuite)

/** Where svcbase answers otherwise, on purpose (docs/hook-scripts.md). */
const ALLOWED: Record<string, { body: unknown; why: string }> = {
  '$filesystem.fileFromPath outside the app': {
    body: { read: false },
    why: "svcbase's scripts read files only inside the app's folders (as $os.readFile); PocketBase reads any path",
  },
}

/** A GET with its raw (still encoded) body and headers. */
function rawGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      )
    })
      .on('error', reject)
      .end()
  })
}

describe('new Middleware and $apis in *.pb.js files, as PocketBase', () => {
  let s: HooksServer
  let smtp: TestSmtp
  let stopTarget: () => Promise<void>
  beforeAll(async () => {
    stopTarget = await middlewareSuite.setup()
    smtp = await startSmtp()
    s = await startSuiteServer(middlewareSuite)
    await useSmtp(s.url, smtp, SU)
    // The HTTP target of $filesystem.fileFromURL is on loopback: let the SSRF guard pass it.
    const set = await s.api('PATCH', '/api/settings', {
      token: s.suToken,
      body: { webhooks: { allowPrivateNetworks: true } },
    })
    expect(set.status).toBe(200)
  })
  afterAll(async () => {
    await s.close()
    await smtp.close()
    await stopTarget()
  })

  it('loads the files', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  // In order: each case sees what the ones before it wrote.
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    const svc = await replay(s, pb, smtp)
    const allowed = ALLOWED[pb.name]
    if (allowed) expect(svc.body, allowed.why).toEqual(allowed.body)
    else expect(svc).toEqual(pb)
  })

  it('the files a handler saved are stored with their content (as PocketBase stored them)', async () => {
    const list = await s.api('GET', '/api/collections/docs/records?sort=title')
    const contents: string[] = []
    for (const r of list.body.items as { id: string; doc: string; docs: string[] }[])
      for (const f of [r.doc, ...r.docs].filter((n) => n !== '')) {
        const res = await fetch(`${s.url}/api/files/docs/${r.id}/${f}`)
        contents.push(`${f.replace(/_[a-z0-9]{10}(?=\.)/, '_*')}: ${await res.text()}`)
      }
    // PocketBase 0.40.4 stored hello_world_….txt, note_….txt, hi…_….txt (a short name padded)
    // and text_… (the URL's last segment).
    expect(contents).toEqual([
      'hello_world_*.txt: hello from bytes',
      'note_*.txt: a note from the hooks dir\n',
      expect.stringMatching(/^hi[a-z0-9]{10}_\*\.txt: hi$/),
      expect.stringMatching(/^text_[a-z0-9]{10}: hello ✓$/),
    ])
  })

  it('$apis.recordAuthResponse answers a token that authenticates the record', async () => {
    const res = await s.api('POST', '/auth/custom', {
      body: { email: 'owner@example.com', method: 'password' },
    })
    expect(res.status).toBe(200)
    const refresh = await s.api('POST', '/api/collections/users/auth-refresh', {
      token: res.body.token as string,
    })
    expect(refresh.status).toBe(200)
    expect(refresh.body.record.id).toBe('owner0000000001')
  })

  it("$apis.static follows no link out of the app's folders (404 as a missing file)", async () => {
    symlinkSync('/etc/hostname', join(s.hooksDir, 'middleware-files/pub/out.txt'))
    const res = await s.api('GET', '/st/out.txt')
    expect(res.status).toBe(404)
    expect(res.body.message).toBe('File not found.')
  })

  it('$apis.gzip compresses for a client that takes gzip, as PocketBase (Content-Encoding, Vary)', async () => {
    const zipped = await rawGet(`${s.url}/apis/gzip`, { 'accept-encoding': 'gzip' })
    expect(zipped.status).toBe(200)
    expect(zipped.headers['content-encoding']).toBe('gzip')
    expect(String(zipped.headers.vary)).toMatch(/Accept-Encoding/i)
    expect(gunzipSync(zipped.body).toString()).toBe('x'.repeat(3000))
    const plain = await rawGet(`${s.url}/apis/gzip`, {})
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe('x'.repeat(3000))
  })

  it('$apis.skipSuccessActivityLog keeps a successful request out of the logs, not a failed one', async () => {
    await s.api('GET', '/apis/skip-log?n=1')
    await s.api('GET', '/apis/skip-log-fail?n=1')
    await s.api('GET', '/mw/order?n=1')
    let urls: string[] = []
    for (let i = 0; i < 50; i++) {
      const logs = await s.api('GET', '/api/logs?perPage=200&sort=-created', { token: s.suToken })
      urls = (logs.body.items as { data: { url: string } }[]).map((l) => l.data.url)
      if (urls.includes('/mw/order?n=1') && urls.includes('/apis/skip-log-fail?n=1')) break
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(urls).toContain('/mw/order?n=1')
    expect(urls).toContain('/apis/skip-log-fail?n=1')
    expect(urls).not.toContain('/apis/skip-log?n=1')
  })
})

describe('bad arguments of new Middleware and $apis fail the file at load, naming the call', () => {
  let t: HooksServer
  beforeAll(async () => {
    t = await startHooksServer({
      'mw-number.pb.js': 'routerUse(new Middleware(123, 1))\n',
      'mw-source.pb.js': 'routerUse(new Middleware("(e) => {", 1))\n',
      'mw-priority.pb.js': 'routerUse(new Middleware((e) => e.next(), "high"))\n',
      'limit.pb.js': 'routerAdd("POST", "/l", (e) => e.json(200, {}), $apis.bodyLimit("ten"))\n',
      'static.pb.js': 'routerAdd("GET", "/s/{path...}", $apis.static(42, false))\n',
    })
  })
  afterAll(async () => {
    await t.close()
  })

  it('lists each file with its message', async () => {
    const listing = await t.api('GET', '/api/functions', { token: t.suToken })
    const byFile = Object.fromEntries(
      (listing.body.errors as { file: string; message: string }[]).map((e) => [e.file, e.message]),
    )
    expect(byFile).toEqual({
      'mw-number.pb.js': '"routerUse" expects a handler function.',
      'mw-source.pb.js': '"routerUse" expects a function or its source text.',
      'mw-priority.pb.js': '"new Middleware" expects a number as priority.',
      'limit.pb.js': '"$apis.bodyLimit" expects a number of bytes.',
      'static.pb.js': '"$apis.static" expects a folder path.',
    })
  })
})
