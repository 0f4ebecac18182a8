import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/create-app.js'
import { silentLogger } from '../src/core/logger.js'
import { LogMailer, type Mailer, type MailMessage } from '../src/core/mail.js'
import { startServer, type TestServer } from './helpers/server.js'

/** A mailer that keeps every message. */
function capturingMailer(): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = []
  return {
    sent,
    send(message) {
      sent.push(message)
      return Promise.resolve()
    },
  }
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20))
}

describe('services registry of an app', () => {
  it('starts with the log mailer and nothing else', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-services-'))
    const app = await createApp({ dataDir: dir, logger: silentLogger })
    try {
      expect(app.services.get('mailer')).toBeInstanceOf(LogMailer)
      expect(app.services.names()).toEqual(['mailer'])
    } finally {
      await app.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })

  describe('in a composed server', () => {
    let t: TestServer
    beforeAll(async () => {
      t = await startServer()
    })
    afterAll(() => t.close())

    it('holds what the features offer, under their names', async () => {
      const { services } = t.server.app
      expect(services.names()).toEqual(
        expect.arrayContaining(['logs', 'mailer', 'messenger', 'metrics']),
      )
      // The mail feature replaced the log backend with the one that follows settings.smtp.
      expect(services.get('mailer')).not.toBeInstanceOf(LogMailer)
      expect(services.get('logs').job.id).toBe('__svcLogsCleanup__')
      expect(await services.get('messenger').sendToClient('no-such-client', 'llm_done', {})).toBe(
        false,
      )
    })

    it('sends the auth mails and the test email through the mailer it finds there', async () => {
      const { services } = t.server.app
      const original = services.get('mailer')
      const mailer = capturingMailer()
      services.set('mailer', mailer)
      try {
        const created = await t.api('POST', '/api/collections/users/records', {
          body: {
            email: 'reg@example.com',
            password: 'password123',
            passwordConfirm: 'password123',
          },
        })
        expect(created.status).toBe(200)
        const reset = await t.api('POST', '/api/collections/users/request-password-reset', {
          body: { email: 'reg@example.com' },
        })
        expect(reset.status).toBe(204)
        await until(() => mailer.sent.length >= 1)
        expect(mailer.sent[0]?.to).toEqual([{ address: 'reg@example.com' }])

        const test = await t.api('POST', '/api/settings/test/email', {
          token: t.suToken,
          body: { email: 'probe@example.com', template: 'verification' },
        })
        expect(test.status).toBe(204)
        await until(() => mailer.sent.length >= 2)
        expect(mailer.sent[1]?.to).toEqual([{ address: 'probe@example.com' }])
      } finally {
        services.set('mailer', original)
      }
    })
  })
})
