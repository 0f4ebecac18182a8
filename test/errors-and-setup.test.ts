import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { silentLogger } from '../src/core/logger.js'
import { createServer, type Server } from '../src/server.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('health, routing and errors', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('answers health publicly and with diagnostics for superusers', async () => {
    const guest = await t.api('GET', '/api/health')
    expect(guest.status).toBe(200)
    expect(guest.body).toEqual({ code: 200, message: 'API is healthy.', data: {} })
    const su = await t.api('GET', '/api/health', { token: t.suToken })
    expect(su.body.data).toEqual({ canBackup: true, realIP: '127.0.0.1', possibleProxyHeader: '' })
    const proxied = await t.api('GET', '/api/health', {
      token: t.suToken,
      headers: { 'cf-connecting-ip': '1.2.3.4' },
    })
    expect(proxied.body.data.possibleProxyHeader).toBe('CF-Connecting-IP')
    expect(guest.headers.get('x-content-type-options')).toBe('nosniff')
  })

  it('answers unknown routes, trailing slashes and wrong methods with 404 in the error envelope, worded as PocketBase', async () => {
    // PocketBase answers an unknown GET from its file server ("File not found."), others from
    // its router.
    for (const [method, path, message] of [
      ['GET', '/api/nope', 'File not found.'],
      ['GET', '/api/health/', 'File not found.'],
      ['GET', '/api/collections/users/records/x/y', 'File not found.'],
      ['DELETE', '/api/health', "The requested resource wasn't found."],
      ['POST', '/api/nope', "The requested resource wasn't found."],
      ['PUT', '/api/collections/users/records', "The requested resource wasn't found."],
    ] as const) {
      const res = await t.api(method, path)
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.body, `${method} ${path}`).toEqual({ code: 404, status: 404, message, data: {} })
    }
    const head = await fetch(`${t.url}/api/nope`, { method: 'HEAD' })
    expect(head.status).toBe(404)
    // A path parameter past Fastify's default 100 characters still reaches its route.
    const long = await t.api('GET', `/api/collections/users/records/${'a'.repeat(300)}`)
    expect(long.status).toBe(404)
    expect(long.body.message).toBe("The requested resource wasn't found.")
  })

  it('rejects malformed JSON with 400', async () => {
    const res = await t.api('POST', '/api/collections/users/records', {
      raw: '{"a":',
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(400)
    expect(res.body.code).toBe(400)
    expect(res.body.message).toMatch(/invalid JSON/)
  })

  it('rejects an unsupported content type with 400', async () => {
    const res = await t.api('POST', '/api/collections/users/records', {
      raw: '<x/>',
      headers: { 'content-type': 'application/xml' },
    })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Unsupported Content-Type.')
  })

  it('rejects a body over the limit with 413', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(33 * 1024 * 1024) })
    const res = await t.api('POST', '/api/collections/users/records', {
      raw: big,
      headers: { 'content-type': 'application/json' },
    })
    expect(res.status).toBe(413)
    expect(res.body).toEqual({
      code: 413,
      status: 413,
      message: 'Request entity too large.',
      data: {},
    })
  })

  it('treats an invalid token as a guest, not 401', async () => {
    const res = await t.api('GET', '/api/health', { token: 'not-a-jwt' })
    expect(res.status).toBe(200)
    const list = await t.api('GET', '/api/collections', { token: 'bad' })
    expect(list.status).toBe(401)
  })

  it('guards superuser-only endpoints: 401 without token, 403 for other auth records', async () => {
    const user = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u1@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(user.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u1@example.com', password: 'password123' },
    })
    expect(login.status).toBe(200)
    const res = await t.api('GET', '/api/collections', { token: login.body.token })
    expect(res.status).toBe(403)
    expect(res.body.message).toBe('The authorized record is not allowed to perform this action.')
  })
})

