/**
 * Settings, their test endpoints and the router answered as PocketBase 0.40.4 answers them
 * (issue 34, the differential corpus's `admin` group): what PocketBase accepts and svcbase now
 * accepts too, its error codes and words, a `null` group, an unclean path's 307, an OPTIONS
 * request without an Origin. On SQLite and on PostgreSQL (`SVC_TEST_PG_URL`).
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

/** A request with its path sent as written (fetch resolves `..` segments itself). */
function rawRequest(
  base: string,
  method: string,
  path: string,
): Promise<{ status: number; location: string | undefined; body: string }> {
  const { hostname, port } = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => (body += c))
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, location: res.headers.location, body }),
      )
    })
    req.on('error', reject)
    req.end()
  })
}

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('settings as PocketBase answers them, on %s', (_engine, pg) => {
  let t: TestServer
  const patch = (body: unknown) => t.api('PATCH', '/api/settings', { token: t.suToken, body })

  beforeAll(async () => {
    t = await startOn(pg)
  })
  afterAll(() => t.close())

  it('accepts what PocketBase accepts', async () => {
    const res = await patch({
      meta: { appURL: 'ftp://example.org' },
      smtp: { port: 70000 },
      trustedProxy: { headers: [''] },
      rateLimits: {
        rules: [
          { label: 'GET /api/health', duration: 1, maxRequests: 100 },
          { label: 'users:auth', audience: '@guest', duration: 3, maxRequests: 2 },
        ],
      },
      nope: 1,
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.meta.appURL).toBe('ftp://example.org')
    expect(res.body.smtp.port).toBe(70000)
    expect(res.body.trustedProxy.headers).toEqual([''])
    // A rule without an audience is for everyone.
    expect(res.body.rateLimits.rules[0]).toEqual({
      label: 'GET /api/health',
      audience: '',
      duration: 1,
      maxRequests: 100,
    })
    expect(res.body).not.toHaveProperty('nope')
    const again = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(again.body).not.toHaveProperty('nope')
    // The proxy header that is blank is skipped: the client IP is the peer's.
    const health = await t.api('GET', '/api/health', { token: t.suToken })
    expect(health.body.data.realIP).toBe('127.0.0.1')
    // A form body changes nothing.
    const form = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      raw: 'meta=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(form.status).toBe(200)
    expect(form.body.meta.appURL).toBe('ftp://example.org')
    const reset = await patch({
      meta: { appURL: 'http://127.0.0.1:8090' },
      smtp: { port: 587 },
      trustedProxy: { headers: [] },
      rateLimits: { rules: [] },
    })
    expect(reset.status).toBe(200)
  })

  it('refuses as PocketBase words it', async () => {
    const cases: Array<[unknown, Record<string, unknown>]> = [
      [
        { meta: { accentColor: 'red' } },
        {
          meta: {
            accentColor: {
              code: 'validation_length_invalid',
              message: 'The length must be exactly 7.',
              params: { min: 7, max: 7 },
            },
          },
        },
      ],
      [
        { meta: { accentColor: '#12345g' } },
        {
          meta: {
            accentColor: {
              code: 'validation_is_hex_color',
              message: 'Must be a valid hexadecimal color code.',
            },
          },
        },
      ],
      [
        { meta: { appURL: 'notaurl' } },
        { meta: { appURL: { code: 'validation_is_url', message: 'Must be a valid URL.' } } },
      ],
      [
        { meta: { appURL: 'javascript:alert(1)' } },
        { meta: { appURL: { code: 'validation_is_url', message: 'Must be a valid URL.' } } },
      ],
      [
        { smtp: { enabled: true, port: -1 } },
        {
          smtp: {
            port: {
              code: 'validation_min_greater_equal_than_required',
              message: 'Must be no less than 0.',
              params: { threshold: 0 },
            },
          },
        },
      ],
      [
        { rateLimits: { rules: [{ label: 'bad label!', duration: 1, maxRequests: 1 }] } },
        {
          rateLimits: {
            rules: {
              '0': {
                label: { code: 'validation_match_invalid', message: 'Must be in a valid format.' },
              },
            },
          },
        },
      ],
      [
        {
          rateLimits: {
            rules: [
              { label: '/api/x', duration: 1, maxRequests: 1 },
              { label: '/api/x', duration: 2, maxRequests: 2 },
            ],
          },
        },
        {
          rateLimits: {
            rules: {
              '1': {
                label: {
                  code: 'validation_conflicting_rate_limit_rule',
                  message:
                    'Rate limit rule configuration with label /api/x already exists or conflicts with another rule.',
                  params: { label: '/api/x' },
                },
              },
            },
          },
        },
      ],
      [
        { backups: { cron: 'bad cron' } },
        {
          backups: {
            cron: {
              code: 'validation_invalid_cron',
              message:
                'Invalid cron expression - must be a valid macro or to have exactly 5 space separated segments.',
            },
          },
        },
      ],
      [
        { backups: { cron: '61 * * * *' } },
        {
          backups: {
            cron: {
              code: 'validation_invalid_cron',
              message: 'Invalid segment value - must be between the min and max of the segment.',
            },
          },
        },
      ],
      // A group sent as null: its zero value's errors (PocketBase would then store it).
      [
        { meta: null },
        {
          meta: Object.fromEntries(
            ['appName', 'appURL', 'senderName', 'senderAddress'].map((k) => [
              k,
              { code: 'validation_required', message: 'Cannot be blank.' },
            ]),
          ),
        },
      ],
    ]
    for (const [body, data] of cases) {
      const res = await patch(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.message).toBe('An error occurred while saving the new settings.')
      expect(res.body.data, JSON.stringify(body)).toEqual(data)
    }
    // A group whose zero value would pass is never wiped by null.
    const smtp = await patch({ smtp: null })
    expect(smtp.status).toBe(400)
    expect(smtp.body.data.smtp.code).toBe('validation_invalid_value')
  })

  it('words the S3 and e-mail tests as PocketBase', async () => {
    for (const filesystem of ['storage', 'backups']) {
      const res = await t.api('POST', '/api/settings/test/s3', {
        token: t.suToken,
        body: { filesystem },
      })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe(
        'Failed to test the S3 filesystem. Raw error: \nS3 storage filesystem is not enabled.',
      )
    }
    const mail = await t.api('POST', '/api/settings/test/email', {
      token: t.suToken,
      body: { email: 'a@example.com', template: 'verification', collection: 'nope' },
    })
    expect(mail.body.data).toEqual({
      collection: {
        code: 'validation_invalid_auth_collection',
        message: 'Must be a valid auth collection id or name.',
      },
    })
  })

  it('redirects an unclean path (307) and answers OPTIONS without an Origin (204)', async () => {
    const get = await rawRequest(t.url, 'GET', '/api//health?x=1')
    expect(get.status).toBe(307)
    expect(get.location).toBe('/api/health?x=1')
    expect(get.body).toBe('<a href="/api/health?x=1">Temporary Redirect</a>.\n\n')
    const post = await rawRequest(t.url, 'POST', '/api/x/../health')
    expect(post.status).toBe(307)
    expect(post.location).toBe('/api/health')
    expect(post.body).toBe('')
    // An encoded slash is no slash: no redirect.
    expect((await rawRequest(t.url, 'GET', '/api/health%2F%2F')).status).toBe(404)
    const options = await fetch(`${t.url}/api/health`, { method: 'OPTIONS' })
    expect(options.status).toBe(204)
  })
})
