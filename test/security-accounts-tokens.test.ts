/**
 * Security issue #32, the accounts points about credentials: API keys go with a password change,
 * a tokenKey rotation and a rotated collection secret (6, 10); a single-use token confirmed many
 * times at once succeeds once (9); the OTP attempt limit also counts per record (11); an OTP used
 * right after its mail still proves the email (5); a superuser deleted through the SQL console
 * loses its token at once (16b).
 */
import { EventSource } from 'eventsource'
import { SMTPServer } from 'smtp-server'
import { simpleParser } from 'mailparser'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const tokenIn = (html: string): string =>
  /\/(?:confirm-verification|confirm-password-reset|confirm-email-change)\/([\w.-]+)/.exec(
    html,
  )?.[1] ?? ''

let t: TestServer
let smtp: TestSmtp

beforeAll(async () => {
  t = await startServer()
  smtp = await startSmtp()
  const res = await t.api('PATCH', '/api/settings', {
    token: t.suToken,
    body: {
      meta: { appName: 'TestApp', appURL: 'http://app.test' },
      smtp: { enabled: true, host: smtp.host, port: smtp.port },
      batch: { enabled: true },
    },
  })
  expect(res.status).toBe(200)
})

afterAll(async () => {
  await t?.close()
  await smtp?.close()
})

