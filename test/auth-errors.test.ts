import { SignJWT } from 'jose'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { manageSuperuser } from '../src/core/auth/superusers.js'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const tokenIn = (html: string) =>
  /\/(?:confirm-verification|confirm-password-reset|confirm-email-change)\/([\w.-]+)/.exec(
    html,
  )?.[1] ?? ''

/** The `data` of an error answer reduced to `{key: code}`. */
const codes = (data: Record<string, { code: string }>) =>
  Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.code]))

describe('auth flows: emails and error shapes', () => {
  let t: TestServer
  let smtp: TestSmtp

  const createUser = async (email: string, password = 'password123') => {
    const res = await t.api('POST', '/api/collections/users/records', {
      body: { email, password, passwordConfirm: password },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.id as string
  }
  const signIn = (identity: string, password = 'password123') =>
    t.api('POST', '/api/collections/users/auth-with-password', { body: { identity, password } })
  const post = (path: string, body: unknown, token?: string) =>
    t.api('POST', `/api/collections/users/${path}`, { body, token })

  /** A well-formed token of `type` for the users collection, signed with a wrong key. */
  const forged = async (claims: Record<string, unknown>) =>
    new SignJWT({ collectionId: t.server.app.collections.get('users').id, ...claims })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
      .sign(new TextEncoder().encode('not the key'))

  beforeAll(async () => {
    t = await startServer()
    smtp = await startSmtp()
    const settings = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: {
        meta: { appName: 'TestApp', appURL: 'http://app.test' },
        smtp: { enabled: true, host: smtp.host, port: smtp.port },
      },
    })
    expect(settings.status).toBe(200)
    const users = await t.api('PATCH', '/api/collections/users', {
      token: t.suToken,
      body: {
        updateRule: 'id = @request.auth.id',
        authOptions: { otp: { enabled: true } },
      },
    })
    expect(users.status, JSON.stringify(users.body)).toBe(200)
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  describe('emails with _ in the domain are valid, as in PocketBase', () => {
    it('creates, signs in, verifies, resets and sends an OTP to f@users_abc.test', async () => {
      const id = await createUser('f@users_abc.test')
      const login = await signIn('f@users_abc.test')
      expect(login.status, JSON.stringify(login.body)).toBe(200)
      expect(login.body.record).toMatchObject({ id, email: 'f@users_abc.test' })

      expect((await post('request-verification', { email: 'f@users_abc.test' })).status).toBe(204)
      await smtp.waitForMail((m) => m.to.includes('f@users_abc.test') && /Verify/.test(m.subject))
      expect((await post('request-password-reset', { email: 'f@users_abc.test' })).status).toBe(204)
      const otp = await post('request-otp', { email: 'f@users_abc.test' })
      expect(otp.status, JSON.stringify(otp.body)).toBe(200)
      await smtp.waitForMail((m) => m.to.includes('f@users_abc.test') && /OTP/.test(m.subject))
    })

    it('changes the email to an address with _ in the domain', async () => {
      await createUser('mover@example.com')
      const login = await signIn('mover@example.com')
      const req = await post(
        'request-email-change',
        { newEmail: 'g@mail_x.test' },
        login.body.token,
      )
      expect(req.status, JSON.stringify(req.body)).toBe(204)
      const mail = await smtp.waitForMail((m) => m.to.includes('g@mail_x.test'))
      const done = await post('confirm-email-change', {
        token: tokenIn(mail.html),
        password: 'password123',
      })
      expect(done.status, JSON.stringify(done.body)).toBe(204)
      expect((await signIn('g@mail_x.test')).body.record.email).toBe('g@mail_x.test')
    })

    it('creates a superuser with such an email, through the API and the CLI path', async () => {
      const api = await t.api('POST', '/api/collections/_superusers/records', {
        token: t.suToken,
        body: {
          email: 'ops@admin_team.test',
          password: 'password123',
          passwordConfirm: 'password123',
        },
      })
      expect(api.status, JSON.stringify(api.body)).toBe(200)
      // Created verified, as PocketBase 0.40.4 does.
      expect(api.body.verified).toBe(true)
      await manageSuperuser(t.server.app, 'create', 'root@admin_team.test', 'password123')
      const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
        body: { identity: 'root@admin_team.test', password: 'password123' },
      })
      expect(login.status).toBe(200)
    })

    it('still refuses malformed emails everywhere with validation_is_email', async () => {
      for (const email of ['a@b', 'a..b@example.com', 'x@_bad.test', 'x@bad_.test']) {
        const create = await t.api('POST', '/api/collections/users/records', {
          body: { email, password: 'password123', passwordConfirm: 'password123' },
        })
        expect(create.body.data?.email?.code, email).toBe('validation_is_email')
        for (const path of ['request-verification', 'request-password-reset', 'request-otp']) {
          const res = await post(path, { email })
          expect(res.status, `${path} ${email}`).toBe(400)
          expect(res.body.data, `${path} ${email}`).toEqual({
            email: { code: 'validation_is_email', message: 'Must be a valid email address.' },
          })
        }
      }
    })
  })

  describe("error codes and paths of PocketBase's auth forms", () => {
    it('a self password change without oldPassword is validation_required', async () => {
      const id = await createUser('self@example.com')
      const login = await signIn('self@example.com')
      const patch = (body: Record<string, unknown>) =>
        t.api('PATCH', `/api/collections/users/records/${id}`, { token: login.body.token, body })
      const missing = await patch({ password: 'newpassword1', passwordConfirm: 'newpassword1' })
      expect(missing.status).toBe(400)
      expect(missing.body.data).toEqual({
        oldPassword: { code: 'validation_required', message: 'Cannot be blank.' },
      })
      const empty = await patch({
        password: 'newpassword1',
        passwordConfirm: 'newpassword1',
        oldPassword: '',
      })
      expect(codes(empty.body.data)).toEqual({ oldPassword: 'validation_required' })
      const wrong = await patch({
        password: 'newpassword1',
        passwordConfirm: 'newpassword1',
        oldPassword: 'not-the-password',
      })
      expect(wrong.body.data).toEqual({
        oldPassword: {
          code: 'validation_invalid_old_password',
          message: 'Missing or invalid old password.',
        },
      })
      const both = await patch({ password: 'newpassword1', passwordConfirm: 'other' })
      expect(codes(both.body.data)).toEqual({
        passwordConfirm: 'validation_values_mismatch',
        oldPassword: 'validation_required',
      })
      const ok = await patch({
        password: 'newpassword1',
        passwordConfirm: 'newpassword1',
        oldPassword: 'password123',
      })
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
      expect((await signIn('self@example.com', 'newpassword1')).status).toBe(200)
    })

    it('confirm-password-reset reports the token and the password fields together', async () => {
      const id = await createUser('reset2@example.com')
      const bad = await forged({ type: 'passwordReset', id, email: 'reset2@example.com' })
      const mismatch = await post('confirm-password-reset', {
        token: bad,
        password: 'newpassword1',
        passwordConfirm: 'other',
      })
      expect(mismatch.status).toBe(400)
      expect(mismatch.body.message).toBe('An error occurred while validating the submitted data.')
      expect(mismatch.body.data).toEqual({
        token: { code: 'validation_invalid_token', message: 'Invalid or expired token.' },
        passwordConfirm: { code: 'validation_values_mismatch', message: "Values don't match." },
      })
      const empty = await post('confirm-password-reset', {})
      expect(codes(empty.body.data)).toEqual({
        token: 'validation_required',
        password: 'validation_required',
        passwordConfirm: 'validation_required',
      })
      const short = await post('confirm-password-reset', {
        token: 'garbage',
        password: 'short',
        passwordConfirm: 'short',
      })
      expect(codes(short.body.data)).toEqual({
        token: 'validation_invalid_token',
        password: 'validation_length_out_of_range',
      })
      expect(short.body.data.password.message).toBe('The length must be between 8 and 255.')
      // A valid token with a bad confirmation still reports only the confirmation.
      await post('request-password-reset', { email: 'reset2@example.com' })
      const mail = await smtp.waitForMail(
        (m) => m.to.includes('reset2@example.com') && /Reset/.test(m.subject),
      )
      const real = await post('confirm-password-reset', {
        token: tokenIn(mail.html),
        password: 'newpassword1',
        passwordConfirm: 'other',
      })
      expect(codes(real.body.data)).toEqual({ passwordConfirm: 'validation_values_mismatch' })
    })

    it('confirm-email-change reports the password too when the token is bad', async () => {
      const id = await createUser('change2@example.com')
      const bad = await forged({
        type: 'emailChange',
        id,
        email: 'change2@example.com',
        newEmail: 'new2@example.com',
      })
      const withPassword = await post('confirm-email-change', {
        token: bad,
        password: 'password123',
      })
      expect(withPassword.status).toBe(400)
      expect(withPassword.body.data).toEqual({
        token: { code: 'validation_invalid_token', message: 'Invalid or expired token.' },
        password: {
          code: 'validation_invalid_password',
          message: 'Missing or invalid auth record password.',
        },
      })
      const noPayload = await post('confirm-email-change', { token: 'garbage', password: 'x' })
      expect(codes(noPayload.body.data)).toEqual({
        token: 'validation_invalid_token_payload',
        password: 'validation_invalid_password',
      })
      const empty = await post('confirm-email-change', {})
      expect(codes(empty.body.data)).toEqual({
        token: 'validation_required',
        password: 'validation_required',
      })
      const long = await post('confirm-email-change', { token: bad, password: 'x'.repeat(101) })
      expect(codes(long.body.data)).toEqual({
        token: 'validation_invalid_token',
        password: 'validation_length_out_of_range',
      })
    })

    it('reads a numeric multipart value as text and reports an object as a type error', async () => {
      await createUser('12345678@example.com', '12345678')
      // Multipart inference turns "12345678" into a number: it is still the password.
      const form = new FormData()
      form.append('identity', '12345678@example.com')
      form.append('password', '12345678')
      const login = await t.api('POST', '/api/collections/users/auth-with-password', {
        raw: form,
      })
      expect(login.status, JSON.stringify(login.body)).toBe(200)
      const obj = await post('request-password-reset', { email: { a: 1 } })
      expect(obj.body.data).toEqual({
        email: {
          code: 'validation_unsupported_value_type',
          message: 'Must be a string, not an object.',
          params: { expected: 'a string', actual: 'an object' },
        },
      })
    })
  })
})
