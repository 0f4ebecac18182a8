import { createServer as createNetServer } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const TEMPLATES = ['verification', 'password-reset', 'email-change', 'otp', 'login-alert'] as const

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const srv = createNetServer()
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve))
  const address = srv.address()
  await new Promise<void>((resolve) => srv.close(() => resolve()))
  if (!address || typeof address !== 'object') throw new Error('no port')
  return address.port
}

describe('POST /api/settings/test/email: access and validation', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  const send = (body: unknown, token: string | null = t.suToken) =>
    t.api('POST', '/api/settings/test/email', { body, token })

  it('answers 401 without a token and 403 for a non-superuser', async () => {
    const guest = await send({ email: 'a@example.com', template: 'otp' }, null)
    expect(guest.status).toBe(401)
    expect(guest.body).toMatchObject({ code: 401, status: 401, data: {} })

    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'plain@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'plain@example.com', password: 'password123' },
    })
    expect(login.status).toBe(200)
    const user = await send({ email: 'a@example.com', template: 'otp' }, login.body.token)
    expect(user.status).toBe(403)
    expect(user.body).toMatchObject({ code: 403, status: 403, data: {} })
  })

  it('rejects bad input with per-field errors', async () => {
    const posts = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'posts', type: 'base', schema: [{ name: 'title', type: 'text' }] },
    })
    expect(posts.status).toBe(200)

    const cases: { name: string; body: unknown; errors: Record<string, string> }[] = [
      {
        name: 'empty body',
        body: {},
        errors: { email: 'validation_required', template: 'validation_required' },
      },
      {
        name: 'malformed email, unknown template',
        body: { email: 'not-an-email', template: 'welcome' },
        errors: { email: 'validation_is_email', template: 'validation_in_invalid' },
      },
      {
        name: 'email of the wrong type',
        body: { email: 42, template: 'otp' },
        errors: { email: 'validation_unsupported_value_type' },
      },
      {
        name: 'unknown collection',
        body: { email: 'a@example.com', template: 'otp', collection: 'nope' },
        errors: { collection: 'validation_invalid_auth_collection' },
      },
      {
        name: 'non-auth collection',
        body: { email: 'a@example.com', template: 'verification', collection: 'posts' },
        errors: { collection: 'validation_invalid_auth_collection' },
      },
    ]
    for (const c of cases) {
      const res = await send(c.body)
      expect(res.status, c.name).toBe(400)
      expect(res.body.message, c.name).toBe('Failed to send the test email.')
      const codes = Object.fromEntries(
        Object.entries(res.body.data as Record<string, { code: string }>).map(([k, v]) => [
          k,
          v.code,
        ]),
      )
      expect(codes, c.name).toEqual(c.errors)
    }
  })

  it('writes the test email to the log while SMTP is disabled', async () => {
    const logger = t.server.app.logger as {
      info: (m: string, d?: Record<string, unknown>) => void
    }
    const original = logger.info
    const logged: { message: string; data?: Record<string, unknown> }[] = []
    logger.info = (message, data) => logged.push({ message, data })
    let res
    try {
      res = await send({ email: 'logged@example.com', template: 'password-reset' })
    } finally {
      logger.info = original
    }
    expect(res.status).toBe(204)
    expect(res.body).toBeNull()
    const entry = logged.find((l) => l.message.startsWith('mail'))
    expect(entry, JSON.stringify(logged)).toBeDefined()
    expect(entry!.data).toMatchObject({
      from: 'support@example.com',
      to: ['logged@example.com'],
      subject: 'Reset your svcbase password',
    })
    expect(String(entry!.data!.html)).toContain('TEST_TOKEN_NOT_VALID')
  })
})

