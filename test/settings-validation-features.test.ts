/**
 * PATCH /api/settings validation of the feature groups (llm, sms, push: vapid, fcm, apns and
 * triggers, payments), with real keys: each refused change answers 400 with exactly the listed
 * errors, publishes no settings event and leaves the settings as they were.
 */
import { createECDH } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { itScenarios } from './helpers/scenario.js'
import { startServer, type TestServer } from './helpers/server.js'
import { ecPem, refusal, rsaPem, vapidPair, type RefusedCase } from './helpers/settings-fixtures.js'

describe('PATCH /api/settings validation of the feature groups', () => {
  let t: TestServer
  let before: unknown
  const pair = vapidPair()
  const other = vapidPair()
  const compressed = (() => {
    const e = createECDH('prime256v1')
    e.generateKeys()
    return e.getPublicKey(null, 'compressed').toString('base64url')
  })()
  const offCurve = (() => {
    const raw = Buffer.from(pair.publicKey, 'base64url')
    raw[64] = raw[64]! ^ 1
    return raw.toString('base64url')
  })()
  const trigger = (extra: Record<string, unknown> = {}) => ({
    enabled: true,
    collection: 'users',
    events: 'create',
    title: 't',
    body: 'b',
    targetField: '',
    ...extra,
  })

  beforeAll(async () => {
    t = await startServer()
    before = (await t.api('GET', '/api/settings', { token: t.suToken })).body
  })
  afterAll(() => t.close())

  const cases: RefusedCase[] = [
    // llm
    [
      'llm required fields when enabled',
      { llm: { enabled: true, baseUrl: '', model: '' } },
      { 'llm.baseUrl': 'validation_required', 'llm.model': 'validation_required' },
    ],
    [
      'llm.baseUrl not a URL',
      { llm: { baseUrl: 'api.openai.com' } },
      { 'llm.baseUrl': 'validation_is_url' },
    ],
    ['llm.apiKey a number', { llm: { apiKey: 5 } }, { 'llm.apiKey': 'validation_invalid_value' }],
    [
      'llm.provider null',
      { llm: { provider: null } },
      { 'llm.provider': 'validation_invalid_value' },
    ],
    // sms
    [
      'sms required fields when enabled',
      { sms: { enabled: true } },
      {
        'sms.accountSid': 'validation_required',
        'sms.authToken': 'validation_required',
        'sms.fromNumber': 'validation_required',
      },
    ],
    [
      'sms.fromNumber without +',
      { sms: { fromNumber: '14155550100' } },
      { 'sms.fromNumber': 'validation_match_invalid' },
    ],
    [
      'sms.fromNumber with a leading 0',
      { sms: { fromNumber: '+0123456' } },
      { 'sms.fromNumber': 'validation_match_invalid' },
    ],
    [
      'sms.fromNumber too long',
      { sms: { fromNumber: '+1234567890123456' } },
      { 'sms.fromNumber': 'validation_match_invalid' },
    ],
    // push.vapid
    [
      'push.vapid required fields when enabled',
      { push: { vapid: { enabled: true } } },
      {
        'push.vapid.publicKey': 'validation_required',
        'push.vapid.privateKey': 'validation_required',
        'push.vapid.subject': 'validation_required',
      },
    ],
    [
      'push.vapid.publicKey garbage',
      { push: { vapid: { publicKey: 'abc' } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey padded',
      {
        push: { vapid: { publicKey: Buffer.from(pair.publicKey, 'base64url').toString('base64') } },
      },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey compressed',
      { push: { vapid: { publicKey: compressed } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey off the curve',
      { push: { vapid: { publicKey: offCurve } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.publicKey a PEM',
      { push: { vapid: { publicKey: ecPem() } } },
      { 'push.vapid.publicKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.privateKey 31 bytes',
      { push: { vapid: { privateKey: Buffer.alloc(31, 1).toString('base64url') } } },
      { 'push.vapid.privateKey': 'validation_invalid_vapid_key' },
    ],
    [
      'push.vapid.privateKey of another pair',
      { push: { vapid: { publicKey: pair.publicKey, privateKey: other.privateKey } } },
      { 'push.vapid.privateKey': 'validation_vapid_key_mismatch' },
    ],
    [
      'push.vapid.subject http',
      { push: { vapid: { subject: 'http://example.com' } } },
      { 'push.vapid.subject': 'validation_match_invalid' },
    ],
    [
      'push.vapid.subject bad mailto',
      { push: { vapid: { subject: 'mailto:nobody' } } },
      { 'push.vapid.subject': 'validation_match_invalid' },
    ],
    // push.fcm
    [
      'push.fcm.serviceAccountJson required when enabled',
      { push: { fcm: { enabled: true } } },
      { 'push.fcm.serviceAccountJson': 'validation_required' },
    ],
    [
      'push.fcm.serviceAccountJson not JSON',
      { push: { fcm: { serviceAccountJson: '{' } } },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_json' },
    ],
    [
      'push.fcm.serviceAccountJson missing keys',
      { push: { fcm: { serviceAccountJson: '{"project_id":"p"}' } } },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_service_account' },
    ],
    [
      'push.fcm.serviceAccountJson bad private_key',
      {
        push: {
          fcm: {
            serviceAccountJson: JSON.stringify({
              project_id: 'p',
              client_email: 'a@b.co',
              private_key: 'nope',
            }),
          },
        },
      },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_service_account' },
    ],
    [
      'push.fcm.serviceAccountJson an object',
      { push: { fcm: { serviceAccountJson: { project_id: 'p' } } } },
      { 'push.fcm.serviceAccountJson': 'validation_invalid_value' },
    ],
    // push.apns
    [
      'push.apns required fields when enabled',
      { push: { apns: { enabled: true } } },
      {
        'push.apns.key': 'validation_required',
        'push.apns.keyId': 'validation_required',
        'push.apns.teamId': 'validation_required',
        'push.apns.bundleId': 'validation_required',
      },
    ],
    [
      'push.apns.key not a PEM',
      { push: { apns: { key: 'nope' } } },
      { 'push.apns.key': 'validation_invalid_key' },
    ],
    [
      'push.apns.key an RSA key',
      { push: { apns: { key: rsaPem() } } },
      { 'push.apns.key': 'validation_invalid_key' },
    ],
    [
      'push.apns.keyId too short',
      { push: { apns: { keyId: 'ABC' } } },
      { 'push.apns.keyId': 'validation_length_invalid' },
    ],
    [
      'push.apns.teamId bad characters',
      { push: { apns: { teamId: 'ABCDE!GHIJ' } } },
      { 'push.apns.teamId': 'validation_match_invalid' },
    ],
    [
      'push.apns.bundleId with a space',
      { push: { apns: { bundleId: 'com.example app' } } },
      { 'push.apns.bundleId': 'validation_match_invalid' },
    ],
    [
      'push.apns.production a string',
      { push: { apns: { production: 'yes' } } },
      { 'push.apns.production': 'validation_invalid_value' },
    ],
    // push.triggers
    [
      'push.triggers not a list',
      { push: { triggers: {} } },
      { 'push.triggers': 'validation_invalid_value' },
    ],
    [
      'push trigger not an object',
      { push: { triggers: ['x'] } },
      { 'push.triggers.0': 'validation_invalid_value' },
    ],
    [
      'push trigger unknown collection',
      { push: { triggers: [trigger(), trigger({ collection: 'nope' })] } },
      { 'push.triggers.1.collection': 'validation_missing_collection' },
    ],
    [
      'push trigger collection empty',
      { push: { triggers: [trigger({ collection: '' })] } },
      { 'push.triggers.0.collection': 'validation_required' },
    ],
    [
      'push trigger events empty',
      { push: { triggers: [trigger({ events: '' })] } },
      { 'push.triggers.0.events': 'validation_required' },
    ],
    [
      'push trigger events unknown',
      { push: { triggers: [trigger({ events: 'create,drop' })] } },
      { 'push.triggers.0.events': 'validation_in_invalid' },
    ],
    [
      'push trigger events repeated',
      { push: { triggers: [trigger({ events: 'create,create' })] } },
      { 'push.triggers.0.events': 'validation_in_invalid' },
    ],
    [
      'push trigger events a list',
      { push: { triggers: [trigger({ events: ['create'] })] } },
      { 'push.triggers.0.events': 'validation_invalid_value' },
    ],
    [
      'push trigger title a number',
      { push: { triggers: [trigger({ title: 5 })] } },
      { 'push.triggers.0.title': 'validation_invalid_value' },
    ],
    [
      'push trigger body null',
      { push: { triggers: [trigger({ body: null })] } },
      { 'push.triggers.0.body': 'validation_invalid_value' },
    ],
    [
      'push trigger targetField a number',
      { push: { triggers: [trigger({ targetField: 1 })] } },
      { 'push.triggers.0.targetField': 'validation_invalid_value' },
    ],
    [
      'push trigger enabled a string',
      { push: { triggers: [trigger({ enabled: 'yes' })] } },
      { 'push.triggers.0.enabled': 'validation_invalid_value' },
    ],
    // payments
    [
      'payments.webhookSecret a number',
      { payments: { webhookSecret: 5 } },
      { 'payments.webhookSecret': 'validation_invalid_value' },
    ],
    // unknown keys
    [
      'an unknown key in a trigger',
      { push: { triggers: [trigger({ icon: 'x' })] } },
      { 'push.triggers.0.icon': 'validation_unknown_field' },
    ],
  ]
  itScenarios(() => t, cases.map(refusal))

  it('left the settings untouched through every refused change', async () => {
    const now = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(now.body).toEqual(before)
  })
})