describe('setup', () => {
  let server: Server
  let url: string
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-setup-'))
    server = await createServer({ dataDir: dir, logger: silentLogger })
    url = await server.http.listen({ host: '127.0.0.1', port: 0 })
  })
  afterAll(async () => {
    await server.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const post = (body: unknown) =>
    fetch(`${url}/api/setup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('requires the setup token from a non-loopback address', async () => {
    const body = {
      email: 'far@example.com',
      password: 'longpassword1',
      passwordConfirm: 'longpassword1',
    }
    const denied = await server.http.inject({
      method: 'POST',
      url: '/api/setup',
      remoteAddress: '10.9.8.7',
      payload: body,
    })
    expect(denied.statusCode).toBe(403)
    const wrong = await server.http.inject({
      method: 'POST',
      url: '/api/setup',
      remoteAddress: '10.9.8.7',
      payload: { ...body, token: 'x'.repeat(32) },
    })
    expect(wrong.statusCode).toBe(403)
    expect(((await (await fetch(`${url}/api/setup/status`)).json()) as any).needsSetup).toBe(true)
  })

  it('creates the first superuser once, then refuses', async () => {
    expect(await (await fetch(`${url}/api/setup/status`)).json()).toEqual({ needsSetup: true })
    const bad = await post({
      email: 'root@example.com',
      password: 'longpassword1',
      passwordConfirm: 'other',
    })
    expect(bad.status).toBe(400)
    expect(((await bad.json()) as any).data.passwordConfirm.code).toBe('validation_values_mismatch')
    const ok = await post({
      email: 'root@example.com',
      password: 'longpassword1',
      passwordConfirm: 'longpassword1',
    })
    expect(ok.status).toBe(200)
    const body = (await ok.json()) as any
    expect(typeof body.token).toBe('string')
    expect(body.record.email).toBe('root@example.com')
    expect(body.record.password).toBeUndefined()
    expect(body.record.tokenKey).toBeUndefined()
    expect(await (await fetch(`${url}/api/setup/status`)).json()).toEqual({ needsSetup: false })
    const again = await post({
      email: 'two@example.com',
      password: 'longpassword1',
      passwordConfirm: 'longpassword1',
    })
    expect(again.status).toBe(400)
    const remote = await server.http.inject({
      method: 'POST',
      url: '/api/setup',
      remoteAddress: '10.9.8.7',
      payload: {
        email: 'three@example.com',
        password: 'longpassword1',
        passwordConfirm: 'longpassword1',
        token: server.setupToken,
      },
    })
    // The token is accepted; setup itself is refused because it is complete.
    expect(remote.statusCode).toBe(400)
    expect(remote.json().message).toBe('Setup is already complete.')
    const cols = await fetch(`${url}/api/collections`, {
      headers: { authorization: `Bearer ${body.token}` },
    })
    expect(cols.status).toBe(200)
    // tokenKey signs the record's tokens: never serialised, not even to a superuser.
    const authHeader = { authorization: `Bearer ${body.token}` }
    const user = await fetch(`${url}/api/collections/users/records`, {
      method: 'POST',
      headers: { ...authHeader, 'content-type': 'application/json' },
      body: JSON.stringify({
        email: 'u@example.com',
        password: 'pw123456',
        passwordConfirm: 'pw123456',
      }),
    })
    expect(user.status).toBe(200)
    expect(Object.keys((await user.json()) as object)).not.toContain('tokenKey')
    for (const path of [
      '/api/collections/_superusers/records',
      '/api/collections/users/records',
      '/api/collections/users/records?fields=id,tokenKey',
    ]) {
      const list = (await (await fetch(`${url}${path}`, { headers: authHeader })).json()) as any
      expect(list.items.length, path).toBeGreaterThan(0)
      for (const item of list.items) expect(Object.keys(item), path).not.toContain('tokenKey')
    }
  })
})

describe('unknown faults', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  it('answers 500 with a generic message and logs the cause', async () => {
    const logged: string[] = []
    const logger = t.server.app.logger as {
      error: (m: string, d?: Record<string, unknown>) => void
    }
    const original = logger.error
    logger.error = (m, d) => logged.push(`${m} ${JSON.stringify(d)}`)
    const id = t.server.app.hooks.onRecordCreate.bind(() => {
      throw new Error('disk on fire')
    })
    const res = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'x@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    t.server.app.hooks.onRecordCreate.unbind(id)
    logger.error = original
    expect(res.status).toBe(500)
    expect(res.body).toEqual({
      code: 500,
      status: 500,
      message: 'Something went wrong while processing your request.',
      data: {},
    })
    expect(JSON.stringify(res.body)).not.toContain('disk on fire')
    expect(logged.join('\n')).toContain('disk on fire')
  })

  it('rejects wrong superuser credentials with 400 and bad input with field errors', async () => {
    const wrong = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: 'admin@example.com', password: 'nope' },
    })
    expect(wrong.status).toBe(400)
    expect(wrong.body).toEqual({
      code: 400,
      status: 400,
      message: 'Failed to authenticate.',
      data: {},
    })
    const unknown = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: 'ghost@example.com', password: 'whatever1' },
    })
    expect(unknown.body.message).toBe('Failed to authenticate.')
    const blank = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: {},
    })
    expect(blank.body.data.identity.code).toBe('validation_required')
    const notAuth = await t.api('POST', '/api/collections/_logs/auth-with-password', {
      body: { identity: 'a', password: 'b' },
    })
    expect(notAuth.status).toBe(404)
  })
})
