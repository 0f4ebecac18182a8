/**
 * Static hosting (docs/static.md): a real server serving a real temp folder, raw HTTP for the
 * traversal attempts (fetch would normalise `..`), and the CLI as a child process.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { resolveStatic, weakEtag } from '../src/features/static/service.js'
import { startServer, type TestServer } from './helpers/server.js'

const base = mkdtempSync(join(tmpdir(), 'svcbase-static-'))
const pub = join(base, 'public')
const outside = join(base, 'outside')
const INDEX = '<!doctype html><title>app</title><div id="app"></div>\n'
const JS = 'console.log("app")\n'.repeat(50)
afterAll(() => rmSync(base, { recursive: true, force: true }))

beforeAll(() => {
  mkdirSync(join(pub, 'docs', 'guide'), { recursive: true })
  mkdirSync(join(pub, 'empty'), { recursive: true })
  mkdirSync(join(pub, '.git'), { recursive: true })
  mkdirSync(join(pub, 'inner'), { recursive: true })
  mkdirSync(outside, { recursive: true })
  writeFileSync(join(pub, 'index.html'), INDEX)
  writeFileSync(join(pub, 'app.js'), JS)
  writeFileSync(join(pub, 'style.css'), 'body{margin:0}\n')
  writeFileSync(join(pub, 'data.json'), '{"a":1}\n')
  writeFileSync(join(pub, 'logo.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3, 4]))
  writeFileSync(join(pub, 'docs', 'index.html'), '<h1>docs</h1>\n')
  writeFileSync(join(pub, 'docs', 'guide', 'page.txt'), 'a guide\n')
  writeFileSync(join(pub, 'empty', 'note.txt'), 'no index here\n')
  writeFileSync(join(pub, '.env'), 'SECRET=1\n')
  writeFileSync(join(pub, '.git', 'config'), '[core]\n')
  writeFileSync(join(pub, 'inner', 'real.txt'), 'inside\n')
  writeFileSync(join(outside, 'secret.txt'), 'OUTSIDE SECRET\n')
  writeFileSync(join(base, 'sibling.txt'), 'SIBLING SECRET\n')
  symlinkSync(join(outside, 'secret.txt'), join(pub, 'link-out.txt'))
  symlinkSync(outside, join(pub, 'dir-out'))
  symlinkSync(join(pub, 'inner', 'real.txt'), join(pub, 'link-in.txt'))
  symlinkSync(join(pub, '.env'), join(pub, 'env-link.txt'))
})

interface Raw {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

/** Sends `path` verbatim (no normalisation) through node:http. */
function raw(
  url: string,
  path: string,
  opts: { method?: string; headers?: Record<string, string> } = {},
): Promise<Raw> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const req = request(
      { host: hostname, port, path, method: opts.method ?? 'GET', headers: opts.headers },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString('latin1'),
          }),
        )
      },
    )
    req.on('error', reject)
    req.end()
  })
}

