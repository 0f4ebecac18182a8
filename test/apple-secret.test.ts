import { generateKeyPairSync } from 'node:crypto'
import { decodeProtectedHeader, importSPKI, jwtVerify } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

const URL = '/api/settings/apple/generate-client-secret'

/** A fresh EC key pair as PEM: PKCS#8 private (as Apple's .p8), SPKI public. */
function ecPair(namedCurve = 'P-256') {
  return generateKeyPairSync('ec', {
    namedCurve,
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  })
}

describe('POST /api/settings/apple/generate-client-secret', () => {
  let t: TestServer
  let userToken: string
  const pair = ecPair()
  const valid = {
    clientId: 'com.example.app.signin',
    teamId: 'ABCDE12345',
    keyId: 'KEY1234567',
    privateKey: pair.privateKey,
    duration: 3600,
  }

  beforeAll(async () => {
    t = await startServer()
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(async () => {
    await t.close()
  })

  it('is for superusers only', async () => {
    expect((await t.api('POST', URL, { body: valid })).status).toBe(401)
    const user = await t.api('POST', URL, { token: userToken, body: valid })
    expect(user.status).toBe(403)
  })

  it('signs an ES256 client secret that verifies with the public key', async () => {
    const before = Math.floor(Date.now() / 1000)
    const res = await t.api('POST', URL, { token: t.suToken, body: valid })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(Object.keys(res.body)).toEqual(['secret'])
    const secret = res.body.secret as string
    expect(decodeProtectedHeader(secret)).toMatchObject({ alg: 'ES256', kid: 'KEY1234567' })
    const { payload } = await jwtVerify(secret, await importSPKI(pair.publicKey, 'ES256'), {
      issuer: 'ABCDE12345',
      subject: 'com.example.app.signin',
      audience: 'https://appleid.apple.com',
      algorithms: ['ES256'],
    })
    expect(payload.iat).toBeGreaterThanOrEqual(before)
    expect(payload.iat).toBeLessThanOrEqual(Math.floor(Date.now() / 1000))
    expect(payload.exp! - payload.iat!).toBe(3600)
    expect(payload.aud).toBe('https://appleid.apple.com')

    const other = ecPair()
    await expect(jwtVerify(secret, await importSPKI(other.publicKey, 'ES256'))).rejects.toThrow()
  })

  it('accepts the longest duration and a SEC1 key', async () => {
    const sec1 = generateKeyPairSync('ec', {
      namedCurve: 'P-256',
      publicKeyEncoding: { type: 'spki', format: 'pem' },
      privateKeyEncoding: { type: 'sec1', format: 'pem' },
    })
    const res = await t.api('POST', URL, {
      token: t.suToken,
      body: { ...valid, privateKey: sec1.privateKey, duration: 15777000 },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const { payload } = await jwtVerify(res.body.secret, await importSPKI(sec1.publicKey, 'ES256'))
    expect(payload.exp! - payload.iat!).toBe(15777000)
  })

  it('reports every missing field', async () => {
    const res = await t.api('POST', URL, { token: t.suToken, body: {} })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Invalid client secret data.')
    expect(Object.keys(res.body.data).sort()).toEqual([
      'clientId',
      'duration',
      'keyId',
      'privateKey',
      'teamId',
    ])
    for (const e of Object.values(res.body.data))
      expect(e).toMatchObject({ code: 'validation_required' })
  })

  it.each([
    ['teamId', 'SHORT', 'validation_length_invalid'],
    ['teamId', 'ELEVENCHARS', 'validation_length_invalid'],
    ['keyId', 'K', 'validation_length_invalid'],
    ['clientId', 42, 'validation_unsupported_value_type'],
    ['duration', 0, 'validation_required'],
    ['duration', -5, 'validation_min_greater_equal_than_required'],
    ['duration', 15777001, 'validation_max_less_equal_than_required'],
    ['duration', 1.5, 'validation_only_int_constraint'],
    ['duration', '3600', 'validation_unsupported_value_type'],
  ])('rejects %s = %j with %s', async (field, value, code) => {
    const res = await t.api('POST', URL, { token: t.suToken, body: { ...valid, [field]: value } })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Invalid client secret data.')
    expect(Object.keys(res.body.data)).toEqual([field])
    expect(res.body.data[field].code).toBe(code)
  })

  it('gives the exact-length message for teamId', async () => {
    const res = await t.api('POST', URL, { token: t.suToken, body: { ...valid, teamId: 'X' } })
    expect(res.body.data.teamId).toEqual({
      code: 'validation_length_invalid',
      message: 'The length must be exactly 10.',
      params: { min: 10, max: 10 },
    })
  })

  it.each([
    ['not a PEM', 'definitely not a key'],
    ['a public key', pair.publicKey],
  ])(
    'refuses %s at data.privateKey, as PocketBase checks the PEM frame',
    async (_l, privateKey) => {
      const res = await t.api('POST', URL, { token: t.suToken, body: { ...valid, privateKey } })
      expect(res.status).toBe(400)
      expect(res.body.message).toBe('Invalid client secret data.')
      expect(res.body.data).toEqual({
        privateKey: { code: 'validation_match_invalid', message: 'Must be in a valid format.' },
      })
    },
  )

  it.each([
    ['a PEM frame around junk', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n'],
    [
      'an RSA key',
      generateKeyPairSync('rsa', {
        modulusLength: 2048,
        privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
        publicKeyEncoding: { type: 'spki', format: 'pem' },
      }).privateKey,
    ],
    ['a P-384 key', ecPair('P-384').privateKey],
  ])('answers 400 with the raw error for %s', async (_label, privateKey) => {
    const res = await t.api('POST', URL, { token: t.suToken, body: { ...valid, privateKey } })
    expect(res.status).toBe(400)
    expect(res.body.message).toMatch(/^Failed to generate client secret\. Raw error: \n.+/s)
    expect(res.body.data).toEqual({})
  })
})
