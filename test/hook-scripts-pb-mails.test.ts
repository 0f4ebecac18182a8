/**
 * `$mails`, `new MailerMessage({...})` + `$app.newMailClient().send(…)`, `onMailerSend` and the
 * `onMailerRecord…Send` hooks of `*.pb.js` files: the same `mails.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/mails.json`, recorded by `test/pocketbase/hooks/record.ts`, with its
 * mail sent to an SMTP listener of the recorder) and here sends the same mails to the same kind
 * of listener: senders, recipients, subjects (changed by the hooks) and HTML (tokens masked);
 * a hook that skips `e.next()` sends nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'
import { useSmtp } from './pocketbase/hooks/ask.js'
import { mailsSuite, SU } from './pocketbase/hooks/cases.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(mailsSuite)

/** Where svcbase's answer body differs on purpose (the mails sent are still compared). */
const BODY_DIFFERS: Record<string, string> = {
  'MailerMessage and newMailClient':
    'a send is queued until the handler returns (docs/hook-scripts.md), so the answer shows the message before onMailerSend changed it',
}

describe('$mails, MailerMessage and the mailer hooks in *.pb.js files, as PocketBase', () => {
  let s: HooksServer
  let smtp: TestSmtp
  beforeAll(async () => {
    smtp = await startSmtp()
    s = await startSuiteServer(mailsSuite)
    await useSmtp(s.url, smtp, SU)
  })
  afterAll(async () => {
    await s.close()
    await smtp.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  // In order: each case sees what the ones before it wrote.
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    const svc = await replay(s, pb, smtp)
    const why = BODY_DIFFERS[pb.name]
    if (why) expect({ ...svc, body: pb.body }, why).toEqual(pb)
    else expect(svc).toEqual(pb)
  })

  it('sends tokens the auth endpoints take: a $mails reset link resets, a verification link verifies', async () => {
    const tokenOf = async (kind: 'reset' | 'verify') => {
      const before = smtp.mails.length
      expect((await s.api('POST', `/mails/${kind}/a@example.com`)).status).toBe(200)
      const mail = await smtp.waitForMail((m) => smtp.mails.indexOf(m) >= before)
      return /\/(eyJ[\w-]+\.[\w-]+\.[\w-]+)"/.exec(mail.html)?.[1] ?? 'no token'
    }
    const reset = await s.api('POST', '/api/collections/users/confirm-password-reset', {
      body: {
        token: await tokenOf('reset'),
        password: 'another-pass-1',
        passwordConfirm: 'another-pass-1',
      },
    })
    expect(reset.status).toBe(204)
    const signIn = await s.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: 'a@example.com', password: 'another-pass-1' },
    })
    expect(signIn.status).toBe(200)
    const verify = await s.api('POST', '/api/collections/users/confirm-verification', {
      body: { token: await tokenOf('verify') },
    })
    expect(verify.status).toBe(204)
    const me = await s.api('POST', '/api/collections/users/auth-refresh', {
      token: signIn.body.token,
    })
    expect(me.body.record.verified).toBe(true)
  })
})