async function createUser(email: string, password = 'password123'): Promise<string> {
  const res = await t.api('POST', '/api/collections/users/records', {
    body: { email, password, passwordConfirm: password },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.id as string
}

async function signIn(email: string, password = 'password123') {
  return t.api('POST', '/api/collections/users/auth-with-password', {
    body: { identity: email, password },
  })
}

async function mintKey(token: string): Promise<string> {
  const res = await t.api('POST', '/api/api-keys', { token, body: { name: 'ci' } })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.key as string
}

/** How a credential fares: viewing its own record (viewRule `id = @request.auth.id`), refreshing. */
async function reach(credential: string, id: string) {
  const view = await t.api('GET', `/api/collections/users/records/${id}`, { token: credential })
  const refresh = await t.api('POST', '/api/collections/users/auth-refresh', { token: credential })
  return { view: view.status, refresh: refresh.status }
}

/** The other ways in: a batch updating its own record, and a file token. */
async function reachMore(credential: string, id: string) {
  const batch = await t.api('POST', '/api/batch', {
    token: credential,
    body: {
      requests: [
        { method: 'PATCH', url: `/api/collections/users/records/${id}`, body: { name: 'x' } },
      ],
    },
  })
  const fileToken = await t.api('POST', '/api/files/token', { token: credential })
  return { batch: batch.status, fileToken: fileToken.status }
}

async function keyRows(id: string): Promise<number> {
  const res = await t.api(
    'GET',
    `/api/collections/_api_keys/records?filter=${encodeURIComponent(`recordRef = "${id}"`)}`,
    { token: t.suToken },
  )
  expect(res.status).toBe(200)
  return res.body.totalItems as number
}

describe('API keys go with the tokens of their record (6)', () => {
  it('a password change deletes the keys minted before it; a key minted after works', async () => {
    const id = await createUser('keys-pw@example.com')
    const login = await signIn('keys-pw@example.com')
    const key = await mintKey(login.body.token)
    expect(await reach(key, id)).toEqual({ view: 200, refresh: 200 })
    expect(await reachMore(key, id)).toEqual({ batch: 200, fileToken: 200 })
    const changed = await t.api('PATCH', `/api/collections/users/records/${id}`, {
      token: login.body.token,
      body: { oldPassword: 'password123', password: 'password456', passwordConfirm: 'password456' },
    })
    expect(changed.status, JSON.stringify(changed.body)).toBe(200)
    expect(await reach(key, id)).toEqual({ view: 404, refresh: 401 })
    expect(await reachMore(key, id)).toEqual({ batch: 400, fileToken: 401 })
    expect(await keyRows(id)).toBe(0)
    const again = await signIn('keys-pw@example.com', 'password456')
    const fresh = await mintKey(again.body.token)
    expect(await reach(fresh, id)).toEqual({ view: 200, refresh: 200 })
  })

  it('a tokenKey rotation (set by a superuser) deletes them too', async () => {
    const id = await createUser('keys-tk@example.com')
    const login = await signIn('keys-tk@example.com')
    const key = await mintKey(login.body.token)
    const rotated = await t.api('PATCH', `/api/collections/users/records/${id}`, {
      token: t.suToken,
      body: { tokenKey: 'a-brand-new-token-key-of-enough-length-0123456789' },
    })
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200)
    expect(await reach(key, id)).toEqual({ view: 404, refresh: 401 })
    expect(await keyRows(id)).toBe(0)
  })

  it('another record keeps its keys', async () => {
    const a = await createUser('keys-a@example.com')
    const b = await createUser('keys-b@example.com')
    const keyB = await mintKey((await signIn('keys-b@example.com')).body.token)
    const loginA = await signIn('keys-a@example.com')
    const changed = await t.api('PATCH', `/api/collections/users/records/${a}`, {
      token: loginA.body.token,
      body: { oldPassword: 'password123', password: 'password789', passwordConfirm: 'password789' },
    })
    expect(changed.status).toBe(200)
    expect(await reach(keyB, b)).toEqual({ view: 200, refresh: 200 })
  })
})

describe("a collection's token secret (10)", () => {
  it('is validated, rotated when changed, and signs every record of the collection out', async () => {
    const id = await createUser('secret@example.com')
    const login = await signIn('secret@example.com')
    const key = await mintKey(login.body.token)
    const second = await signIn('secret@example.com') // another session of the same user
    expect(await reach(login.body.token, id)).toEqual({ view: 200, refresh: 200 })

    const short = await t.api('PATCH', '/api/collections/users', {
      token: t.suToken,
      body: { authToken: { secret: 'short' } },
    })
    expect(short.status).toBe(400)
    expect(short.body.data.authToken.secret).toMatchObject({
      code: 'validation_length_out_of_range',
      params: { min: 30, max: 255 },
    })
    const typed = await t.api('PATCH', '/api/collections/users', {
      token: t.suToken,
      body: { authOptions: { authToken: { secret: 12345 } } },
    })
    expect(typed.status).toBe(400)
    expect(JSON.stringify(typed.body.data)).toContain('validation_invalid_value')
    // Refused changes changed nothing.
    expect(await reach(login.body.token, id)).toEqual({ view: 200, refresh: 200 })

    const rotated = await t.api('PATCH', '/api/collections/users', {
      token: t.suToken,
      body: { authToken: { secret: 'x'.repeat(40) } },
    })
    expect(rotated.status, JSON.stringify(rotated.body)).toBe(200)
    expect(JSON.stringify(rotated.body)).not.toMatch(/secret/i)
    expect(await reach(login.body.token, id)).toEqual({ view: 404, refresh: 401 })
    expect(await reach(second.body.token, id)).toEqual({ view: 404, refresh: 401 })
    expect(await reach(key, id)).toEqual({ view: 404, refresh: 401 })
    expect(await keyRows(id)).toBe(0)
    // A superuser's token (another collection) is untouched; signing in again works.
    expect((await t.api('GET', '/api/collections', { token: t.suToken })).status).toBe(200)
    const again = await signIn('secret@example.com')
    expect(again.status).toBe(200)
    expect(await reach(again.body.token, id)).toEqual({ view: 200, refresh: 200 })
    // The collection sent back as read (no secret) keeps the secret: the session survives.
    const read = await t.api('GET', '/api/collections/users', { token: t.suToken })
    const same = await t.api('PATCH', '/api/collections/users', {
      token: t.suToken,
      body: { authToken: read.body.authToken },
    })
    expect(same.status).toBe(200)
    expect(await reach(again.body.token, id)).toEqual({ view: 200, refresh: 200 })
  })
})

describe("a collection's token secret and realtime (10)", () => {
  it('a realtime client signed in with a token of the collection becomes a guest', async () => {
    const marks = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'marks',
        type: 'base',
        listRule: '',
        viewRule: '',
        fields: [{ name: 'label', type: 'text' }],
      },
    })
    expect(marks.status, JSON.stringify(marks.body)).toBe(200)
    const id = await createUser('secret-rt@example.com')
    const login = await signIn('secret-rt@example.com')
    const received: { name: string; data: any }[] = []
    const es = new EventSource(`${t.url}/api/realtime`)
    try {
      const clientId = await new Promise<string>((resolve, reject) => {
        es.addEventListener('PB_CONNECT', (e) => resolve(e.lastEventId))
        es.onerror = () => reject(new Error('realtime failed'))
      })
      for (const name of [`users/${id}`, 'marks'])
        es.addEventListener(name, (e) => received.push({ name, data: JSON.parse(e.data) }))
      const sub = await t.api('POST', '/api/realtime', {
        token: login.body.token,
        body: { clientId, subscriptions: [`users/${id}`, 'marks'] },
      })
      expect(sub.status).toBe(204)
      /** Updates the user, then adds a mark; answers what arrived up to that mark. */
      const round = async (label: string) => {
        const upd = await t.api('PATCH', `/api/collections/users/records/${id}`, {
          token: t.suToken,
          body: { name: label },
        })
        expect(upd.status).toBe(200)
        const mark = await t.api('POST', '/api/collections/marks/records', {
          token: t.suToken,
          body: { label },
        })
        expect(mark.status).toBe(200)
        await expect
          .poll(() => received.some((r) => r.name === 'marks' && r.data.record.label === label), {
            timeout: 5000,
          })
          .toBe(true)
        return received
          .splice(0)
          .map((r) => r.name)
          .sort()
      }
      expect(await round('before')).toEqual(['marks', `users/${id}`])
      const rotated = await t.api('PATCH', '/api/collections/users', {
        token: t.suToken,
        body: { authToken: { secret: 'r'.repeat(64) } },
      })
      expect(rotated.status).toBe(200)
      // A guest may not view the user (viewRule `id = @request.auth.id`): only the mark arrives.
      expect(await round('after')).toEqual(['marks'])
    } finally {
      es.close()
    }
  })
})