/** Sends a request line over a bare socket (node:http refuses some request targets). */
function socket(url: string, target: string): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const s = connect(Number(port), hostname, () => {
      s.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`)
    })
    let out = ''
    s.on('data', (d: Buffer) => (out += d.toString('latin1')))
    s.on('end', () => resolve(out))
    s.on('error', reject)
  })
}

const SECRETS = /OUTSIDE SECRET|SIBLING SECRET|SECRET=1|\[core\]/

describe('static hosting', () => {
  let srv: TestServer
  beforeAll(async () => {
    srv = await startServer({ publicDir: pub })
  })
  afterAll(() => srv.close())

  it('serves files with their types (charset for text) and caching headers', async () => {
    const cases: [string, RegExp, string][] = [
      ['/app.js', /^(text|application)\/javascript; charset=utf-8$/, 'public, max-age=3600'],
      ['/style.css', /^text\/css; charset=utf-8$/, 'public, max-age=3600'],
      ['/data.json', /^application\/json; charset=utf-8$/, 'public, max-age=3600'],
      ['/logo.png', /^image\/png$/, 'public, max-age=3600'],
      ['/index.html', /^text\/html; charset=utf-8$/, 'no-cache'],
    ]
    for (const [path, type, cache] of cases) {
      const res = await fetch(`${srv.url}${path}`)
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type'), path).toMatch(type)
      expect(res.headers.get('cache-control'), path).toBe(cache)
      expect(res.headers.get('etag'), path).toMatch(/^W\/".+"$/)
      expect(res.headers.get('last-modified'), path).toMatch(/GMT$/)
      expect(res.headers.get('accept-ranges'), path).toBe('bytes')
      expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    }
    expect(await (await fetch(`${srv.url}/app.js`)).text()).toBe(JS)
    expect(await (await fetch(`${srv.url}/`)).text()).toBe(INDEX)
  })

  it('answers conditional requests with 304 (ETag and Last-Modified)', async () => {
    // NB: raw requests: fetch adds Cache-Control: no-cache to conditional requests.
    const first = await raw(srv.url, '/app.js')
    const etag = first.headers.etag as string
    const lastModified = first.headers['last-modified'] as string
    const byEtag = await raw(srv.url, '/app.js', { headers: { 'if-none-match': etag } })
    expect(byEtag.status).toBe(304)
    expect(byEtag.body).toBe('')
    expect(byEtag.headers.etag).toBe(etag)
    const byDate = await raw(srv.url, '/app.js', { headers: { 'if-modified-since': lastModified } })
    expect(byDate.status).toBe(304)
    const other = await raw(srv.url, '/app.js', { headers: { 'if-none-match': 'W/"other"' } })
    expect(other.status).toBe(200)
    expect(other.body).toBe(JS)
    const html = await raw(srv.url, '/')
    const again = await raw(srv.url, '/', {
      headers: { 'if-none-match': html.headers.etag as string },
    })
    expect(again.status).toBe(304)
    // A changed file gets a new ETag: the old one no longer matches.
    writeFileSync(join(pub, 'style.css'), 'body{margin:1px}\n')
    const before = await raw(srv.url, '/style.css')
    writeFileSync(join(pub, 'style.css'), 'body{margin:2px;padding:0}\n')
    const changed = await raw(srv.url, '/style.css', {
      headers: { 'if-none-match': before.headers.etag as string },
    })
    expect(changed.status).toBe(200)
    expect(changed.body).toBe('body{margin:2px;padding:0}\n')
  })

  it('answers ranges with 206 and the bytes, 416 when unsatisfiable', async () => {
    const part = await fetch(`${srv.url}/app.js`, { headers: { range: 'bytes=0-9' } })
    expect(part.status).toBe(206)
    expect(part.headers.get('content-range')).toBe(`bytes 0-9/${JS.length}`)
    expect(await part.text()).toBe(JS.slice(0, 10))
    const tail = await fetch(`${srv.url}/app.js`, { headers: { range: 'bytes=-5' } })
    expect(tail.status).toBe(206)
    expect(await tail.text()).toBe(JS.slice(-5))
    const bad = await fetch(`${srv.url}/app.js`, { headers: { range: 'bytes=99999-100000' } })
    expect(bad.status).toBe(416)
    expect(bad.headers.get('content-range')).toBe(`bytes */${JS.length}`)
    const several = await fetch(`${srv.url}/app.js`, { headers: { range: 'bytes=0-1,4-5' } })
    expect(several.status).toBe(200)
    expect(await several.text()).toBe(JS)
    // Preconditions: If-Match and If-Unmodified-Since (412 when they fail).
    const etag = (await raw(srv.url, '/app.js')).headers.etag as string
    const mtime = statSync(join(pub, 'app.js')).mtime
    expect(etag).toBe(weakEtag(JS.length, mtime)) // the same ETag as @fastify/send's
    const failed = await raw(srv.url, '/app.js', { headers: { 'if-match': '"nope"' } })
    expect(failed.status).toBe(412)
    expect(failed.body).toBe('')
    for (const ifMatch of [etag, etag.slice(2), '*', `"x", ${etag}`]) {
      const ok = await raw(srv.url, '/app.js', { headers: { 'if-match': ifMatch } })
      expect(ok.status, ifMatch).toBe(200)
    }
    const old = new Date(mtime.getTime() - 86_400_000).toUTCString()
    const stale = await raw(srv.url, '/app.js', { headers: { 'if-unmodified-since': old } })
    expect(stale.status).toBe(412)
    const fresh = await raw(srv.url, '/app.js', {
      headers: { 'if-unmodified-since': new Date(mtime.getTime() + 86_400_000).toUTCString() },
    })
    expect(fresh.status).toBe(200)
    const last = await fetch(`${srv.url}/app.js`, { headers: { range: `bytes=${JS.length - 1}-` } })
    expect(last.status).toBe(206)
    expect(await last.text()).toBe('\n')
  })

  it('answers HEAD with the headers and no body', async () => {
    const res = await raw(srv.url, '/app.js', { method: 'HEAD' })
    expect(res.status).toBe(200)
    expect(res.headers['content-length']).toBe(String(JS.length))
    expect(res.headers['content-type']).toMatch(/javascript; charset=utf-8/)
    expect(res.body).toBe('')
  })

  it('serves dir/index.html for /dir/, redirects /dir, never lists a directory', async () => {
    const docs = await fetch(`${srv.url}/docs/`)
    expect(docs.status).toBe(200)
    expect(await docs.text()).toBe('<h1>docs</h1>\n')
    expect(docs.headers.get('cache-control')).toBe('no-cache')
    const redirect = await raw(srv.url, '/docs?x=1')
    expect(redirect.status).toBe(301)
    expect(redirect.headers.location).toBe('/docs/?x=1')
    // A directory without index.html: no listing, whatever the slash (fallback off for it).
    const noFallback = await startServer({ publicDir: pub, indexFallback: false })
    try {
      for (const path of ['/empty/', '/empty', '/docs/guide/', '/docs/guide']) {
        const res = await raw(noFallback.url, path)
        expect(res.status, path).toBe(404)
        expect(JSON.parse(res.body), path).toMatchObject({ code: 404 })
        expect(res.body).not.toContain('note.txt')
      }
    } finally {
      await noFallback.close()
    }
    expect(await (await fetch(`${srv.url}/empty/note.txt`)).text()).toBe('no index here\n')
    // A file asked as a directory is not found.
    expect((await raw(srv.url, '/app.js/')).status).toBe(404)
  })

  it('never serves a file outside the folder: traversal in every spelling → 404', async () => {
    const attempts = [
      '/../sibling.txt',
      '/../outside/secret.txt',
      '/docs/../../sibling.txt',
      '/%2e%2e/sibling.txt',
      '/%2E%2E/outside/secret.txt',
      '/docs/%2e%2e/%2e%2e/sibling.txt',
      '/%252e%252e/sibling.txt',
      '/..%2fsibling.txt',
      '/..%2Fsibling.txt',
      '/%2e%2e%2fsibling.txt',
      '/..%5csibling.txt',
      '/docs/..\\..\\sibling.txt',
      '/\\..\\sibling.txt',
      `/${base}/sibling.txt`,
      `/${encodeURIComponent(join(base, 'sibling.txt'))}`,
      '//etc/passwd',
      '/%00/sibling.txt',
      '/index.html%00.js',
      '/%c0%ae%c0%ae/sibling.txt',
      '/link-out.txt',
      '/dir-out/secret.txt',
      '/dir-out/',
      '/./index.html',
    ]
    for (const path of attempts) {
      const res = await raw(srv.url, path, { headers: { accept: 'application/json' } })
      expect([400, 404], path).toContain(res.status)
      expect(res.body, path).not.toMatch(SECRETS)
    }
    for (const target of ['/../sibling.txt', '/docs/..\\..\\sibling.txt', 'C:\\x', '/a\0b']) {
      const text = await socket(srv.url, target)
      expect(text, target).toMatch(/^HTTP\/1\.1 (400|404)/)
      expect(text, target).not.toMatch(SECRETS)
    }
    // With the SPA fallback on (Accept: text/html), traversal gets no file either.
    const spa = await raw(srv.url, '/%2e%2e/sibling', { headers: { accept: 'text/html' } })
    expect(spa.body).not.toMatch(SECRETS)
    // A symlink staying inside the folder is followed.
    expect((await raw(srv.url, '/link-in.txt')).body).toBe('inside\n')
  })

  it('never serves dotfiles, also not through a symlink', async () => {
    for (const path of [
      '/.env',
      '/.git/config',
      '/.git/',
      '/%2eenv',
      '/docs/../.env',
      '/env-link.txt',
    ]) {
      const res = await raw(srv.url, path)
      expect(res.status, path).toBe(404)
      expect(res.body, path).not.toMatch(SECRETS)
    }
  })

  it('answers index.html for extensionless paths that take HTML (SPA fallback, on by default)', async () => {
    for (const path of ['/about', '/users/42/edit', '/deep/path/', '/about?tab=2']) {
      const res = await fetch(`${srv.url}${path}`, { headers: { accept: 'text/html,*/*;q=0.8' } })
      expect(res.status, path).toBe(200)
      expect(res.headers.get('content-type')).toBe('text/html; charset=utf-8')
      expect(res.headers.get('cache-control')).toBe('no-cache')
      expect(await res.text(), path).toBe(INDEX)
    }
    expect((await fetch(`${srv.url}/about`)).status).toBe(200) // fetch's Accept: */*
    const head = await raw(srv.url, '/about', { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
    // Paths that look like files, and clients that want no HTML, get the JSON 404.
    for (const [path, accept] of [
      ['/missing.js', 'text/html'],
      ['/img/missing.png', '*/*'],
      ['/about', 'application/json'],
      ['/about', 'text/html;q=0'],
    ] as const) {
      const res = await raw(srv.url, path, { headers: { accept } })
      expect(res.status, `${path} ${accept}`).toBe(404)
      // PocketBase's file server words it so.
      expect(JSON.parse(res.body)).toEqual({
        code: 404,
        status: 404,
        message: 'File not found.',
        data: {},
      })
    }
    // Other methods keep the JSON 404.
    for (const method of ['POST', 'PUT', 'DELETE', 'PATCH']) {
      const res = await raw(srv.url, '/about', { method, headers: { accept: 'text/html' } })
      expect(res.status, method).toBe(404)
      expect(JSON.parse(res.body)).toMatchObject({ code: 404 })
      expect((await raw(srv.url, '/app.js', { method })).status, method).toBe(404)
    }
  })

  it('turns the fallback off with indexFallback: false', async () => {
    const off = await startServer({ publicDir: pub, indexFallback: false })
    try {
      const res = await raw(off.url, '/about', { headers: { accept: 'text/html' } })
      expect(res.status).toBe(404)
      expect(JSON.parse(res.body)).toMatchObject({ code: 404 })
      expect((await raw(off.url, '/')).body).toBe(INDEX) // files are still served
    } finally {
      await off.close()
    }
  })

  it('never shadows /api or /_/', async () => {
    mkdirSync(join(pub, 'api'), { recursive: true })
    writeFileSync(join(pub, 'api', 'health'), 'static health')
    writeFileSync(join(pub, 'api', 'x.txt'), 'static api file')
    mkdirSync(join(pub, '_'), { recursive: true })
    writeFileSync(join(pub, '_', 'index.html'), 'static dashboard')
    try {
      const health = await fetch(`${srv.url}/api/health`)
      expect(await health.json()).toMatchObject({ code: 200 })
      for (const path of ['/api/x.txt', '/api/nope', '/api/collections/a/b/c/d', '/api']) {
        const res = await raw(srv.url, path, { headers: { accept: 'text/html' } })
        expect(res.status, path).toBe(404)
        expect(JSON.parse(res.body), path).toMatchObject({ code: 404 })
      }
      // The dashboard's own answers: served (or 503 without its build), redirected, or 404.
      for (const [path, statuses] of [
        ['/_/', [200, 503]],
        ['/_', [301]],
        ['/_/index.html', [200, 503]],
        ['/_/anything', [404, 503]],
      ] as const) {
        const res = await raw(srv.url, path, { headers: { accept: 'text/html' } })
        expect(statuses, path).toContain(res.status)
        expect(res.body).not.toContain('static dashboard')
      }
    } finally {
      rmSync(join(pub, 'api'), { recursive: true })
      rmSync(join(pub, '_'), { recursive: true })
    }
  })

  it('without the folder serves nothing (404s), and picks it up once created', async () => {
    const later = join(base, 'later')
    const s = await startServer({ publicDir: later })
    try {
      for (const path of ['/', '/index.html', '/about']) {
        const res = await raw(s.url, path, { headers: { accept: 'text/html' } })
        expect(res.status, path).toBe(404)
        expect(JSON.parse(res.body)).toMatchObject({ code: 404 })
      }
      expect((await fetch(`${s.url}/api/health`)).status).toBe(200)
      mkdirSync(later)
      writeFileSync(join(later, 'index.html'), 'now here')
      expect(await (await fetch(`${s.url}/`)).text()).toBe('now here')
      expect(await (await fetch(`${s.url}/some/route`)).text()).toBe('now here')
    } finally {
      await s.close()
    }
  })

  it('serves names with spaces, percent signs, # and non-ASCII letters', async () => {
    const names = ['hello world.txt', '100%.txt', 'a#b.txt', 'q?x.txt', 'café.txt']
    for (const name of names) writeFileSync(join(pub, name), `file ${name}`)
    try {
      for (const name of names) {
        const res = await raw(srv.url, `/${encodeURIComponent(name)}`)
        expect(res.status, name).toBe(200)
        expect(Buffer.from(res.body, 'latin1').toString('utf8'), name).toBe(`file ${name}`)
      }
    } finally {
      for (const name of names) rmSync(join(pub, name))
    }
  })

  it("works the same without the hook scripts catch-all (Fastify's own not-found path)", async () => {
    const s = await startServer({ publicDir: pub, disable: ['hooks'] })
    try {
      expect(await (await fetch(`${s.url}/app.js`)).text()).toBe(JS)
      expect(await (await fetch(`${s.url}/some/page`)).text()).toBe(INDEX)
      expect((await raw(s.url, '/%2e%2e/sibling.txt')).body).not.toMatch(SECRETS)
      const api = await raw(s.url, '/api/nope', { headers: { accept: 'text/html' } })
      expect(api.status).toBe(404)
      expect(JSON.parse(api.body)).toMatchObject({ code: 404 })
      expect((await raw(s.url, '/app.js', { method: 'POST' })).status).toBe(404)
    } finally {
      await s.close()
    }
  })

  it('is a feature: disabled, nothing is served', async () => {
    const s = await startServer({ publicDir: pub, disable: ['static'] })
    try {
      expect(s.server.features).not.toContain('static')
      expect((await raw(s.url, '/app.js')).status).toBe(404)
    } finally {
      await s.close()
    }
  })
})

describe('resolveStatic (behind the server, where send would also stop it)', () => {
  it('refuses symlinks leading outside the folder and dotfiles behind symlinks', async () => {
    const opts = { root: pub, indexFallback: false }
    for (const url of ['/link-out.txt', '/dir-out/secret.txt', '/env-link.txt', '/dir-out/'])
      expect(await resolveStatic(opts, url, undefined), url).toEqual({ kind: 'none' })
    expect(await resolveStatic(opts, '/link-in.txt', undefined)).toMatchObject({
      kind: 'file',
      file: '/inner/real.txt',
    })
  })
})

describe('svcbase serve --publicDir --indexFallback', () => {
  let child: ChildProcess | undefined
  afterAll(() => {
    child?.kill('SIGTERM')
  })

  it('serves the folder and the SPA fallback from the CLI, without a warning', async () => {
    const data = join(base, 'cli-data')
    child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli.ts',
        'serve',
        `--dir=${data}`,
        '--http=127.0.0.1:0',
        `--publicDir=${pub}`,
        '--indexFallback',
      ],
      { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'pipe'] },
    )
    let out = ''
    let err = ''
    child.stderr!.on('data', (d: Buffer) => (err += d.toString()))
    const url = await new Promise<string>((resolve, reject) => {
      child!.stdout!.on('data', (d: Buffer) => {
        out += d.toString()
        const m = SVCBASE_READY.exec(out)
        if (m) resolve(m[1]!)
      })
      child!.once('exit', (code) => reject(new Error(`exited ${code}: ${out}\n${err}`)))
    })
    expect(out).toContain(`static files from ${pub}`)
    expect(err).not.toMatch(/publicDir|indexFallback/)
    const js = await fetch(`${url}/app.js`)
    expect(js.status).toBe(200)
    expect(await js.text()).toBe(JS)
    expect(await (await fetch(`${url}/a/spa/route`)).text()).toBe(INDEX)
    expect((await raw(url, '/../sibling.txt')).body).not.toMatch(SECRETS)
    expect((await fetch(`${url}/api/nope`)).status).toBe(404)
  }, 30_000)
})
