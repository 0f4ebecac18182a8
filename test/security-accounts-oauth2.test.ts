/**
 * Security issue #32, point 5: OAuth2 account pre-hijacking against a real OIDC provider. A
 * sign-up whose `createData.email` differs from the email the provider verified is refused; a
 * link made while a record's email was unproven is removed when the email is proven (password
 * reset, verification, superuser), so the attacker's next sign-in no longer lands in the account.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { authorize, startOidc, type TestOidc } from './helpers/oidc.js'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const APP_REDIRECT = 'http://127.0.0.1:9/app/callback'

let s: TestServer
let oidc: TestOidc
let smtp: TestSmtp

beforeAll(async () => {
  s = await startServer()
  smtp = await startSmtp()
  oidc = await startOidc([
    {
      client_id: 'client-a',
      client_secret: 'secret-a',
      redirect_uris: [`${s.url}/api/oauth2-redirect`, APP_REDIRECT],
    },
  ])
  const set = await s.api('PATCH', '/api/settings', {
    token: s.suToken,
    body: {
      meta: { appName: 'TestApp', appURL: 'http://app.test' },
      smtp: { enabled: true, host: smtp.host, port: smtp.port },
    },
  })
  expect(set.status).toBe(200)
  const res = await s.api('PATCH', '/api/collections/users', {
    token: s.suToken,
    body: {
      oauth2: {
        enabled: true,
        providers: [
          {
            name: 'oidc',
            clientId: 'client-a',
            clientSecret: 'secret-a',
            extra: { issuer: oidc.issuer },
          },
        ],
      },
    },
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
})

afterAll(async () => {
  await s?.close()
  await oidc?.close()
  await smtp?.close()
})

async function signIn(login: string, extra: Record<string, unknown> = {}) {
  const methods = await s.api('GET', '/api/collections/users/auth-methods')
  const p = methods.body.oauth2.providers.find((x: { name: string }) => x.name === 'oidc')
  const { code } = await authorize(
    p.authURL + encodeURIComponent(APP_REDIRECT),
    login,
    APP_REDIRECT,
  )
  return s.api('POST', '/api/collections/users/auth-with-oauth2', {
    body: {
      provider: 'oidc',
      code,
      codeVerifier: p.codeVerifier,
      redirectURL: APP_REDIRECT,
      ...extra,
    },
  })
}

async function count(collection: string, filter: string): Promise<number> {
  const res = await s.api(
    'GET',
    `/api/collections/${collection}/records?filter=${encodeURIComponent(filter)}`,
    { token: s.suToken },
  )
  expect(res.status).toBe(200)
  return res.body.totalItems as number
}

const tokenIn = (html: string): string =>
  /\/confirm-(?:password-reset|verification)\/([\w.-]+)/.exec(html)?.[1] ?? ''

describe('createData.email against the provider email', () => {
  it('a sign-up asking for another address than the verified one is refused, nothing written', async () => {
    const res = await signIn('mallory', { createData: { email: 'someone-else@example.test' } })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'The createData email differs from the email the OAuth2 provider verified: leave it out to sign up with the provider email.',
    )
    expect(await count('users', 'email = "someone-else@example.test"')).toBe(0)
    expect(await count('_externalAuths', 'providerId = "mallory"')).toBe(0)
  })

  it('the same address in another case, or none, signs up with the verified email', async () => {
    const same = await signIn('trudy', { createData: { email: 'TRUDY@example.test' } })
    expect(same.status, JSON.stringify(same.body)).toBe(200)
    expect(String(same.body.record.email).toLowerCase()).toBe('trudy@example.test')
    const none = await signIn('walter', { createData: { name: 'Walter' } })
    expect(none.status, JSON.stringify(none.body)).toBe(200)
    expect(none.body.record).toMatchObject({ email: 'walter@example.test', verified: true })
  })
})

describe('proving an email removes the OAuth2 links made before', () => {
  /** The attacker's provider account has no email: the sign-up keeps createData's, unverified. */
  async function preHijack(login: string, victim: string) {
    oidc.accounts.set(login, { email: undefined, email_verified: false })
    const res = await signIn(login, { createData: { email: victim } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.record).toMatchObject({ email: victim, verified: false })
    expect(await count('_externalAuths', `providerId = "${login}"`)).toBe(1)
    return res.body.record.id as string
  }

  it('by a password reset: the attacker signs in to a new account, not the victim’s', async () => {
    const victimId = await preHijack('eve', 'victim@example.test')
    const req = await s.api('POST', '/api/collections/users/request-password-reset', {
      body: { email: 'victim@example.test' },
    })
    expect(req.status).toBe(204)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('victim@example.test') && tokenIn(m.html) !== '',
    )
    const reset = await s.api('POST', '/api/collections/users/confirm-password-reset', {
      body: {
        token: tokenIn(mail.html),
        password: 'victim-pass-1',
        passwordConfirm: 'victim-pass-1',
      },
    })
    expect(reset.status, JSON.stringify(reset.body)).toBe(204)
    expect(await count('_externalAuths', `recordRef = "${victimId}"`)).toBe(0)
    const again = await signIn('eve', { createData: { email: 'eve@example.test' } })
    expect(again.status, JSON.stringify(again.body)).toBe(200)
    expect(again.body.record.id).not.toBe(victimId)
    const victim = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'victim@example.test', password: 'victim-pass-1' },
    })
    expect(victim.status).toBe(200)
    expect(victim.body.record).toMatchObject({ id: victimId, verified: true })
  })

  it('by a verification link', async () => {
    const victimId = await preHijack('oscar', 'victim2@example.test')
    const req = await s.api('POST', '/api/collections/users/request-verification', {
      body: { email: 'victim2@example.test' },
    })
    expect(req.status).toBe(204)
    const mail = await smtp.waitForMail(
      (m) => m.to.includes('victim2@example.test') && tokenIn(m.html) !== '',
    )
    const ok = await s.api('POST', '/api/collections/users/confirm-verification', {
      body: { token: tokenIn(mail.html) },
    })
    expect(ok.status, JSON.stringify(ok.body)).toBe(204)
    expect(await count('_externalAuths', `recordRef = "${victimId}"`)).toBe(0)
    const again = await signIn('oscar', { createData: { email: 'oscar@example.test' } })
    expect(again.status).toBe(200)
    expect(again.body.record.id).not.toBe(victimId)
  })

  it('when a superuser marks the record verified; an already verified record keeps its links', async () => {
    const victimId = await preHijack('peggy', 'victim3@example.test')
    const upd = await s.api('PATCH', `/api/collections/users/records/${victimId}`, {
      token: s.suToken,
      body: { verified: true },
    })
    expect(upd.status).toBe(200)
    expect(await count('_externalAuths', `recordRef = "${victimId}"`)).toBe(0)
    // A record verified when its link was made keeps it through later updates.
    const linked = await signIn('victor')
    expect(linked.status).toBe(200)
    expect(linked.body.record.verified).toBe(true)
    const linkedId = linked.body.record.id as string
    const name = await s.api('PATCH', `/api/collections/users/records/${linkedId}`, {
      token: s.suToken,
      body: { verified: true, name: 'still linked' },
    })
    expect(name.status).toBe(200)
    expect(await count('_externalAuths', `recordRef = "${linkedId}"`)).toBe(1)
  })
})
