import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const tokenIn = (html: string) =>
  /\/(?:confirm-verification|confirm-password-reset|confirm-email-change)\/([\w.-]+)/.exec(
    html,
  )?.[1] ?? ''

describe('auth flows end to end through a real SMTP listener', () => {
  let t: TestServer
  let smtp: TestSmtp
  let su: string
  const signIn = (
    identity: string,
    password: string,
    collection = 'users',
    headers?: Record<string, string>,
  ) =>
    t.api('POST', `/api/collections/${collection}/auth-with-password`, {
      body: { identity, password },
      headers,
    })
  const createUser = async (
    email: string,
    password = 'password123',
    extra: Record<string, unknown> = {},
  ) => {
    const res = await t.api('POST', '/api/collections/users/records', {
      body: { email, password, passwordConfirm: password, ...extra },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.id as string
  }

  beforeAll(async () => {
    t = await startServer()
    su = t.suToken
    smtp = await startSmtp()
    const res = await t.api('PATCH', '/api/settings', {
      token: su,
      body: {
        meta: { appName: 'TestApp', appURL: 'http://app.test' },
        smtp: { enabled: true, host: smtp.host, port: smtp.port },
      },
    })
    expect(res.status).toBe(200)
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  it('lists auth methods', async () => {
    const res = await t.api('GET', '/api/collections/users/auth-methods')
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({
      password: { enabled: true, identityFields: ['email'] },
      otp: { enabled: false, duration: 0 },
      mfa: { enabled: false },
      oauth2: { enabled: false },
    })
    // PocketBase 0.40.4 answers [] (not null) when OAuth2 is off.
    expect(res.body.authProviders).toEqual([])
    expect((await t.api('GET', '/api/collections/_logs/auth-methods')).status).toBe(404)
  })

  it('signs in with password and refreshes; wrong passwords and disabled password auth fail', async () => {
    await createUser('pw@example.com')
    // As PocketBase 0.40.4: the email is compared as written, unless the collection's unique
    // email index has COLLATE NOCASE (test/auth-email-case.test.ts).
    expect((await signIn('PW@example.com', 'password123')).status).toBe(400)
    const ok = await signIn('pw@example.com', 'password123')
    expect(ok.status).toBe(200)
    expect(ok.body.record.email).toBe('pw@example.com')
    expect(ok.body.record.password).toBeUndefined()
    expect(ok.body.record.tokenKey).toBeUndefined()
    const refreshed = await t.api('POST', '/api/collections/users/auth-refresh', {
      token: ok.body.token,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.record.id).toBe(ok.body.record.id)
    expect((await t.api('POST', '/api/collections/users/auth-refresh')).status).toBe(401)
    expect(
      (await t.api('POST', '/api/collections/_superusers/auth-refresh', { token: ok.body.token }))
        .status,
    ).toBe(403)
    expect((await signIn('pw@example.com', 'wrong-password')).body).toEqual({
      code: 400,
      status: 400,
      message: 'Failed to authenticate.',
      data: {},
    })
    await t.api('PATCH', '/api/collections/users', {
      token: su,
      body: { authOptions: { passwordAuth: { enabled: false } } },
    })
    const disabled = await signIn('pw@example.com', 'password123')
    expect(disabled.status).toBe(403)
    expect(disabled.body.message).toBe(
      'The collection is not configured to allow password authentication.',
    )
    await t.api('PATCH', '/api/collections/users', {
      token: su,
      body: { authOptions: { passwordAuth: { enabled: true } } },
    })
  })

  it('auth-refresh and request-email-change check the collection, the token, then the token’s collection, as PocketBase', async () => {
    await createUser('refresh-order@example.com')
    const user = (await signIn('refresh-order@example.com', 'password123')).body.token as string
    await t.api('POST', '/api/collections', {
      token: su,
      body: { name: 'refresh_base', type: 'base', fields: [{ name: 'n', type: 'number' }] },
    })
    const refresh = (collection: string, token?: string) =>
      t.api('POST', `/api/collections/${collection}/auth-refresh`, { token: token ?? null })
    const cases: Array<[string, string | undefined, number, string]> = [
      ['nope', user, 404, 'Missing or invalid collection context.'],
      ['refresh_base', undefined, 401, 'The request requires valid record authorization token.'],
      ['refresh_base', user, 403, 'The request requires auth record from users collection.'],
      ['users', su, 403, 'The request requires auth record from _superusers collection.'],
      ['_superusers', user, 403, 'The request requires auth record from users collection.'],
    ]
    const emailChange = (collection: string, token?: string) =>
      t.api('POST', `/api/collections/${collection}/request-email-change`, {
        token: token ?? null,
        body: { newEmail: 'moved@example.com' },
      })
    for (const [collection, token, status, message] of cases) {
      for (const call of [refresh, emailChange]) {
        const res = await call(collection, token)
        expect([res.status, res.body.message], collection).toEqual([status, message])
      }
    }
    expect((await refresh('users', user)).status).toBe(200)
  })

  it('signs in by another identity field', async () => {
    const col = await t.api('GET', '/api/collections/users', { token: su })
    const res = await t.api('PATCH', '/api/collections/users', {
      token: su,
      body: {
        schema: [...col.body.schema, { name: 'username', type: 'text', unique: true }],
        authOptions: { passwordAuth: { identityFields: ['email', 'username'] } },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    await createUser('named@example.com', 'password123', { username: 'nemo' })
    expect((await signIn('nemo', 'password123')).status).toBe(200)
    const field = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'nemo', password: 'password123', identityField: 'email' },
    })
    expect(field.status).toBe(400)
    const bad = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'nemo', password: 'password123', identityField: 'name' },
    })
    expect(bad.body.data.identityField.code).toBe('validation_in_invalid')
  })

  it('verifies an email with the mailed token; rejects foreign and expired tokens', async () => {
    const id = await createUser('verify@example.com')
    expect(
      (
        await t.api('POST', '/api/collections/users/request-verification', {
          body: { email: 'verify@example.com' },
        })
      ).status,
    ).toBe(204)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('verify@example.com') && /Verify/.test(m.subject),
    )
    expect(mail.subject).toBe('Verify your TestApp email')
    expect(mail.html).toContain('http://app.test/_/#/auth/confirm-verification/')
    const token = tokenIn(mail.html)
    expect(token).not.toBe('')
    const foreign = await t.api('POST', '/api/collections/_superusers/confirm-verification', {
      body: { token },
    })
    expect(foreign.body.message).toBe('All superusers are verified by default.')
    await t.api('POST', '/api/collections', { token: su, body: { name: 'others', type: 'auth' } })
    const mismatch = await t.api('POST', '/api/collections/others/confirm-verification', {
      body: { token },
    })
    expect(mismatch.body.data.token.code).toBe('validation_token_collection_mismatch')
    const tampered = await t.api('POST', '/api/collections/users/confirm-verification', {
      body: { token: token.slice(0, -2) + 'xx' },
    })
    expect(tampered.body.data.token.code).toBe('validation_invalid_token')
    // An expired token signed with the real key is refused too.
    const users = t.server.app.collections.get('users')
    const record = await t.server.app.records.findById(users, id)
    const key = new TextEncoder().encode(
      String(record!.tokenKey) + users.authOptions!.verificationToken.secret,
    )
    const expired = await new SignJWT({
      type: 'verification',
      id,
      collectionId: users.id,
      email: 'verify@example.com',
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
      .sign(key)
    expect(
      (
        await t.api('POST', '/api/collections/users/confirm-verification', {
          body: { token: expired },
        })
      ).body.data.token.code,
    ).toBe('validation_invalid_token')
    expect(
      (await t.api('POST', '/api/collections/users/confirm-verification', { body: { token } }))
        .status,
    ).toBe(204)
    const login = await signIn('verify@example.com', 'password123')
    expect(login.body.record.verified).toBe(true)
    // Unknown and already verified emails still answer 204 and send nothing.
    const before = smtp.mails.length
    expect(
      (
        await t.api('POST', '/api/collections/users/request-verification', {
          body: { email: 'nobody@example.com' },
        })
      ).status,
    ).toBe(204)
    expect(
      (
        await t.api('POST', '/api/collections/users/request-verification', {
          body: { email: 'verify@example.com' },
        })
      ).status,
    ).toBe(204)
    await new Promise((r) => setTimeout(r, 200))
    expect(smtp.mails.length).toBe(before)
    const invalid = await t.api('POST', '/api/collections/users/request-verification', {
      body: { email: 'nope' },
    })
    expect(invalid.body.data.email.code).toBe('validation_is_email')
  })

  it('resets a password with the mailed token, invalidating old tokens', async () => {
    await createUser('reset@example.com', 'oldpassword1')
    const old = await signIn('reset@example.com', 'oldpassword1')
    // Used once, so the server has it cached as verified: the reset must still revoke it.
    expect(
      (await t.api('POST', '/api/collections/users/auth-refresh', { token: old.body.token }))
        .status,
    ).toBe(200)
    expect(
      (
        await t.api('POST', '/api/collections/users/request-password-reset', {
          body: { email: 'reset@example.com' },
        })
      ).status,
    ).toBe(204)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('reset@example.com') && /Reset/.test(m.subject),
    )
    const token = tokenIn(mail.html)
    const mismatch = await t.api('POST', '/api/collections/users/confirm-password-reset', {
      body: { token, password: 'newpassword1', passwordConfirm: 'other' },
    })
    expect(mismatch.body.data.passwordConfirm.code).toBe('validation_values_mismatch')
    // The form checks the length against the password field's min (8) and 255, as PocketBase…
    const short = await t.api('POST', '/api/collections/users/confirm-password-reset', {
      body: { token, password: 'short', passwordConfirm: 'short' },
    })
    expect(short.status).toBe(400)
    expect(short.body.message).toBe('An error occurred while validating the submitted data.')
    expect(short.body.data).toEqual({
      password: {
        code: 'validation_length_out_of_range',
        message: 'The length must be between 8 and 255.',
        params: { min: 8, max: 255 },
      },
    })
    // …then the field's own validators run on save (max 71).
    const long = 'x'.repeat(72)
    const tooLong = await t.api('POST', '/api/collections/users/confirm-password-reset', {
      body: { token, password: long, passwordConfirm: long },
    })
    expect(tooLong.status).toBe(400)
    expect(tooLong.body.message).toBe('Failed to set new password.')
    expect(tooLong.body.data.password.code).toBe('validation_max_text_constraint')
    const ok = await t.api('POST', '/api/collections/users/confirm-password-reset', {
      body: { token, password: 'newpassword1', passwordConfirm: 'newpassword1' },
    })
    expect(ok.status).toBe(204)
    expect((await signIn('reset@example.com', 'oldpassword1')).status).toBe(400)
    expect((await signIn('reset@example.com', 'newpassword1')).status).toBe(200)
    expect(
      (await t.api('POST', '/api/collections/users/auth-refresh', { token: old.body.token }))
        .status,
    ).toBe(401)
    const reused = await t.api('POST', '/api/collections/users/confirm-password-reset', {
      body: { token, password: 'thirdpass1', passwordConfirm: 'thirdpass1' },
    })
    expect(reused.body.data.token.code).toBe('validation_invalid_token')
  })

  it('changes the email after confirmation from the new address', async () => {
    await createUser('move@example.com')
    await createUser('taken@example.com')
    const login = await signIn('move@example.com', 'password123')
    const req = (body: unknown, token = login.body.token) =>
      t.api('POST', '/api/collections/users/request-email-change', { token, body })
    expect((await req({ newEmail: 'x@example.com' }, null)).status).toBe(401)
    expect((await req({ newEmail: 'taken@example.com' })).body.data.newEmail.code).toBe(
      'validation_invalid_new_email',
    )
    expect((await req({ newEmail: 'move@example.com' })).body.data.newEmail.code).toBe(
      'validation_not_in_invalid',
    )
    expect((await req({ newEmail: 'moved@example.com' })).status).toBe(204)
    const mail = await smtp.waitForMail((m) => m.to.includes('moved@example.com'))
    expect(mail.subject).toBe('Confirm your TestApp new email address')
    const token = tokenIn(mail.html)
    const wrong = await t.api('POST', '/api/collections/users/confirm-email-change', {
      body: { token, password: 'nope' },
    })
    expect(wrong.body.data.password.code).toBe('validation_invalid_password')
    expect(
      (
        await t.api('POST', '/api/collections/users/confirm-email-change', {
          body: { token, password: 'password123' },
        })
      ).status,
    ).toBe(204)
    const after = await signIn('moved@example.com', 'password123')
    expect(after.body.record).toMatchObject({ email: 'moved@example.com', verified: true })
    expect(
      (await t.api('POST', '/api/collections/users/auth-refresh', { token: login.body.token }))
        .status,
    ).toBe(401)
    expect(
      (
        await t.api('POST', '/api/collections/_superusers/request-email-change', {
          token: su,
          body: { newEmail: 'a@b.co' },
        })
      ).status,
    ).toBe(400)
  })

  it('signs in with a mailed OTP once, with an attempt limit, and fakes unknown emails', async () => {
    await t.api('PATCH', '/api/collections/users', {
      token: su,
      body: { authOptions: { otp: { enabled: true, length: 6 } } },
    })
    await createUser('otp@example.com')
    const req = await t.api('POST', '/api/collections/users/request-otp', {
      body: { email: 'otp@example.com' },
    })
    expect(req.status).toBe(200)
    expect(req.body.otpId).toMatch(/^[a-z0-9]{15}$/)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('otp@example.com') && /OTP/.test(m.subject),
    )
    const otp = /(\d{6})/.exec(mail.html)![1]
    const wrong = await t.api('POST', '/api/collections/users/auth-with-otp', {
      body: { otpId: req.body.otpId, password: '000000' },
    })
    expect(wrong.body.message).toBe('Invalid or expired OTP.')
    const ok = await t.api('POST', '/api/collections/users/auth-with-otp', {
      body: { otpId: req.body.otpId, password: otp },
    })
    expect(ok.status, JSON.stringify(ok.body)).toBe(200)
    expect(ok.body.record.email).toBe('otp@example.com')
    expect(ok.body.record.verified).toBe(true)
    const reused = await t.api('POST', '/api/collections/users/auth-with-otp', {
      body: { otpId: req.body.otpId, password: otp },
    })
    expect(reused.status).toBe(400)
    const fake = await t.api('POST', '/api/collections/users/request-otp', {
      body: { email: 'ghost@example.com' },
    })
    expect(fake.status).toBe(200)
    expect(
      (
        await t.api('POST', '/api/collections/users/auth-with-otp', {
          body: { otpId: fake.body.otpId, password: '123456' },
        })
      ).status,
    ).toBe(400)
    // The limit counts attempts per (record, client IP): a fresh record starts at zero.
    await createUser('otp2@example.com')
    const second = await t.api('POST', '/api/collections/users/request-otp', {
      body: { email: 'otp2@example.com' },
    })
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) {
      statuses.push(
        (
          await t.api('POST', '/api/collections/users/auth-with-otp', {
            body: { otpId: second.body.otpId, password: '999999' },
          })
        ).status,
      )
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429])
  })

  it('requires a second, different factor when MFA is on', async () => {
    await t.api('PATCH', '/api/collections/users', {
      token: su,
      body: { authOptions: { mfa: { enabled: true }, otp: { enabled: true } } },
    })
    await createUser('mfa@example.com')
    const first = await signIn('mfa@example.com', 'password123')
    expect(first.status).toBe(401)
    expect(Object.keys(first.body)).toEqual(['mfaId'])
    const again = await t.api(
      'POST',
      `/api/collections/users/auth-with-password?mfaId=${first.body.mfaId}`,
      { body: { identity: 'mfa@example.com', password: 'password123' } },
    )
    expect(again.body.message).toBe('A different authentication method is required.')
    const bogus = await t.api('POST', '/api/collections/users/auth-with-password?mfaId=nope', {
      body: { identity: 'mfa@example.com', password: 'password123' },
    })
    expect(bogus.body.message).toBe('Invalid or expired MFA session.')
    const otpReq = await t.api('POST', '/api/collections/users/request-otp', {
      body: { email: 'mfa@example.com' },
    })
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('mfa@example.com') && /OTP/.test(m.subject),
    )
    const otp = /(\d{6})/.exec(mail.html)![1]
    // The first factor created a fresh session; use it with the OTP as second factor.
    const first2 = await signIn('mfa@example.com', 'password123')
    const done = await t.api('POST', '/api/collections/users/auth-with-otp', {
      body: { otpId: otpReq.body.otpId, password: otp, mfaId: first2.body.mfaId },
    })
    expect(done.status, JSON.stringify(done.body)).toBe(200)
    expect(done.body.token).toBeTruthy()
    await t.api('PATCH', '/api/collections/users', {
      token: su,
      body: { authOptions: { mfa: { enabled: false }, otp: { enabled: false } } },
    })
  })

  it('mails an alert on sign-in from a new location, not on the first', async () => {
    await createUser('alert@example.com')
    const before = smtp.mails.filter((m) => m.to.includes('alert@example.com')).length
    expect(
      (await signIn('alert@example.com', 'password123', 'users', { 'user-agent': 'first-device' }))
        .status,
    ).toBe(200)
    expect(
      (await signIn('alert@example.com', 'password123', 'users', { 'user-agent': 'first-device' }))
        .status,
    ).toBe(200)
    expect(
      (await signIn('alert@example.com', 'password123', 'users', { 'user-agent': 'second-device' }))
        .status,
    ).toBe(200)
    const alert = await smtp.waitForMail(
      (m) => m.to.includes('alert@example.com') && /new location/.test(m.subject),
    )
    expect(alert.html).toContain('second-device')
    expect(smtp.mails.filter((m) => m.to.includes('alert@example.com')).length).toBe(before + 1)
  })

  it('impersonates with a non-refreshable token (superuser only)', async () => {
    const id = await createUser('imp@example.com')
    const user = await signIn('imp@example.com', 'password123')
    expect((await t.api('POST', `/api/collections/users/impersonate/${id}`)).status).toBe(401)
    expect(
      (await t.api('POST', `/api/collections/users/impersonate/${id}`, { token: user.body.token }))
        .status,
    ).toBe(403)
    expect(
      (await t.api('POST', '/api/collections/users/impersonate/nope', { token: su })).status,
    ).toBe(404)
    expect(
      (
        await t.api('POST', `/api/collections/users/impersonate/${id}`, {
          token: su,
          body: { duration: -1 },
        })
      ).status,
    ).toBe(400)
    const imp = await t.api('POST', `/api/collections/users/impersonate/${id}`, {
      token: su,
      body: { duration: 100 },
    })
    expect(imp.status).toBe(200)
    expect(imp.body.record.id).toBe(id)
    const claims = JSON.parse(Buffer.from(imp.body.token.split('.')[1], 'base64url').toString())
    expect(claims).toMatchObject({ type: 'auth', id, refreshable: false })
    expect(claims.exp - Math.floor(Date.now() / 1000)).toBeLessThanOrEqual(100)
    const refreshed = await t.api('POST', '/api/collections/users/auth-refresh', {
      token: imp.body.token,
    })
    expect(refreshed.status).toBe(200)
    expect(refreshed.body.token).toBe(imp.body.token)
  })

  it('stores password hashes as bcrypt', async () => {
    const id = await createUser('hash@example.com')
    const row = await t.server.app.db.get<{ password: string }>({
      parts: [{ text: `SELECT password FROM users WHERE id = ` }, { param: id }],
    } as any)
    expect(row!.password).toMatch(/^\$2[aby]\$\d{2}\$/)
  })
})
