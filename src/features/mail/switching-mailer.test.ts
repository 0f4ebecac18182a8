import { createServer, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { LogMailer, type MailMessage } from '../../core/mail.js'
import { silentLogger } from '../../core/logger.js'
import { SwitchingMailer } from './switching-mailer.js'
import { SmtpMailer, smtpConfigOf } from './smtp-mailer.js'

const message: MailMessage = {
  from: { address: 'from@example.com', name: 'From' },
  to: [{ address: 'to@example.com' }],
  subject: 'Hi',
  html: '<p>Hi</p>',
}

describe('SwitchingMailer', () => {
  it('uses the fallback while disabled and rebuilds SMTP only when a value changes', () => {
    const fallback = new LogMailer(silentLogger)
    let smtp: Record<string, unknown> = { enabled: false, host: 'mail.test', port: 25 }
    const mailer = new SwitchingMailer(() => smtp, fallback)
    expect(mailer.current()).toBe(fallback)

    smtp = { ...smtp, enabled: true, password: 'a' }
    const first = mailer.current()
    expect(first).toBeInstanceOf(SmtpMailer)
    smtp = { ...smtp }
    expect(mailer.current()).toBe(first)
    smtp = { ...smtp, password: 'b' }
    const second = mailer.current()
    expect(second).not.toBe(first)
    smtp = { ...smtp, enabled: false }
    expect(mailer.current()).toBe(fallback)
  })

  it('reads settings.smtp defensively', () => {
    expect(smtpConfigOf({ port: '2525', authMethod: 'login', tls: 'yes', host: ' h ' })).toEqual({
      host: 'h',
      port: 2525,
      username: '',
      password: '',
      authMethod: 'LOGIN',
      tls: false,
      localName: '',
    })
    expect(smtpConfigOf({ port: -1, authMethod: 'CRAM-MD5' })).toMatchObject({
      port: 587,
      authMethod: '',
    })
  })
})

describe('SmtpMailer', () => {
  it('gives up on a server that accepts the connection but never greets', async () => {
    const sockets: Socket[] = []
    const silent = createServer((s) => sockets.push(s))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const address = silent.address()
    if (!address || typeof address !== 'object') throw new Error('no port')
    const mailer = new SmtpMailer(smtpConfigOf({ host: '127.0.0.1', port: address.port }), {
      connection: 500,
      greeting: 500,
      socket: 500,
      dns: 500,
    })
    const started = Date.now()
    try {
      await expect(mailer.send(message)).rejects.toThrow(/greeting|timeout/i)
      expect(Date.now() - started).toBeLessThan(3000)
    } finally {
      for (const s of sockets) s.destroy()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })

  it('refuses to send with an empty host instead of trying localhost', async () => {
    const mailer = new SmtpMailer(smtpConfigOf({ host: '' }))
    await expect(mailer.send(message)).rejects.toThrow('smtp.host is empty')
  })
})