describe('single-use tokens confirmed concurrently (9)', () => {
  it('one password-reset token confirmed 200 times at once succeeds exactly once', async () => {
    await createUser('race-reset@example.com')
    const req = await t.api('POST', '/api/collections/users/request-password-reset', {
      body: { email: 'race-reset@example.com' },
    })
    expect(req.status).toBe(204)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('race-reset@example.com') && tokenIn(m.html) !== '',
    )
    const token = tokenIn(mail.html)
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        t.api('POST', '/api/collections/users/confirm-password-reset', {
          body: { token, password: `new-password-${i}`, passwordConfirm: `new-password-${i}` },
        }),
      ),
    )
    const ok = answers.map((a, i) => [a.status, i] as const).filter(([s]) => s === 204)
    expect(ok).toHaveLength(1)
    for (const a of answers) {
      if (a.status === 204) continue
      expect(a.status).toBe(400)
      expect(a.body.data.token.code).toBe('validation_invalid_token')
    }
    const winner = ok[0]![1]
    expect((await signIn('race-reset@example.com', `new-password-${winner}`)).status).toBe(200)
    const loser = winner === 0 ? 1 : 0
    expect((await signIn('race-reset@example.com', `new-password-${loser}`)).status).toBe(400)
  })

  it('one email-change token confirmed 50 times at once succeeds exactly once', async () => {
    await createUser('race-move@example.com')
    const login = await signIn('race-move@example.com')
    const req = await t.api('POST', '/api/collections/users/request-email-change', {
      token: login.body.token,
      body: { newEmail: 'race-moved@example.com' },
    })
    expect(req.status).toBe(204)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('race-moved@example.com') && tokenIn(m.html) !== '',
    )
    const token = tokenIn(mail.html)
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        t.api('POST', '/api/collections/users/confirm-email-change', {
          body: { token, password: 'password123' },
        }),
      ),
    )
    expect(answers.filter((a) => a.status === 204)).toHaveLength(1)
    for (const a of answers) if (a.status !== 204) expect(a.status).toBe(400)
    expect((await signIn('race-moved@example.com')).status).toBe(200)
  })
})

