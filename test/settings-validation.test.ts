/**
 * PATCH /api/settings validation of the core groups (meta, smtp, s3, backups, batch,
 * rateLimits, trustedProxy, logs, superuserIPs), of group types, unknown keys and whole bodies:
 * each refused change answers 400 with exactly the listed errors, publishes no settings event
 * and leaves the settings as they were. The feature groups: settings-validation-features.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { itScenarios, type Scenario } from './helpers/scenario.js'
import { startServer, type TestServer } from './helpers/server.js'
import { LOAD_FAILED, nest, refusal, type RefusedCase } from './helpers/settings-fixtures.js'

describe('PATCH /api/settings validation', () => {
  let t: TestServer
  let before: unknown
  const rule = (extra: Record<string, unknown> = {}) => ({
    label: '/api/',
    audience: '',
    duration: 10,
    maxRequests: 5,
    ...extra,
  })

  beforeAll(async () => {
    t = await startServer()
    before = (await t.api('GET', '/api/settings', { token: t.suToken })).body
  })
  afterAll(() => t.close())

  const cases: RefusedCase[] = [
    // meta
    ['meta.appName empty', { meta: { appName: '' } }, { 'meta.appName': 'validation_required' }],
    ['meta.appName blank', { meta: { appName: '   ' } }, { 'meta.appName': 'validation_required' }],
    [
      'meta.appName too long',
      { meta: { appName: 'x'.repeat(256) } },
      { 'meta.appName': 'validation_length_out_of_range' },
    ],
    [
      'meta.appName a number',
      { meta: { appName: 5 } },
      { 'meta.appName': 'validation_invalid_value' },
    ],
    ['meta.appURL empty', { meta: { appURL: '' } }, { 'meta.appURL': 'validation_required' }],
    [
      'meta.appURL not a URL',
      { meta: { appURL: 'not a url' } },
      { 'meta.appURL': 'validation_is_url' },
    ],
    [
      'meta.appURL without a scheme',
      { meta: { appURL: 'files.test' } },
      { 'meta.appURL': 'validation_is_url' },
    ],
    [
      'meta.senderName empty',
      { meta: { senderName: '' } },
      { 'meta.senderName': 'validation_required' },
    ],
    [
      'meta.senderName too long',
      { meta: { senderName: 'n'.repeat(256) } },
      { 'meta.senderName': 'validation_length_out_of_range' },
    ],
    [
      'meta.senderAddress empty',
      { meta: { senderAddress: '' } },
      { 'meta.senderAddress': 'validation_required' },
    ],
    [
      'meta.senderAddress invalid',
      { meta: { senderAddress: 'nope' } },
      { 'meta.senderAddress': 'validation_is_email' },
    ],
    [
      'meta.accentColor short',
      { meta: { accentColor: '#12345' } },
      { 'meta.accentColor': 'validation_length_invalid' },
    ],
    [
      'meta.accentColor a name',
      { meta: { accentColor: 'red' } },
      { 'meta.accentColor': 'validation_length_invalid' },
    ],
    [
      'meta.accentColor not hex',
      { meta: { accentColor: '#12345g' } },
      { 'meta.accentColor': 'validation_is_hex_color' },
    ],
    [
      'meta.hideControls a string',
      { meta: { hideControls: 'yes' } },
      { 'meta.hideControls': 'validation_invalid_value' },
    ],
    // smtp
    [
      'smtp.host required when enabled',
      { smtp: { enabled: true, host: '' } },
      { 'smtp.host': 'validation_required' },
    ],
    [
      'smtp.port required when enabled',
      { smtp: { enabled: true, port: 0 } },
      { 'smtp.port': 'validation_required' },
    ],
    [
      'smtp.port negative',
      { smtp: { port: -1 } },
      { 'smtp.port': 'validation_min_greater_equal_than_required' },
    ],
    ['smtp.port a fraction', { smtp: { port: 25.5 } }, { 'smtp.port': 'validation_invalid_value' }],
    ['smtp.port a string', { smtp: { port: '587' } }, { 'smtp.port': 'validation_invalid_value' }],
    [
      'smtp.authMethod unknown',
      { smtp: { authMethod: 'CRAM-MD5' } },
      { 'smtp.authMethod': 'validation_in_invalid' },
    ],
    [
      'smtp.host not a host',
      { smtp: { host: 'bad host!' } },
      { 'smtp.host': 'validation_is_host' },
    ],
    [
      'smtp.localName not a host',
      { smtp: { localName: 'bad name!' } },
      { 'smtp.localName': 'validation_is_host' },
    ],
    [
      'smtp.enabled a string',
      { smtp: { enabled: 'true' } },
      { 'smtp.enabled': 'validation_invalid_value' },
    ],
    ['smtp.tls a number', { smtp: { tls: 1 } }, { 'smtp.tls': 'validation_invalid_value' }],
    [
      'smtp.password a number',
      { smtp: { password: 1234 } },
      { 'smtp.password': 'validation_invalid_value' },
    ],
    // s3 and backups.s3
    ...(['s3', 'backups.s3'] as const).flatMap((g): [string, unknown, Record<string, string>][] => [
      [
        `${g} required fields when enabled`,
        nest(g, { enabled: true }),
        Object.fromEntries(
          ['bucket', 'region', 'endpoint', 'accessKey', 'secret'].map((k) => [
            `${g}.${k}`,
            'validation_required',
          ]),
        ),
      ],
      [
        `${g}.endpoint not a URL`,
        nest(g, { endpoint: 'nope' }),
        { [`${g}.endpoint`]: 'validation_is_url' },
      ],
      [
        `${g}.forcePathStyle a string`,
        nest(g, { forcePathStyle: 'x' }),
        { [`${g}.forcePathStyle`]: 'validation_invalid_value' },
      ],
      [
        `${g}.secret null`,
        nest(g, { secret: null }),
        { [`${g}.secret`]: 'validation_invalid_value' },
      ],
    ]),
    // backups
    [
      'backups.cron garbage',
      { backups: { cron: 'not a cron' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron out of range',
      { backups: { cron: '61 * * * *' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron four fields',
      { backups: { cron: '* * * *' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron six fields',
      { backups: { cron: '*/5 * * * * *' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cron unknown macro',
      { backups: { cron: '@sometimes' } },
      { 'backups.cron': 'validation_invalid_cron' },
    ],
    [
      'backups.cronMaxKeep 0 with cron',
      { backups: { cron: '0 3 * * *', cronMaxKeep: 0 } },
      { 'backups.cronMaxKeep': 'validation_required' },
    ],
    [
      'backups.cronMaxKeep negative with cron',
      { backups: { cron: '0 3 * * *', cronMaxKeep: -1 } },
      { 'backups.cronMaxKeep': 'validation_min_greater_equal_than_required' },
    ],
    [
      'backups.cronMaxKeep a string',
      { backups: { cronMaxKeep: '3' } },
      { 'backups.cronMaxKeep': 'validation_invalid_value' },
    ],
    ['backups.s3 a string', { backups: { s3: 'x' } }, { 'backups.s3': 'validation_invalid_value' }],
    // batch
    [
      'batch.maxRequests 0 when enabled',
      { batch: { enabled: true, maxRequests: 0 } },
      { 'batch.maxRequests': 'validation_required' },
    ],
    [
      'batch.timeout 0 when enabled',
      { batch: { enabled: true, timeout: 0 } },
      { 'batch.timeout': 'validation_required' },
    ],
    [
      'batch.maxRequests negative',
      { batch: { maxRequests: -1 } },
      { 'batch.maxRequests': 'validation_min_greater_equal_than_required' },
    ],
    [
      'batch.maxBodySize negative',
      { batch: { maxBodySize: -1 } },
      { 'batch.maxBodySize': 'validation_min_greater_equal_than_required' },
    ],
    [
      'batch.timeout a fraction',
      { batch: { timeout: 1.5 } },
      { 'batch.timeout': 'validation_invalid_value' },
    ],
    [
      'batch.timeout a duration string',
      { batch: { timeout: '3s' } },
      { 'batch.timeout': 'validation_invalid_value' },
    ],
    // rateLimits
    [
      'rateLimits.rules required when enabled',
      { rateLimits: { enabled: true, rules: [] } },
      { 'rateLimits.rules': 'validation_required' },
    ],
    [
      'rateLimits rule label empty',
      { rateLimits: { rules: [rule({ label: '' })] } },
      { 'rateLimits.rules.0.label': 'validation_required' },
    ],
    [
      'rateLimits rule label with a space',
      { rateLimits: { rules: [rule({ label: 'bad label' })] } },
      { 'rateLimits.rules.0.label': 'validation_match_invalid' },
    ],
    [
      'rateLimits rule label a lower-case method',
      { rateLimits: { rules: [rule({ label: 'get /api/x' })] } },
      { 'rateLimits.rules.0.label': 'validation_match_invalid' },
    ],
    [
      'rateLimits rule label without a tag',
      { rateLimits: { rules: [rule({ label: 'users:' })] } },
      { 'rateLimits.rules.0.label': 'validation_match_invalid' },
    ],
    [
      'rateLimits rule audience unknown',
      { rateLimits: { rules: [rule({ audience: '@admin' })] } },
      { 'rateLimits.rules.0.audience': 'validation_in_invalid' },
    ],
    [
      'rateLimits rule duration 0',
      { rateLimits: { rules: [rule({ duration: 0 })] } },
      { 'rateLimits.rules.0.duration': 'validation_required' },
    ],
    [
      'rateLimits rule duration negative',
      { rateLimits: { rules: [rule({ duration: -5 })] } },
      { 'rateLimits.rules.0.duration': 'validation_min_greater_equal_than_required' },
    ],
    [
      'rateLimits rule maxRequests 0',
      { rateLimits: { rules: [rule({ maxRequests: 0 })] } },
      { 'rateLimits.rules.0.maxRequests': 'validation_required' },
    ],
    [
      'rateLimits rule maxRequests a string',
      { rateLimits: { rules: [rule({ maxRequests: '5' })] } },
      { 'rateLimits.rules.0.maxRequests': 'validation_invalid_value' },
    ],
    [
      'rateLimits duplicate label and audience',
      { rateLimits: { rules: [rule(), rule({ maxRequests: 9 })] } },
      { 'rateLimits.rules.1.label': 'validation_conflicting_rate_limit_rule' },
    ],
    [
      'rateLimits "" conflicts with @guest',
      { rateLimits: { rules: [rule({ audience: '@guest' }), rule()] } },
      { 'rateLimits.rules.1.label': 'validation_conflicting_rate_limit_rule' },
    ],
    [
      'rateLimits rules not a list',
      { rateLimits: { rules: 'x' } },
      { 'rateLimits.rules': 'validation_invalid_value' },
    ],
    [
      'rateLimits rule not an object',
      { rateLimits: { rules: [5] } },
      { 'rateLimits.rules.0': 'validation_invalid_value' },
    ],
    [
      'rateLimits.excludedIPs item',
      { rateLimits: { excludedIPs: ['10.0.0.1', 'nope', '1.2.3.0/33'] } },
      {
        'rateLimits.excludedIPs.1': 'validation_invlaid_ip_or_subnet',
        'rateLimits.excludedIPs.2': 'validation_invlaid_ip_or_subnet',
      },
    ],
    [
      'rateLimits.excludedIPs not a list',
      { rateLimits: { excludedIPs: '10.0.0.1' } },
      { 'rateLimits.excludedIPs': 'validation_invalid_value' },
    ],
    [
      'rateLimits.enabled a string',
      { rateLimits: { enabled: 'on' } },
      { 'rateLimits.enabled': 'validation_invalid_value' },
    ],
    // trustedProxy
    [
      'trustedProxy.headers not a list',
      { trustedProxy: { headers: 'X-Real-IP' } },
      { 'trustedProxy.headers': 'validation_invalid_value' },
    ],
    [
      'trustedProxy header with a space',
      { trustedProxy: { headers: ['X Real IP'] } },
      { 'trustedProxy.headers.0': 'validation_match_invalid' },
    ],
    [
      'trustedProxy header a number',
      { trustedProxy: { headers: [5] } },
      { 'trustedProxy.headers.0': 'validation_invalid_value' },
    ],
    [
      'trustedProxy.useLeftmostIP a string',
      { trustedProxy: { useLeftmostIP: 'no' } },
      { 'trustedProxy.useLeftmostIP': 'validation_invalid_value' },
    ],
    // logs
    [
      'logs.maxDays negative',
      { logs: { maxDays: -1 } },
      { 'logs.maxDays': 'validation_min_greater_equal_than_required' },
    ],
    [
      'logs.minLevel a fraction',
      { logs: { minLevel: 1.5 } },
      { 'logs.minLevel': 'validation_invalid_value' },
    ],
    ['logs.logIP a string', { logs: { logIP: 'x' } }, { 'logs.logIP': 'validation_invalid_value' }],
    [
      'logs.logAuthId a number',
      { logs: { logAuthId: 1 } },
      { 'logs.logAuthId': 'validation_invalid_value' },
    ],
    [
      'logs.maxDataSize negative',
      { logs: { maxDataSize: -1 } },
      { 'logs.maxDataSize': 'validation_min_greater_equal_than_required' },
    ],
    // superuserIPs
    [
      'superuserIPs item',
      { superuserIPs: ['127.0.0.1', 'nope'] },
      { 'superuserIPs.1': 'validation_invlaid_ip_or_subnet' },
    ],
    [
      'superuserIPs not a list',
      { superuserIPs: '127.0.0.1' },
      { superuserIPs: 'validation_invalid_value' },
    ],
    ['superuserIPs null', { superuserIPs: null }, { superuserIPs: 'validation_invalid_value' }],
    // wrong group types
    ['meta a string', { meta: 'x' }, { meta: 'validation_invalid_value' }],
    ['push a list', { push: [] }, { push: 'validation_invalid_value' }],
    ['push.vapid null', { push: { vapid: null } }, { 'push.vapid': 'validation_invalid_value' }],
    ['logs a number', { logs: 5 }, { logs: 'validation_invalid_value' }],
    // unknown keys
    [
      'an unknown nested key',
      { meta: { appName: 'ok', colour: '#fff' } },
      { 'meta.colour': 'validation_unknown_field' },
    ],
    [
      'an unknown key in a rule',
      { rateLimits: { rules: [rule({ extra: 1 })] } },
      { 'rateLimits.rules.0.extra': 'validation_unknown_field' },
    ],
    // several groups at once
    [
      'errors of several groups together',
      { meta: { appName: '' }, smtp: { port: 0, enabled: true }, logs: { maxDays: -2 } },
      {
        'meta.appName': 'validation_required',
        'smtp.port': 'validation_required',
        'logs.maxDays': 'validation_min_greater_equal_than_required',
      },
    ],
  ]
  itScenarios(() => t, cases.map(refusal))

  it('checks the merged result, not only the patch', async () => {
    const first = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { smtp: { host: '' } },
    })
    expect(first.status, JSON.stringify(first.body)).toBe(200)
    const enable = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { smtp: { enabled: true } },
    })
    expect(enable.status).toBe(400)
    expect(enable.body.data).toEqual({
      smtp: { host: { code: 'validation_required', message: 'Cannot be blank.' } },
    })
    const restore = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { smtp: { host: 'smtp.example.com' } },
    })
    expect(restore.status).toBe(200)
  })

  const raw = (name: string, body: string): Scenario => ({
    name,
    method: 'PATCH',
    url: '/api/settings',
    token: 'superuser',
    headers: { 'content-type': 'application/json' },
    raw: body,
    expectedStatus: 400,
    expectedEvents: { 'bus:settings': 0, '*': 0 },
  })
  itScenarios(
    () => t,
    [
      {
        ...raw(
          'refuses a __proto__ key without touching anything',
          '{"__proto__": {"polluted": true}, "meta": {"__proto__": {"x": 1}}}',
        ),
        expect(res) {
          // A top-level key of no group is ignored, as PocketBase does; a nested one is refused.
          expect(Object.hasOwn(res.body.data, '__proto__')).toBe(false)
          expect(res.body.data.meta.__proto__.code).toBe('validation_unknown_field')
          expect(({} as Record<string, unknown>).polluted).toBeUndefined()
        },
      },
      ...[
        ['a list', '[1, 2]'],
        ['a string', '"meta"'],
        ['a number', '5'],
        ['null', 'null'],
        ['true', 'true'],
      ].map(([name, body]) => ({
        ...raw(`refuses a body that is ${name}`, body!),
        expect: (res: { body: unknown }) =>
          expect(res.body).toEqual({ code: 400, status: 400, message: LOAD_FAILED, data: {} }),
      })),
    ],
  )

  it('left the settings untouched through every refused change', async () => {
    const now = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(now.body).toEqual(before)
  })
})
