/**
 * Settings take effect: a change applies on the very next request (the test email), and the
 * stored row is encrypted at rest when the app has an encryption key.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppConfig } from '../src/core/app.js'
import { silentLogger } from '../src/core/logger.js'
import { createServer, type Server } from '../src/server.js'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

describe('settings apply on the next request', () => {
  let t: TestServer
  let smtp: TestSmtp

  beforeAll(async () => {
    t = await startServer()
    smtp = await startSmtp()
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const patch = async (body: unknown) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const testEmail = async (email: string) => {
    const res = await t.api('POST', '/api/settings/test/email', {
      token: t.suToken,
      body: { email, template: 'verification' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
    return smtp.waitForMail((m) => m.to.includes(email))
  }

  it('uses a changed meta.appName, sender and appURL in the very next test email', async () => {
    await patch({
      meta: {
        appName: 'First Name',
        senderName: 'First Sender',
        senderAddress: 'first@example.com',
      },
      smtp: { enabled: true, host: smtp.host, port: smtp.port },
    })
    const first = await testEmail('one@example.com')
    expect(first.subject).toBe('Verify your First Name email')
    expect(first.fromHeader).toContain('first@example.com')
    expect(first.fromHeader).toContain('First Sender')

    await patch({ meta: { appName: 'Second Name', appURL: 'https://second.example.com' } })
    const second = await testEmail('two@example.com')
    expect(second.subject).toBe('Verify your Second Name email')
    expect(second.html).toContain('Second Name team')
    expect(second.html).toContain('https://second.example.com/_/#/auth/confirm-verification/')
    expect(second.html).not.toContain('First Name')
  })
})

describe('settings encrypted at rest (AppConfig.encryptionKey)', () => {
  // NB: needs createApp to pass `config.encryptionKey` to the SettingsService.
  const dir = mkdtempSync(join(tmpdir(), 'svcbase-enc-'))
  const servers: Server[] = []
  const start = async (encryptionKey?: string) => {
    const config = { dataDir: dir, logger: silentLogger, encryptionKey } as AppConfig
    const server = await createServer(config)
    servers.push(server)
    return server
  }
  afterAll(async () => {
    for (const s of servers) await s.close().catch(() => undefined)
    rmSync(dir, { recursive: true, force: true })
  })

  it('stores the settings row encrypted and reads it back only with the key', async () => {
    const server = await start('an operator secret')
    await server.app.settings.update({
      smtp: { password: 'pw-not-in-plaintext' },
      meta: { appName: 'Hidden Name' },
    })
    const row = await server.app.db.get<{ value: string }>(
      sql`SELECT value FROM _params WHERE id = 'settings'`,
    )
    expect(row?.value).toBeDefined()
    expect(row!.value).not.toContain('pw-not-in-plaintext')
    expect(row!.value).not.toContain('Hidden Name')
    await server.close()

    const again = await start('an operator secret')
    expect(again.app.settings.get().smtp.password).toBe('pw-not-in-plaintext')
    expect(again.app.settings.get().meta.appName).toBe('Hidden Name')
    await again.close()

    await expect(start()).rejects.toThrow(/encrypted/)
    await expect(start('another secret')).rejects.toThrow(/Cannot decrypt/)
  })
})
