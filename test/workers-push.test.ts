/**
 * Pushes to one realtime client under `serve --workers 2` (issue 17): the real CLI as a child
 * process, its two workers sharing the port (Node's round robin hands each new connection to the
 * next worker). A client's SSE stream stays on one worker; the LLM gateway's stream to its
 * `clientId` and the OAuth2 popup flow's `@oauth2` message must reach it whichever worker takes
 * the chat request or the provider's redirect. A hook script middleware records, for those two
 * paths, the pid of the worker that took each request (the test's own instrumentation), so the
 * test knows both workers took some.
 */
import { type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { EventSource } from 'eventsource'
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startWorkersCli } from './helpers/workers-cli.js'
import { startOpenAiDouble, type OpenAiDouble } from './helpers/openai-double.js'
import { browse, startOidc, type TestOidc } from './helpers/oidc.js'

const TRACED = ['/api/llm/chat', '/api/oauth2-redirect']

const HOOK = `
const traced = ${JSON.stringify(TRACED)}
export default (app) => {
  app.routerUse(async (e) => {
    const path = e.request.url.split('?')[0]
    const hits = app.collections.find('hits')
    if (hits && traced.includes(path))
      await app.records.create(hits, { path, pid: process.pid }, app.internalRequest())
    await e.next()
  })
}
`

let url = ''
let child: ChildProcess
let suToken = ''
let workerPids: number[] = []
let double: OpenAiDouble
let oidc: TestOidc
const root = mkdtempSync(join(tmpdir(), 'svcbase-workers-push-'))

/** One request on a connection of its own (so the next one may reach the other worker). */
function call(method: string, path: string, opts: { body?: unknown; token?: string } = {}) {
  return new Promise<{ status: number; text: string; body: any; location: string }>(
    (resolve, reject) => {
      const data = opts.body === undefined ? undefined : JSON.stringify(opts.body)
      const req = request(
        `${url}${path}`,
        {
          method,
          agent: false,
          headers: {
            ...(data ? { 'content-type': 'application/json' } : {}),
            ...(opts.token ? { authorization: opts.token } : {}),
          },
        },
        (res) => {
          let text = ''
          res.on('data', (d: Buffer) => (text += d.toString()))
          res.on('end', () => {
            let body: unknown = null
            try {
              body = text ? JSON.parse(text) : null
            } catch {
              // not JSON (the redirect page)
            }
            resolve({
              status: res.statusCode ?? 0,
              text,
              body,
              location: res.headers.location ?? '',
            })
          })
        },
      )
      req.on('error', reject)
      req.end(data)
    },
  )
}

const until = async (cond: () => boolean | Promise<boolean>) => {
  while (!(await cond())) await new Promise((r) => setTimeout(r, 20))
}

/** The pids of the workers that took the traced requests of `path`. */
async function pidsOf(path: string): Promise<Set<number>> {
  const filter = encodeURIComponent(`path="${path}"`)
  const r = await call('GET', `/api/collections/hits/records?perPage=500&filter=${filter}`, {
    token: suToken,
  })
  expect(r.status).toBe(200)
  return new Set((r.body.items as { pid: number }[]).map((h) => h.pid))
}

