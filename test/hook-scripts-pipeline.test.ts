/**
 * Script routes go through the same pipeline as built-in ones (issue 13 part 4): auth
 * (`e.auth`), the rate limiter, the request logs and metrics; `routerUse` middlewares run around
 * built-in routes and script routes, in binding order, and route middlewares after them.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  'a-routes.js': `
// shared with b-second.js through globalThis: each script is bundled on its own, so a module
// both import would be two copies
const seen = (globalThis.__pipelineTrace ??= [])
export default (app) => {
  app.routerAdd('GET', '/api/whoami', (e) => {
    e.json(200, {
      auth: e.auth ? { id: e.auth.id, email: e.auth.email } : null,
      collection: e.requestInfo.auth ? e.requestInfo.auth.collection.name : null,
      ip: e.requestInfo.ip,
    })
  })
  app.routerAdd('GET', '/api/limited/{n}', (e) => e.json(200, { n: e.request.pathValue('n') }))
  app.routerAdd('GET', '/api/mw-seen', (e) => e.json(200, seen.splice(0)))
  // a route middleware: refuses guests, after the global ones
  const requireAuth = async (e) => {
    seen.push('route-mw')
    if (!e.auth) throw new app.ApiError(401, 'Sign in first.')
    await e.next()
  }
  app.routerAdd('GET', '/api/members-only', (e) => { seen.push('handler'); e.json(200, { ok: true }) }, requireAuth)

  // global middlewares, in binding order
  app.routerUse(async (e) => {
    if (e.request.url.startsWith('/api/mw-seen')) return e.next()
    seen.push('first ' + e.request.method + ' ' + e.request.url.split('?')[0])
    if (e.request.header('X-Block') === 'yes') {
      e.json(403, { blocked: true, body: e.requestInfo.body })
      return
    }
    if (e.request.header('X-Throw') === 'yes') throw new Error('middleware broke')
    await e.next()
    seen.push('after ' + e.request.url.split('?')[0])
  })
}
`,
  'b-second.js': `
const seen = (globalThis.__pipelineTrace ??= [])
export default (app) => {
  app.routerUse(async (e) => {
    if (!e.request.url.startsWith('/api/mw-seen')) seen.push('second')
    await e.next()
  })
}
`,
}

describe('script routes in the request pipeline', () => {
  let t: HooksServer
  let userToken: string
  let userId: string

  beforeAll(async () => {
    t = await startHooksServer(files)
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'members', type: 'auth', createRule: '' },
    })
    expect(made.status, made.text).toBe(200)
    const user = await t.api('POST', '/api/collections/members/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    userId = user.body.id
    const login = await t.api('POST', '/api/collections/members/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token
    await t.api('GET', '/api/mw-seen')
  })
  afterAll(() => t.close())

  /** The middleware trace since the last call (the "after" parts run once the answer is sent). */
  const trace = async (min = 0): Promise<string[]> => {
    const out: string[] = []
    for (let i = 0; i < 50; i++) {
      out.push(...((await t.api('GET', '/api/mw-seen')).body as string[]))
      if (out.length >= min) break
      await new Promise((r) => setTimeout(r, 10))
    }
    return out
  }

  it('resolves auth for script routes as for built-in ones (e.auth)', async () => {
    const guest = await t.api('GET', '/api/whoami')
    expect(guest.body).toEqual({ auth: null, collection: null, ip: '127.0.0.1' })
    const user = await t.api('GET', '/api/whoami', { token: userToken })
    expect(user.body).toEqual({
      auth: { id: userId, email: 'u@example.com' },
      collection: 'members',
      ip: '127.0.0.1',
    })
    const badToken = await t.api('GET', '/api/whoami', { token: 'not-a-token' })
    expect(badToken.body.auth).toBeNull()
    await trace()
  })

  it('rate-limits script routes with the rules of the settings', async () => {
    const patch = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: {
        rateLimits: {
          enabled: true,
          rules: [{ label: '/api/limited/', audience: '', duration: 60, maxRequests: 2 }],
        },
      },
    })
    expect(patch.status, patch.text).toBe(200)
    try {
      expect((await t.api('GET', '/api/limited/1')).status).toBe(200)
      expect((await t.api('GET', '/api/limited/2')).status).toBe(200)
      const third = await t.api('GET', '/api/limited/3')
      expect(third.status).toBe(429)
      expect(third.headers.get('retry-after')).toMatch(/^\d+$/)
      // another path is not under the rule
      expect((await t.api('GET', '/api/whoami')).status).toBe(200)
    } finally {
      await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { rateLimits: { enabled: false } },
      })
    }
    await trace()
  })

  it('writes a request log row and counts the request in the metrics', async () => {
    const res = await t.api('GET', '/api/whoami?log=probe', { token: userToken })
    expect(res.status).toBe(200)
    await t.server.app.services.get('logs').flush()
    const logs = await t.api(
      'GET',
      `/api/logs?filter=${encodeURIComponent('data.url = "/api/whoami?log=probe"')}`,
      { token: t.suToken },
    )
    expect(logs.status, logs.text).toBe(200)
    expect(logs.body.items).toHaveLength(1)
    expect(logs.body.items[0].data).toMatchObject({
      method: 'GET',
      status: 200,
      auth: 'members',
      url: '/api/whoami?log=probe',
    })
    const metrics = await fetch(`${t.url}/metrics`).then((r) => r.text())
    expect(metrics).toMatch(/method="GET",status="200"/)
    await trace()
  })

  it('runs the global middlewares around a built-in route, the code after next() after the answer', async () => {
    const health = await t.api('GET', '/api/health')
    expect(health.status).toBe(200)
    expect(health.body).toMatchObject({ code: 200 })
    expect(await trace(3)).toEqual(['first GET /api/health', 'second', 'after /api/health'])
  })

  it('lets a global middleware answer instead of a built-in route, with the parsed body', async () => {
    const before = await t.api('GET', '/api/collections/members/records', { token: t.suToken })
    const blocked = await t.api('POST', '/api/collections/members/records', {
      headers: { 'x-block': 'yes' },
      body: {
        email: 'blocked@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
      },
    })
    expect(blocked.status).toBe(403)
    expect(blocked.body).toEqual({
      blocked: true,
      body: {
        email: 'blocked@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
      },
    })
    const after = await t.api('GET', '/api/collections/members/records', { token: t.suToken })
    expect(after.body.totalItems).toBe(before.body.totalItems)
    await trace()
  })

  it('answers a middleware failure on a built-in route with a generic 500', async () => {
    const res = await t.api('GET', '/api/health', { headers: { 'x-throw': 'yes' } })
    expect(res.status).toBe(500)
    expect(res.text).not.toContain('middleware broke')
    const logged = t.logs.find((l) => String(l.data.error).includes('middleware broke'))
    expect(logged?.data.error).toMatch(/hook script a-routes\.js:\d+:\d+: .*middleware broke/)
    await trace()
  })

  it('runs global middlewares, then the route middleware, then the handler of a script route', async () => {
    const guest = await t.api('GET', '/api/members-only')
    expect(guest.status).toBe(401)
    expect(guest.body.message).toBe('Sign in first.')
    expect(await trace(3)).toEqual(['first GET /api/members-only', 'second', 'route-mw'])
    const user = await t.api('GET', '/api/members-only', { token: userToken })
    expect(user.body).toEqual({ ok: true })
    expect(await trace(5)).toEqual([
      'first GET /api/members-only',
      'second',
      'route-mw',
      'handler',
      'after /api/members-only',
    ])
  })
})
