/**
 * SMS (issue 14 part 4) against a real server and a local Twilio-style double that checks Basic
 * auth, the AccountSid path, the form fields and the numbers: the test endpoint with the
 * provider on and off (log backend), write-only `authToken`, guards, provider errors, the
 * `sms` service and `onSmsSend` from a hook script, and OTP codes by SMS.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { startTwilioDouble, type TwilioDouble } from './sms-twilio-double.js'

const SCRIPT = `
export default (app) => {
  app.routerAdd('POST', '/api/hello-sms', async (e) => {
    const body = e.requestInfo.body
    const result = await app.services.get('sms').send({ to: body.to, body: body.text })
    e.json(200, result)
  })
  app.onSmsSend(async (e) => {
    if (e.message.body.includes('[drop]')) return
    e.message.body = e.message.body.replace('{shout}', 'HELLO')
    await e.next()
  })
}
`

describe('SMS', () => {
  let t: HooksServer
  let twilio: TwilioDouble
  let userToken: string

  const enable = (over: Record<string, unknown> = {}) =>
    t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: {
        sms: {
          enabled: true,
          accountSid: twilio.accountSid,
          authToken: twilio.authToken,
          fromNumber: '+15005550006',
          apiUrl: twilio.url,
          ...over,
        },
      },
    })
  const disable = () =>
    t.api('PATCH', '/api/settings', { token: t.suToken, body: { sms: { enabled: false } } })
  const testSms = (body: unknown, token: string | undefined = t.suToken) =>
    t.api('POST', '/api/settings/test/sms', { token, body })

  beforeAll(async () => {
    twilio = await startTwilioDouble()
    t = await startHooksServer({ 'sms.js': SCRIPT })
    await t.api('POST', '/api/collections/users/records', {
      body: { email: 'plain@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'plain@example.com', password: 'password123' },
    })
    userToken = login.body.token
  })
  afterAll(async () => {
    await t?.close()
    await twilio?.close()
  })

  it('has an sms settings group with apiUrl, never returning the auth token', async () => {
    const before = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(before.body.sms).toMatchObject({ enabled: false, apiUrl: 'https://api.twilio.com' })
    const res = await enable()
    expect(res.status, res.text).toBe(200)
    expect(res.text).not.toContain(twilio.authToken)
    const read = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(read.body.sms).toMatchObject({ enabled: true, apiUrl: twilio.url })
    expect(read.text).not.toContain(twilio.authToken)
    const bad = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { sms: { apiUrl: 'not a url' } },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.data.sms.apiUrl.code).toBe('validation_is_url')
    await disable()
  })

  it('guards the test endpoint: 401 without a token, 403 for a user', async () => {
    const none = await t.api('POST', '/api/settings/test/sms', { body: { to: '+14155550100' } })
    expect(none.status).toBe(401)
    expect((await testSms({ to: '+14155550100' }, userToken)).status).toBe(403)
    expect(twilio.requests).toHaveLength(0)
  })

  it('refuses a missing or non-E.164 number with a field error', async () => {
    for (const [to, code] of [
      [undefined, 'validation_required'],
      ['', 'validation_required'],
      ['4155550100', 'validation_match_invalid'],
      ['+0123', 'validation_match_invalid'],
      ['+1415555010012345', 'validation_match_invalid'],
      [14155550100, 'validation_match_invalid'],
    ] as const) {
      const res = await testSms({ to })
      expect(res.status, String(to)).toBe(400)
      expect(res.body.message).toBe('Failed to send the test SMS.')
      expect(res.body.data.to.code, String(to)).toBe(code)
    }
    expect(twilio.requests).toHaveLength(0)
  })

  it('writes the SMS to the log while SMS is disabled', async () => {
    const res = await testSms({ to: '+14155550100' })
    expect(res.status, res.text).toBe(204)
    const line = t.logs.find((l) => l.message.startsWith('sms (log backend'))
    expect(line?.data).toMatchObject({ to: '+14155550100' })
    expect(String(line?.data.body)).toContain('test SMS')
    expect(twilio.requests).toHaveLength(0)
  })

  it('sends through the Twilio-style API while enabled', async () => {
    await enable()
    const res = await testSms({ to: '+14155550123' })
    expect(res.status, res.text).toBe(204)
    expect(twilio.received.at(-1)).toMatchObject({ to: '+14155550123', from: '+15005550006' })
    expect(twilio.received.at(-1)!.body).toContain('test SMS')
    expect(twilio.requests.at(-1)!.path).toBe(
      `/2010-04-01/Accounts/${twilio.accountSid}/Messages.json`,
    )
  })

  it("answers 400 with the provider's message and code when it refuses", async () => {
    await enable()
    twilio.stopped.add('+14155550999')
    const stopped = await testSms({ to: '+14155550999' })
    expect(stopped.status).toBe(400)
    expect(stopped.body.message).toContain('Failed to send the test SMS. Raw error:')
    expect(stopped.body.message).toContain('Attempt to send to unsubscribed recipient')
    expect(stopped.body.message).toContain('21610')

    await enable({ authToken: 'wrong-token' })
    const denied = await testSms({ to: '+14155550123' })
    expect(denied.status).toBe(400)
    expect(denied.body.message).toContain('401')
    expect(denied.body.message).toContain('20003')
    expect(denied.text).not.toContain('wrong-token')

    await enable({ apiUrl: 'http://127.0.0.1:9' })
    const down = await testSms({ to: '+14155550123' })
    expect(down.status).toBe(400)
    expect(down.body.message).toContain('could not be reached')
    await enable()
  })

  it('is reachable from hook scripts, with onSmsSend around every send', async () => {
    await enable()
    const sent = await t.api('POST', '/api/hello-sms', {
      body: { to: '+447700900123', text: 'script says {shout}' },
    })
    expect(sent.status, sent.text).toBe(200)
    expect(sent.body.sid).toMatch(/^SM[0-9a-f]{32}$/)
    expect(twilio.received.at(-1)).toMatchObject({
      sid: sent.body.sid,
      to: '+447700900123',
      body: 'script says HELLO',
    })
    const count = twilio.received.length
    const dropped = await t.api('POST', '/api/hello-sms', {
      body: { to: '+447700900123', text: 'nothing [drop]' },
    })
    expect(dropped.status).toBe(200)
    expect(dropped.body).toEqual({ sid: null })
    expect(twilio.received).toHaveLength(count)
    const bad = await t.api('POST', '/api/hello-sms', { body: { to: '123', text: '' } })
    expect(bad.status).toBe(400)
    expect(bad.body.data.to.code).toBe('validation_match_invalid')
    expect(bad.body.data.body.code).toBe('validation_required')
    const long = await t.api('POST', '/api/hello-sms', {
      body: { to: '+447700900123', text: 'x'.repeat(1601) },
    })
    expect(long.status).toBe(400)
    expect(long.body.data.body.code).toBe('validation_length_too_long')
  })

  it('validates authOptions.otp.smsField: an existing text field', async () => {
    const create = (smsField: unknown, name: string) =>
      t.api('POST', '/api/collections', {
        token: t.suToken,
        body: {
          name,
          type: 'auth',
          fields: [
            { name: 'phone', type: 'text' },
            { name: 'age', type: 'number' },
          ],
          authOptions: { otp: { enabled: true, smsField } },
        },
      })
    for (const field of ['nope', 'age', 5]) {
      const res = await create(field, 'badphones')
      expect(res.status, String(field)).toBe(400)
      expect(res.body.data.authOptions.otp.smsField).toEqual({
        code: 'validation_in_invalid',
        message: 'Must be the name of a text field of the collection.',
      })
    }
    const ok = await create('phone', 'okphones')
    expect(ok.status, ok.text).toBe(200)
    expect(ok.body.otp.smsField ?? ok.body.authOptions?.otp.smsField).toBe('phone')
    // Removing the field the option names is refused too.
    const drop = await t.api('PATCH', '/api/collections/okphones', {
      token: t.suToken,
      body: { fields: ok.body.fields.filter((f: { name: string }) => f.name !== 'phone') },
    })
    expect(drop.status).toBe(400)
    expect(drop.body.data.authOptions.otp.smsField.code).toBe('validation_in_invalid')
  })

  it('sends OTP codes by SMS to the phone field, and they sign in', async () => {
    await enable()
    const created = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'members',
        type: 'auth',
        createRule: '',
        fields: [{ name: 'phone', type: 'text' }],
        authOptions: { otp: { enabled: true, length: 6, smsField: 'phone' } },
      },
    })
    expect(created.status, created.text).toBe(200)
    const member = await t.api('POST', '/api/collections/members/records', {
      body: {
        email: 'phone@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
        phone: '+14155550142',
      },
    })
    expect(member.status, member.text).toBe(200)
    const arrived = twilio.next()
    const req = await t.api('POST', '/api/collections/members/request-otp', {
      body: { email: 'phone@example.com' },
    })
    expect(req.status).toBe(200)
    expect(req.body.otpId).toMatch(/^[a-z0-9]{15}$/)
    const sms = await arrived
    expect(sms.to).toBe('+14155550142')
    expect(sms.from).toBe('+15005550006')
    const code = /(\d{6})/.exec(sms.body)![1]!
    // Once sent, the OTP records the number it went to (not the email).
    const sentTo = async () =>
      (
        await t.api('POST', '/api/sql', {
          token: t.suToken,
          body: { sql: `SELECT "sentTo" FROM _otps WHERE id = '${String(req.body.otpId)}'` },
        })
      ).body.rows?.[0]?.sentTo as string | undefined
    await expect.poll(sentTo, { timeout: 5000 }).toBe('+14155550142')
    const ok = await t.api('POST', '/api/collections/members/auth-with-otp', {
      body: { otpId: req.body.otpId, password: code },
    })
    expect(ok.status, ok.text).toBe(200)
    expect(ok.body.record.email).toBe('phone@example.com')
    // The code went to the phone: the email is not proven by it.
    expect(ok.body.record.verified).toBe(false)
    expect(
      t.logs.some((l) => l.message.startsWith('mail') && l.data.subject === 'OTP for svcbase'),
    ).toBe(false)

    // A member without a phone gets the code by mail (the log backend), not by SMS.
    await t.api('POST', '/api/collections/members/records', {
      body: {
        email: 'nophone@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
      },
    })
    const count = twilio.received.length
    const mailed = await t.api('POST', '/api/collections/members/request-otp', {
      body: { email: 'nophone@example.com' },
    })
    expect(mailed.status).toBe(200)
    await expect
      .poll(() =>
        t.logs.some(
          (l) =>
            l.message.startsWith('mail') &&
            (l.data.to as string[] | undefined)?.includes('nophone@example.com'),
        ),
      )
      .toBe(true)
    expect(twilio.received).toHaveLength(count)
  })
})

describe('SMS feature disabled', () => {
  let t: HooksServer
  beforeAll(async () => {
    t = await startHooksServer({}, { disable: ['sms'] })
  })
  afterAll(async () => t?.close())

  it('has no test route and mails OTP codes even with smsField set', async () => {
    const res = await t.api('POST', '/api/settings/test/sms', {
      token: t.suToken,
      body: { to: '+14155550100' },
    })
    expect(res.status).toBe(404)
    expect(t.server.app.services.find('sms')).toBeUndefined()
    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'members',
        type: 'auth',
        createRule: '',
        fields: [{ name: 'phone', type: 'text' }],
        authOptions: { otp: { enabled: true, smsField: 'phone' } },
      },
    })
    await t.api('POST', '/api/collections/members/records', {
      body: {
        email: 'p@example.com',
        password: 'password123',
        passwordConfirm: 'password123',
        phone: '+14155550142',
      },
    })
    const req = await t.api('POST', '/api/collections/members/request-otp', {
      body: { email: 'p@example.com' },
    })
    expect(req.status).toBe(200)
    await expect
      .poll(() =>
        t.logs.some(
          (l) =>
            l.message.startsWith('mail') &&
            (l.data.to as string[] | undefined)?.includes('p@example.com'),
        ),
      )
      .toBe(true)
  })
})
