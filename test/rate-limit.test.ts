import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const TOO_MANY = { code: 429, status: 429, message: 'Too Many Requests.', data: {} }

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'OPTIONS'
type Rule = { label: string; audience?: '' | '@guest' | '@auth'; duration: number; max: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Black-box scenarios of the rate limiter (SPEC §2.7, §8; DECISIONS: the most specific label
 * wins). Counters are per client IP, so every test uses addresses of its own; superusers are
 * never limited (reference §10.2), so the settings PATCHes below are not counted.
 */
describe('rate limiting', () => {
  let t: TestServer
  let userToken: string

  const from: TestServer['from'] = (...args) => t.from(...args)
  /** The statuses of `n` identical requests, sent one after another. */
  const statuses = async (n: number, ip: string, method: Method, url: string, opts = {}) => {
    const out: number[] = []
    for (let i = 0; i < n; i++) out.push((await from(ip, method, url, opts)).status)
    return out
  }
  const setSettings = async (patch: Record<string, unknown>) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body: patch })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  /** Enables rate limiting with exactly these rules (and exclusions). */
  const limit = (rules: Rule[], extra: Record<string, unknown> = {}) =>
    setSettings({
      rateLimits: {
        enabled: true,
        excludedIPs: [],
        rules: rules.map((r) => ({
          label: r.label,
          audience: r.audience ?? '',
          duration: r.duration,
          maxRequests: r.max,
        })),
        ...extra,
      },
    })
  const signIn = (ip: string, collection: string, identity: string, password: string) =>
    from(ip, 'POST', `/api/collections/${collection}/auth-with-password`, {
      body: { identity, password },
    })

  beforeAll(async () => {
    t = await startServer()
    for (const name of ['posts', 'notes']) {
      const res = await t.api('POST', '/api/collections', {
        token: t.suToken,
        body: {
          name,
          type: 'base',
          listRule: '',
          viewRule: '',
          createRule: '',
          schema: [{ name: 'title', type: 'text' }],
        },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
    }
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    expect(login.status).toBe(200)
    userToken = login.body.token
  })
  afterAll(async () => {
    await t.close()
  })
  beforeEach(async () => {
    await setSettings({
      rateLimits: { enabled: false, excludedIPs: [] },
      trustedProxy: { headers: [], useLeftmostIP: false },
    })
  })

  it('is off by default', async () => {
    const settings = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(settings.body.rateLimits.enabled).toBe(false)
    await setSettings({
      rateLimits: { rules: [{ label: '/api/', audience: '', duration: 10, maxRequests: 1 }] },
    })
    expect(await statuses(5, '10.0.1.1', 'GET', '/api/health')).toEqual([200, 200, 200, 200, 200])
  })

  it('lets exactly maxRequests through per window, then answers 429 until a new window', async () => {
    await limit([{ label: '/api/', duration: 1, max: 3 }])
    // 404s under /api/ count against the same `/api/` counter as real routes.
    expect((await from('10.0.2.1', 'GET', '/api/health')).status).toBe(200)
    expect((await from('10.0.2.1', 'GET', '/api/nothing-here')).status).toBe(404)
    expect((await from('10.0.2.1', 'GET', '/api/health')).status).toBe(200)
    const over = await from('10.0.2.1', 'GET', '/api/health')
    expect(over.status).toBe(429)
    expect(over.body).toEqual(TOO_MANY)
    expect(over.headers['retry-after']).toBe('1')
    expect(over.headers['content-type']).toMatch(/^application\/json/)
    expect((await from('10.0.2.1', 'GET', '/api/nothing-here')).status).toBe(429)
    // Another client has its own counter.
    expect(await statuses(3, '10.0.2.2', 'GET', '/api/health')).toEqual([200, 200, 200])
    await sleep(1100)
    expect(await statuses(4, '10.0.2.1', 'GET', '/api/health')).toEqual([200, 200, 200, 429])
  })

  it('stops a limited request before its handler runs', async () => {
    await limit([
      { label: '*:create', duration: 2, max: 1 },
      { label: '/api/', duration: 2, max: 100 },
    ])
    const body = { title: 'limited-before-handler' }
    expect(
      (await from('10.0.3.1', 'POST', '/api/collections/posts/records', { body })).status,
    ).toBe(200)
    expect(
      (await from('10.0.3.1', 'POST', '/api/collections/posts/records', { body })).status,
    ).toBe(429)
    const list = await t.api(
      'GET',
      `/api/collections/posts/records?filter=${encodeURIComponent("title='limited-before-handler'")}`,
    )
    expect(list.body.totalItems).toBe(1)
  })

  it('picks the exact path `/api/batch` over the `/api/` prefix, each with its own counter', async () => {
    await limit([
      { label: '/api/', duration: 2, max: 2 },
      { label: '/api/batch', duration: 2, max: 4 },
    ])
    const batch = (await statuses(5, '10.0.4.1', 'POST', '/api/batch', { body: {} })).map(
      (s) => s === 429,
    )
    expect(batch).toEqual([false, false, false, false, true])
    // The batch calls did not touch the `/api/` counter.
    expect(await statuses(3, '10.0.4.1', 'GET', '/api/health')).toEqual([200, 200, 429])
    // The encoded path meets the same rule.
    expect((await from('10.0.4.1', 'POST', '/api/%62atch', { body: {} })).status).toBe(429)
  })

  it('picks `users:auth` over `*:auth` over `/api/`', async () => {
    await limit([
      { label: '/api/', duration: 2, max: 100 },
      { label: '*:auth', duration: 2, max: 1 },
      { label: 'users:auth', duration: 2, max: 3 },
    ])
    const ip = '10.0.5.1'
    const users = []
    for (let i = 0; i < 4; i++)
      users.push((await signIn(ip, 'users', 'u@example.com', 'wrong')).status)
    expect(users).toEqual([400, 400, 400, 429])
    // Another auth collection falls to `*:auth` (1 per window), counted for that collection.
    expect(
      await statuses(1, ip, 'POST', '/api/collections/_superusers/auth-with-password'),
    ).toEqual([400])
    expect((await signIn(ip, '_superusers', 'x@example.com', 'wrong')).status).toBe(429)
    // Untagged routes keep the `/api/` budget.
    expect(await statuses(3, ip, 'GET', '/api/health')).toEqual([200, 200, 200])
  })

  it('limits record create through `*:create`, per collection, leaving other actions alone', async () => {
    await limit([
      { label: '*:create', duration: 2, max: 2 },
      { label: '/api/', duration: 2, max: 100 },
    ])
    const ip = '10.0.6.1'
    const create = (c: string) =>
      from(ip, 'POST', `/api/collections/${c}/records`, { body: { title: 'x' } })
    expect([(await create('posts')).status, (await create('posts')).status]).toEqual([200, 200])
    const over = await create('posts')
    expect(over.status).toBe(429)
    expect(over.body).toEqual(TOO_MANY)
    // Collection ids and names are the same collection.
    const posts = await t.api('GET', '/api/collections/posts', { token: t.suToken })
    expect((await create(posts.body.id)).status).toBe(429)
    expect((await create('notes')).status).toBe(200)
    expect((await from(ip, 'GET', '/api/collections/posts/records')).status).toBe(200)
  })

  it('applies `@guest` rules to guests only and `@auth` rules to signed-in users only', async () => {
    await limit([
      { label: '/api/', audience: '@guest', duration: 2, max: 2 },
      { label: '/api/health', audience: '@auth', duration: 2, max: 1 },
    ])
    const ip = '10.0.7.1'
    expect(await statuses(3, ip, 'GET', '/api/health')).toEqual([200, 200, 429])
    // The same IP, signed in: the guest rule does not apply, and no rule covers the list.
    const asUser = { token: userToken }
    expect(await statuses(4, ip, 'GET', '/api/collections/posts/records', asUser)).toEqual([
      200, 200, 200, 200,
    ])
    // The `@auth` exact rule applies to the user, not to a fresh guest.
    expect(await statuses(2, ip, 'GET', '/api/health', asUser)).toEqual([200, 429])
    expect(await statuses(2, '10.0.7.2', 'GET', '/api/health')).toEqual([200, 200])
  })

  it('never limits superusers', async () => {
    await limit([{ label: '/api/', duration: 2, max: 1 }])
    const su = { token: t.suToken }
    expect(await statuses(4, '10.0.8.1', 'GET', '/api/settings', su)).toEqual([200, 200, 200, 200])
  })

  it('exempts excludedIPs, by address and by CIDR subnet', async () => {
    await limit([{ label: '/api/', duration: 2, max: 1 }], {
      excludedIPs: ['10.0.9.5', '10.8.0.0/16', '2001:db8::/32'],
    })
    expect(await statuses(3, '10.0.9.5', 'GET', '/api/health')).toEqual([200, 200, 200])
    expect(await statuses(3, '10.8.44.2', 'GET', '/api/health')).toEqual([200, 200, 200])
    expect(await statuses(3, '2001:db8::7', 'GET', '/api/health')).toEqual([200, 200, 200])
    expect(await statuses(2, '10.0.9.6', 'GET', '/api/health')).toEqual([200, 429])
    expect(await statuses(2, '2001:db9::7', 'GET', '/api/health')).toEqual([200, 429])
  })

  it('keys clients by the IP the trusted proxy headers give', async () => {
    await limit([{ label: '/api/', duration: 2, max: 1 }], { excludedIPs: ['10.8.0.0/16'] })
    await setSettings({ trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: true } })
    const via = (xff: string) => ({ headers: { 'x-forwarded-for': xff } })
    const proxy = '10.0.10.1'
    // Leftmost: the excluded client behind the proxy is exempt.
    expect(await statuses(3, proxy, 'GET', '/api/health', via('10.8.3.4, 203.0.113.9'))).toEqual([
      200, 200, 200,
    ])
    expect(await statuses(2, proxy, 'GET', '/api/health', via('203.0.113.7, 10.8.3.4'))).toEqual([
      200, 429,
    ])
    // Each forwarded client has a counter of its own, not the proxy's.
    expect(await statuses(2, proxy, 'GET', '/api/health', via('203.0.113.8'))).toEqual([200, 429])
    // Rightmost (default): the same header now names the excluded address.
    await setSettings({ trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: false } })
    expect(await statuses(3, proxy, 'GET', '/api/health', via('203.0.113.7, 10.8.3.4'))).toEqual([
      200, 200, 200,
    ])
  })

  it('limits only /api/: never /metrics, other paths or OPTIONS preflights', async () => {
    await limit([
      { label: '/metrics', duration: 2, max: 1 },
      { label: '/', duration: 2, max: 1 },
      { label: '/api/', duration: 2, max: 1 },
    ])
    const ip = '10.0.11.1'
    // Whatever /metrics answers (200, or 404 without the metrics feature), it is never a 429.
    const metrics = await statuses(3, ip, 'GET', '/metrics')
    expect(metrics.every((s) => s === metrics[0] && s !== 429)).toBe(true)
    expect(await statuses(3, ip, 'GET', '/not-api/x')).toEqual([404, 404, 404])
    expect(await statuses(3, ip, 'GET', '/apix')).toEqual([404, 404, 404])
    const preflight = {
      headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
    }
    expect(await statuses(3, ip, 'OPTIONS', '/api/health', preflight)).toEqual([204, 204, 204])
    expect(await statuses(2, ip, 'GET', '/api/health')).toEqual([200, 429])
  })

  it('applies settings changes to the next request', async () => {
    const ip = '10.0.12.1'
    await limit([{ label: '/api/', duration: 5, max: 100 }])
    expect(await statuses(3, ip, 'GET', '/api/health')).toEqual([200, 200, 200])
    // Tightened below what this client already spent in the window: the next one is refused.
    await limit([{ label: '/api/', duration: 5, max: 3 }])
    expect((await from(ip, 'GET', '/api/health')).status).toBe(429)
    await limit([{ label: '/api/', duration: 5, max: 10 }])
    expect((await from(ip, 'GET', '/api/health')).status).toBe(200)
    // A shorter window ends the running one.
    await limit([{ label: '/api/', duration: 1, max: 1 }])
    await sleep(1100)
    expect(await statuses(2, ip, 'GET', '/api/health')).toEqual([200, 429])
    await setSettings({ rateLimits: { enabled: false } })
    expect(await statuses(3, ip, 'GET', '/api/health')).toEqual([200, 200, 200])
  })
})