describe('OTP (5, 11)', () => {
  beforeAll(async () => {
    const res = await t.api('PATCH', '/api/collections/users', {
      token: t.suToken,
      body: { otp: { enabled: true, length: 6 } },
    })
    expect(res.status).toBe(200)
  })

  it('the attempt limit counts per record too: spoofed client addresses do not reset it', async () => {
    const set = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: true } },
    })
    expect(set.status).toBe(200)
    try {
      await createUser('otp-spoof@example.com')
      const req = await t.api('POST', '/api/collections/users/request-otp', {
        body: { email: 'otp-spoof@example.com' },
      })
      expect(req.status).toBe(200)
      const statuses: number[] = []
      for (let i = 0; i < 14; i++) {
        const res = await t.api('POST', '/api/collections/users/auth-with-otp', {
          headers: { 'x-forwarded-for': `203.0.113.${i + 1}` },
          body: { otpId: req.body.otpId, password: '999999' },
        })
        statuses.push(res.status)
      }
      expect(statuses).toEqual([...Array(10).fill(400), 429, 429, 429, 429])
    } finally {
      await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { trustedProxy: { headers: [], useLeftmostIP: false } },
      })
    }
  })

  it('an OTP used while its mail is still being sent proves the email (and rotates the password)', async () => {
    // An SMTP listener that keeps the final "250" of each message back for a moment: the code is
    // readable before the server's send has finished.
    const held: { to: string[]; html: string }[] = []
    const slow = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        simpleParser(stream)
          .then((parsed) => {
            held.push({
              to: session.envelope.rcptTo.map((r) => r.address),
              html: typeof parsed.html === 'string' ? parsed.html : '',
            })
            setTimeout(() => callback(), 1500)
          })
          .catch((err: unknown) => callback(err as Error))
      },
    })
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve))
    const port = (slow.server.address() as AddressInfo).port
    try {
      const set = await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { smtp: { enabled: true, host: '127.0.0.1', port } },
      })
      expect(set.status).toBe(200)
      await createUser('otp-fast@example.com')
      const req = await t.api('POST', '/api/collections/users/request-otp', {
        body: { email: 'otp-fast@example.com' },
      })
      expect(req.status).toBe(200)
      await expect.poll(() => held.length, { timeout: 5000 }).toBeGreaterThan(0)
      const code = /(\d{6})/.exec(held[0]!.html)![1]!
      const ok = await t.api('POST', '/api/collections/users/auth-with-otp', {
        body: { otpId: req.body.otpId, password: code },
      })
      expect(ok.status, JSON.stringify(ok.body)).toBe(200)
      expect(ok.body.record.verified).toBe(true)
      // The password registered before the email was proven no longer signs in.
      expect((await signIn('otp-fast@example.com')).status).toBe(400)
    } finally {
      await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { smtp: { enabled: true, host: smtp.host, port: smtp.port } },
      })
      await new Promise<void>((resolve) => slow.close(() => resolve()))
    }
  })
})

describe('the SQL console (16b)', () => {
  it('a superuser deleted through the console loses its token at once', async () => {
    const made = await t.api('POST', '/api/collections/_superusers/records', {
      token: t.suToken,
      body: {
        email: 'doomed@example.com',
        password: 'doomed-pass-1',
        passwordConfirm: 'doomed-pass-1',
      },
    })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: 'doomed@example.com', password: 'doomed-pass-1' },
    })
    expect(login.status).toBe(200)
    const token = login.body.token as string
    // Used once, so the token is verified and remembered.
    expect((await t.api('GET', '/api/collections', { token })).status).toBe(200)
    expect((await t.api('GET', '/api/collections', { token })).status).toBe(200)
    const del = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: { sql: `DELETE FROM _superusers WHERE id = '${String(made.body.id)}'`, write: true },
    })
    expect(del.status, JSON.stringify(del.body)).toBe(200)
    expect(del.body.rowsAffected).toBe(1)
    expect((await t.api('GET', '/api/collections', { token })).status).toBe(401)
  })
})
