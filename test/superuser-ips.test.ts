import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

const FORBIDDEN = {
  code: 403,
  status: 403,
  message: 'You are not allowed to perform this request.',
  data: {},
}

describe('superuser IP allow-list', () => {
  let t: TestServer
  let userToken: string

  const from: TestServer['from'] = (...args) => t.from(...args)
  const suSignIn = (ip: string, collection = '_superusers', headers?: Record<string, string>) =>
    from(ip, 'POST', `/api/collections/${collection}/auth-with-password`, {
      body: { identity: SU_EMAIL, password: SU_PASSWORD },
      headers,
    })
  /** Writes settings from loopback (allowed, as 127.0.0.1 stays listed) and checks the result. */
  const setSettings = async (patch: Record<string, unknown>, ip = '127.0.0.1') => {
    const res = await from(ip, 'PATCH', '/api/settings', { token: t.suToken, body: patch })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body
  }

  beforeAll(async () => {
    t = await startServer()
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'u@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(async () => {
    await t.close()
  })
  beforeEach(async () => {
    await setSettings({
      superuserIPs: ['127.0.0.1', '10.1.2.3', '192.168.0.0/16', '2001:db8::/32'],
      trustedProxy: { headers: [], useLeftmostIP: false },
    })
  })

  it('leaves everything open while the list is empty', async () => {
    await setSettings({ superuserIPs: [] })
    expect((await suSignIn('10.9.9.9')).status).toBe(200)
    expect((await from('10.9.9.9', 'GET', '/api/collections', { token: t.suToken })).status).toBe(
      200,
    )
  })

  it('refuses superuser sign-in from an unlisted IP, allows it from a listed IP or subnet', async () => {
    const denied = await suSignIn('10.9.9.9')
    expect(denied.status).toBe(403)
    expect(denied.body).toEqual(FORBIDDEN)
    expect((await suSignIn('10.1.2.4')).status).toBe(403)
    expect((await suSignIn('10.1.2.3')).status).toBe(200)
    expect((await suSignIn('192.168.44.7')).status).toBe(200)
    expect((await suSignIn('2001:db8:1::5')).status).toBe(200)
    expect((await suSignIn('2001:db9::5')).status).toBe(403)
    const loopback = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: SU_EMAIL, password: SU_PASSWORD },
    })
    expect(loopback.status).toBe(200)
  })

  it('guards the collection by id, by any case of its name, and percent-encoded', async () => {
    for (const name of ['pbc_3142635823', '_SUPERUSERS', '%5Fsuperusers']) {
      const res = await suSignIn('10.9.9.9', name)
      expect(res.status, name).toBe(403)
    }
    for (const name of ['pbc_3142635823', '_SUPERUSERS', '%5Fsuperusers']) {
      const res = await suSignIn('10.1.2.3', name)
      expect(res.status, name).toBe(200)
    }
  })

  it('refuses the other superuser auth endpoints before doing anything', async () => {
    // Even a wrong password or an empty body is refused, not evaluated.
    const wrong = await from(
      '10.9.9.9',
      'POST',
      '/api/collections/_superusers/auth-with-password',
      {
        body: { identity: SU_EMAIL, password: 'nope' },
      },
    )
    expect(wrong.status).toBe(403)
    const refresh = await from('10.9.9.9', 'POST', '/api/collections/_superusers/auth-refresh', {
      token: t.suToken,
    })
    expect(refresh.status).toBe(403)
    const guestRefresh = await from('10.9.9.9', 'POST', '/api/collections/_superusers/auth-refresh')
    expect(guestRefresh.status).toBe(403)
    const allowedRefresh = await from(
      '10.1.2.3',
      'POST',
      '/api/collections/_superusers/auth-refresh',
      {
        token: t.suToken,
      },
    )
    expect(allowedRefresh.status).toBe(200)
  })

  it('refuses a valid superuser token from an unlisted IP on any endpoint', async () => {
    const res = await from('10.9.9.9', 'GET', '/api/collections', { token: t.suToken })
    expect(res.status).toBe(403)
    expect(res.body).toEqual(FORBIDDEN)
    const bearer = await from('10.9.9.9', 'GET', '/api/settings', { token: `Bearer ${t.suToken}` })
    expect(bearer.status).toBe(403)
    const health = await from('10.9.9.9', 'GET', '/api/health', { token: t.suToken })
    expect(health.status).toBe(403)
    const records = await from('10.9.9.9', 'GET', '/api/collections/users/records', {
      token: t.suToken,
    })
    expect(records.status).toBe(403)
    expect((await from('10.1.2.3', 'GET', '/api/collections', { token: t.suToken })).status).toBe(
      200,
    )
    // A superuser token that does not verify is a guest: 401 as usual, not 403.
    const forged = await from('10.9.9.9', 'GET', '/api/collections', { token: 'Bearer nope' })
    expect(forged.status).toBe(401)
  })

  it('does not affect regular users and guests', async () => {
    const signIn = await from('10.9.9.9', 'POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'u@example.com', password: 'password123' },
    })
    expect(signIn.status).toBe(200)
    const list = await from('10.9.9.9', 'GET', '/api/collections/users/records', {
      token: userToken,
    })
    expect(list.status).toBe(200)
    expect(list.body.items).toHaveLength(1)
    const refresh = await from('10.9.9.9', 'POST', '/api/collections/users/auth-refresh', {
      token: userToken,
    })
    expect(refresh.status).toBe(200)
    expect((await from('10.9.9.9', 'GET', '/api/health')).status).toBe(200)
    // The records of _superusers are guarded by their rules and the token check, not the path.
    const suRecords = await from('10.9.9.9', 'GET', '/api/collections/_superusers/records', {
      token: userToken,
    })
    expect(suRecords.status).toBe(403)
    expect(suRecords.body.message).toBe('Only superusers can perform this action.')
  })

  it('takes the client IP from a trusted proxy header: rightmost by default', async () => {
    await setSettings({ trustedProxy: { headers: ['X-Real-IP', 'x-forwarded-for'] } })
    const xff = (value: string) => suSignIn('10.9.9.9', '_superusers', { 'X-Forwarded-For': value })
    expect((await xff('10.1.2.3')).status).toBe(200)
    expect((await xff('10.1.2.3, 10.9.9.8')).status).toBe(403)
    expect((await xff('10.9.9.8, 10.1.2.3')).status).toBe(200)
    expect((await xff('10.9.9.8, 10.1.2.3, not-an-ip')).status).toBe(200)
    // Headers are tried in order: X-Real-IP first.
    const both = await suSignIn('10.9.9.9', '_superusers', {
      'X-Real-IP': '10.9.9.7',
      'X-Forwarded-For': '10.1.2.3',
    })
    expect(both.status).toBe(403)
    // Without a usable header, the TCP peer decides.
    expect((await xff('garbage')).status).toBe(403)
    expect((await suSignIn('10.1.2.3')).status).toBe(200)
    // The superuser sees the resolved IP in the health diagnostics.
    const health = await from('10.9.9.9', 'GET', '/api/health', {
      token: t.suToken,
      headers: { 'x-forwarded-for': '1.1.1.1, 192.168.1.1' },
    })
    expect(health.status).toBe(200)
    expect(health.body.data.realIP).toBe('192.168.1.1')
    // IPv6 is normalized to its expanded form (reference §10.4).
    const v6 = await from('10.9.9.9', 'GET', '/api/health', {
      token: t.suToken,
      headers: { 'x-forwarded-for': '2001:DB8::1' },
    })
    expect(v6.body.data.realIP).toBe('2001:0db8:0000:0000:0000:0000:0000:0001')
  })

  it('takes the leftmost IP with useLeftmostIP', async () => {
    await setSettings({ trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: true } })
    const xff = (value: string) => suSignIn('10.9.9.9', '_superusers', { 'X-Forwarded-For': value })
    expect((await xff('10.1.2.3, 10.9.9.8')).status).toBe(200)
    expect((await xff('10.9.9.8, 10.1.2.3')).status).toBe(403)
    expect((await xff('bogus, 10.1.2.3, 10.9.9.8')).status).toBe(200)
  })

  it('ignores proxy headers that are not configured', async () => {
    const spoofed = await suSignIn('10.9.9.9', '_superusers', { 'X-Forwarded-For': '10.1.2.3' })
    expect(spoofed.status).toBe(403)
  })

  it('applies a change on the next request, and clearing the list restores access', async () => {
    // Restrict to one remote IP only: loopback is locked out from the next request on.
    await setSettings({ superuserIPs: ['10.1.2.3'] })
    const locked = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(locked.status).toBe(403)
    expect((await suSignIn('10.1.2.3')).status).toBe(200)
    // Clear it from the allowed IP.
    const cleared = await setSettings({ superuserIPs: [] }, '10.1.2.3')
    expect(cleared.superuserIPs).toEqual([])
    expect((await t.api('GET', '/api/settings', { token: t.suToken })).status).toBe(200)
    expect((await suSignIn('10.9.9.9')).status).toBe(200)
    expect((await from('10.9.9.9', 'GET', '/api/collections', { token: t.suToken })).status).toBe(
      200,
    )
  })
})