describe('POST /api/settings/test/email through SMTP', () => {
  let t: TestServer
  let smtp: TestSmtp
  let authSmtp: TestSmtp
  beforeAll(async () => {
    t = await startServer()
    smtp = await startSmtp()
    authSmtp = await startSmtp({ user: 'mailer', pass: 's3cret-pass' })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
    await authSmtp.close()
  })

  const send = (body: unknown) =>
    t.api('POST', '/api/settings/test/email', { body, token: t.suToken })
  const patchSettings = async (body: unknown) => {
    const res = await t.api('PATCH', '/api/settings', { body, token: t.suToken })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  it('delivers every template with fake values once SMTP is enabled, without a restart', async () => {
    await patchSettings({
      meta: { appName: 'Mail Test App', senderName: 'Mail Robot', senderAddress: 'robot@test.dev' },
      smtp: { enabled: true, host: smtp.host, port: smtp.port, tls: false },
    })
    const expected: Record<(typeof TEMPLATES)[number], string[]> = {
      verification: ['TEST_TOKEN_NOT_VALID', 'confirm-verification'],
      'password-reset': ['TEST_TOKEN_NOT_VALID', 'confirm-password-reset'],
      'email-change': ['TEST_TOKEN_NOT_VALID', 'confirm-email-change'],
      otp: ['123456'],
      'login-alert': ['127.0.0.1', 'Test browser'],
    }
    for (const template of TEMPLATES) {
      for (const collection of [undefined, 'users']) {
        const to = `${template}.${collection ?? 'su'}@example.com`
        const res = await send({ email: to, template, ...(collection ? { collection } : {}) })
        expect(res.status, `${template} ${JSON.stringify(res.body)}`).toBe(204)
        const mail = await smtp.waitForMail((m) => m.to.includes(to))
        expect(mail.to).toEqual([to])
        expect(mail.from).toBe('robot@test.dev')
        expect(mail.fromHeader).toContain('Mail Robot')
        expect(mail.html).toContain('Mail Test App')
        expect(mail.html).not.toMatch(/\{(TOKEN|OTP|APP_NAME|APP_URL|ALERT_INFO)\}/)
        for (const s of expected[template]) expect(mail.html, template).toContain(s)
        if (template !== 'login-alert') expect(mail.subject).toContain('Mail Test App')
      }
    }
    expect(smtp.mails).toHaveLength(TEMPLATES.length * 2)
  })

  it('follows a port change on the next mail and reports a send failure as 400, quickly', async () => {
    await patchSettings({ smtp: { enabled: true, host: smtp.host, port: await closedPort() } })
    const started = Date.now()
    const failed = await send({ email: 'nobody@example.com', template: 'otp' })
    expect(Date.now() - started).toBeLessThan(3000)
    expect(failed.status).toBe(400)
    expect(failed.body.message).toMatch(
      /^Failed to send the test email\. Raw error: \n.*ECONNREFUSED/,
    )
    expect(failed.body.data).toEqual({})

    await patchSettings({ smtp: { port: smtp.port } })
    const ok = await send({ email: 'back@example.com', template: 'otp' })
    expect(ok.status).toBe(204)
    const mail = await smtp.waitForMail((m) => m.to.includes('back@example.com'))
    expect(mail.html).toContain('123456')
    expect(smtp.mails.some((m) => m.to.includes('nobody@example.com'))).toBe(false)
  })

  it('keeps the write-only password when a PATCH omits it and never returns it', async () => {
    const patched = await patchSettings({
      smtp: {
        enabled: true,
        host: authSmtp.host,
        port: authSmtp.port,
        username: 'mailer',
        password: 's3cret-pass',
        authMethod: 'PLAIN',
      },
    })
    expect(patched.smtp).toMatchObject({ username: 'mailer', authMethod: 'PLAIN' })
    expect(patched.smtp).not.toHaveProperty('password')
    const read = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(read.body.smtp).not.toHaveProperty('password')
    expect(JSON.stringify(read.body)).not.toContain('s3cret-pass')

    const plain = await send({ email: 'plain-auth@example.com', template: 'verification' })
    expect(plain.status, JSON.stringify(plain.body)).toBe(204)
    expect(
      (await authSmtp.waitForMail((m) => m.to.includes('plain-auth@example.com'))).authUser,
    ).toBe('mailer')
    expect(authSmtp.auths.at(-1)).toEqual({ username: 'mailer', method: 'PLAIN' })

    // No password in this PATCH: the stored one must still authenticate.
    await patchSettings({ smtp: { authMethod: 'LOGIN', localName: 'svcbase.test' } })
    const login = await send({ email: 'login-auth@example.com', template: 'otp' })
    expect(login.status, JSON.stringify(login.body)).toBe(204)
    const mail = await authSmtp.waitForMail((m) => m.to.includes('login-auth@example.com'))
    expect(mail.authUser).toBe('mailer')
    expect(mail.helo).toBe('svcbase.test')
    expect(authSmtp.auths.at(-1)).toEqual({ username: 'mailer', method: 'LOGIN' })

    await patchSettings({ smtp: { password: 'wrong' } })
    const refused = await send({ email: 'refused@example.com', template: 'otp' })
    expect(refused.status).toBe(400)
    expect(refused.body.message).toMatch(/^Failed to send the test email\. Raw error: \n.*535/)
  })

  it('falls back to the log backend when SMTP is disabled again', async () => {
    await patchSettings({ smtp: { enabled: false } })
    const before = smtp.mails.length + authSmtp.mails.length
    const res = await send({ email: 'disabled@example.com', template: 'otp' })
    expect(res.status).toBe(204)
    expect(smtp.mails.length + authSmtp.mails.length).toBe(before)
  })
})