beforeAll(async () => {
  const hooks = join(root, 'hooks')
  mkdirSync(hooks)
  writeFileSync(join(hooks, 'trace.js'), HOOK)
  const started = await startWorkersCli(join(root, 'data'), hooks)
  child = started.child
  url = started.url
  workerPids = started.workerPids
  const token = started.setupToken
  const setup = await call('POST', '/api/setup', {
    body: {
      email: 'admin@example.com',
      password: 'supersecret123',
      passwordConfirm: 'supersecret123',
      token,
    },
  })
  expect(setup.status).toBeLessThan(300)
  const auth = await call('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: 'admin@example.com', password: 'supersecret123' },
  })
  suToken = auth.body.token as string
  const hits = await call('POST', '/api/collections', {
    token: suToken,
    body: {
      name: 'hits',
      type: 'base',
      createRule: '',
      fields: [
        { name: 'path', type: 'text' },
        { name: 'pid', type: 'number' },
      ],
    },
  })
  expect(hits.status).toBe(200)

  double = await startOpenAiDouble({ apiKey: 'sk-test-key', models: ['tiny-model'] })
  const llm = await call('PATCH', '/api/settings', {
    token: suToken,
    body: {
      llm: {
        enabled: true,
        provider: 'openai-compatible',
        baseUrl: double.url,
        apiKey: 'sk-test-key',
        model: 'tiny-model',
        timeout: 60,
      },
    },
  })
  expect(llm.status, llm.text).toBe(200)

  oidc = await startOidc([
    {
      client_id: 'sdk-client',
      client_secret: 'sdk-secret',
      redirect_uris: [`${url}/api/oauth2-redirect`],
    },
  ])
  const oauth2 = await call('PATCH', '/api/collections/users', {
    token: suToken,
    body: {
      oauth2: {
        enabled: true,
        providers: [
          {
            name: 'oidc',
            clientId: 'sdk-client',
            clientSecret: 'sdk-secret',
            extra: { issuer: oidc.issuer },
          },
        ],
      },
    },
  })
  expect(oauth2.status, oauth2.text).toBe(200)
}, 60_000)

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((r) => child.once('exit', r))
    child.kill('SIGTERM')
    await exited
  }
  await double?.close()
  await oidc?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('serve --workers 2: pushes to one realtime client', () => {
  it('streams every LLM answer to the client whole and in order, whichever worker takes the chat', async () => {
    const user = await call('POST', '/api/collections/users/records', {
      body: { email: 'alice@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(user.status).toBe(200)
    const login = await call('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'alice@example.com', password: 'password123' },
    })
    const token = login.body.token as string
    const chunks = Array.from({ length: 300 }, (_, i) => `c${i} `)
    double.behaviour = { chunks }

    const es = new EventSource(`${url}/api/realtime`)
    let clientId = ''
    const deltas = new Map<string, string[]>()
    const done = new Map<string, string>()
    es.addEventListener('SVC_CONNECT', (e) => (clientId = JSON.parse(e.data).clientId as string))
    es.addEventListener('llm_chunk', (e) => {
      const { requestId, delta } = JSON.parse(e.data) as { requestId: string; delta: string }
      if (done.has(requestId)) throw new Error('a chunk after llm_done')
      deltas.set(requestId, [...(deltas.get(requestId) ?? []), delta])
    })
    es.addEventListener('llm_done', (e) => {
      const { requestId, text } = JSON.parse(e.data) as { requestId: string; text: string }
      done.set(requestId, text)
    })
    try {
      await until(() => clientId !== '')
      // Binds alice to the client (forwarded when it reaches the other worker).
      const sub = await call('POST', '/api/realtime', {
        token,
        body: { clientId, subscriptions: ['llm_chunk', 'llm_done'] },
      })
      expect(sub.status).toBe(204)
      for (let i = 0; i < 6; i++) {
        const r = await call('POST', '/api/llm/chat', {
          token,
          body: { messages: [{ role: 'user', content: `q${i}` }], clientId },
        })
        expect(r.status, r.text).toBe(200)
        const id = r.body.requestId as string
        expect(r.body.reply).toBe(chunks.join(''))
        await until(() => done.has(id))
        expect(deltas.get(id)).toEqual(chunks)
        expect(done.get(id)).toBe(chunks.join(''))
      }
      expect([...(await pidsOf('/api/llm/chat'))].sort()).toEqual(workerPids)

      // Another user's chat to alice's client: 404 on either worker.
      await call('POST', '/api/collections/users/records', {
        body: { email: 'bob@example.com', password: 'password123', passwordConfirm: 'password123' },
      })
      const bob = await call('POST', '/api/collections/users/auth-with-password', {
        body: { identity: 'bob@example.com', password: 'password123' },
      })
      for (let i = 0; i < 2; i++) {
        const r = await call('POST', '/api/llm/chat', {
          token: bob.body.token as string,
          body: { messages: [{ role: 'user', content: 'x' }], clientId },
        })
        expect(r.status).toBe(404)
      }
      // A client no worker holds: 404 too.
      const none = await call('POST', '/api/llm/chat', {
        token,
        body: { messages: [{ role: 'user', content: 'x' }], clientId: 'nobody' },
      })
      expect(none.status).toBe(404)
    } finally {
      es.close()
    }
  }, 60_000)

  it('completes the SDK all-in-one OAuth2 flow whichever worker takes the redirect', async () => {
    const saved = globalThis.EventSource
    ;(globalThis as { EventSource: unknown }).EventSource = EventSource
    try {
      // Flows until both workers have taken a redirect (the balancer decides which: at least 4,
      // at most 16), so the cross-worker case is always among them.
      for (let i = 0; i < 16; i++) {
        if (i >= 4 && (await pidsOf('/api/oauth2-redirect')).size === workerPids.length) break
        const pb = new PocketBase(url)
        pb.autoCancellation(false)
        const pages: { status: number; text: string }[] = []
        const auth = await pb.collection('users').authWithOAuth2({
          provider: 'oidc',
          urlCallback: async (authUrl) => {
            const stop = await browse(authUrl, `popup${i}`, (u) =>
              u.href.startsWith(`${url}/api/oauth2-redirect`),
            )
            // The redirect on a connection of its own: it may reach either worker.
            const page = await call('GET', stop.url.pathname + stop.url.search)
            // The short page, or (the dashboard built) a redirect to its success page.
            const ok =
              page.status === 200
                ? page.text.includes('Authentication completed.')
                : page.status === 307 && page.location === '../_/#/auth/oauth2-redirect-success'
            pages.push({ status: page.status, text: `${page.location} ${page.text}` })
            // The SDK would wait for the @oauth2 message forever: fail at once.
            if (!ok) throw new Error(`redirect page ${page.status}: ${page.location} ${page.text}`)
          },
        })
        expect(pages).toHaveLength(1)
        expect(auth.record.email).toBe(`popup${i}@example.test`)
        expect(pb.authStore.isValid).toBe(true)
        pb.realtime.unsubscribe().catch(() => undefined)
      }
      expect([...(await pidsOf('/api/oauth2-redirect'))].sort()).toEqual(workerPids)
    } finally {
      ;(globalThis as { EventSource: unknown }).EventSource = saved
    }
  }, 60_000)
})
