/**
 * The dashboard's settings pages in a real browser: the app name and accent colour (saved through
 * the API and applied to the page at once), field errors under the inputs, the SMTP password as a
 * write-only secret ("set", never in the page) used by a test email to a real SMTP listener, API
 * keys (shown once, usable, revoked), a webhook created in the page and delivered to a local
 * receiver, and the MCP playground (tools listed, one called). Also `GET /api/settings/secrets`.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openPage, type TestPage } from './helpers/browser.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

const SMTP_USER = 'mailer'
const SMTP_SECRET = 'smtp-Pa55word-never-shown'

let browser: Browser
let t: TestServer
let smtp: TestSmtp
let auth: { token: string; record: unknown }
let receiver: Server
let receiverUrl = ''
const received: { body: string; headers: Record<string, unknown> }[] = []
/** The status the receiver answers. */
let answer = 204

beforeAll(async () => {
  browser = await launchBrowser()
  t = await startServer()
  smtp = await startSmtp({ user: SMTP_USER, pass: SMTP_SECRET })
  const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: SU_EMAIL, password: SU_PASSWORD },
  })
  auth = { token: login.body.token, record: login.body.record }
  const posts = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: { name: 'posts', fields: [{ name: 'title', type: 'text', required: true }] },
  })
  expect(posts.status).toBe(200)
  receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      received.push({ body, headers: req.headers })
      res.writeHead(answer).end()
    })
  })
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok))
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
  await smtp?.close()
  await new Promise((ok) => receiver?.close(ok))
})

/** A signed-in page at `hash`, checked afterwards for outside requests and page errors. */
async function withPage(
  hash: string,
  fn: (p: TestPage) => Promise<void>,
  dark = false,
): Promise<void> {
  const p = await openPage(browser, dark ? { colorScheme: 'dark' } : {})
  await p.page.addInitScript(
    `localStorage.setItem('__svc_superusers__/_/', ${JSON.stringify(JSON.stringify(auth))})`,
  )
  // A missing element fails with its locator well before the test's own timeout.
  p.page.setDefaultTimeout(10_000)
  try {
    await p.page.goto(`${t.url}/_/${hash}`)
    await fn(p).catch(async (err: unknown) => {
      await p.shot('settings-failure')
      throw err
    })
    expect(p.outside).toEqual([])
    expect(p.errors).toEqual([])
  } finally {
    await p.close()
  }
}

async function settings(): Promise<Record<string, Record<string, unknown>>> {
  const res = await t.api('GET', '/api/settings', { token: t.suToken })
  expect(res.status).toBe(200)
  return res.body
}

describe('GET /api/settings/secrets', () => {
  it('says which write-only keys hold a value, to superusers only, never the values', async () => {
    expect((await t.api('GET', '/api/settings/secrets')).status).toBe(401)
    const before = await t.api('GET', '/api/settings/secrets', { token: t.suToken })
    expect(before.status).toBe(200)
    expect(before.body['smtp.password']).toBe(false)
    expect(before.body['s3.secret']).toBe(false)
    const patch = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { llm: { apiKey: 'sk-test-value' } },
    })
    expect(patch.status).toBe(200)
    const after = await t.api('GET', '/api/settings/secrets', { token: t.suToken })
    expect(after.body['llm.apiKey']).toBe(true)
    expect(JSON.stringify(after.body)).not.toContain('sk-test-value')
    await t.api('PATCH', '/api/settings', { token: t.suToken, body: { llm: { apiKey: '' } } })
    const cleared = await t.api('GET', '/api/settings/secrets', { token: t.suToken })
    expect(cleared.body['llm.apiKey']).toBe(false)
  })
})

describe('settings pages', () => {
  it('saves the app name and accent colour, applied to the page at once', async () => {
    await withPage('#/settings/application', async (p) => {
      const { page } = p
      await page.getByRole('heading', { name: 'Application', exact: true }).waitFor()
      await page.getByLabel('Application name').fill('Acme Control')
      await page.getByLabel('Accent colour (hex)').fill('#a0147a')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('Application settings saved.').waitFor()
      const accent = await page.evaluate(
        "document.documentElement.style.getPropertyValue('--accent')",
      )
      expect(accent).toBe('#a0147a')
      await p.shot('settings-application')
    })
    const s = await settings()
    expect(s.meta!.appName).toBe('Acme Control')
    expect(s.meta!.accentColor).toBe('#a0147a')
  })

  it('shows the field errors of a refused save under the inputs', async () => {
    await withPage('#/settings/logs', async (p) => {
      const { page } = p
      await page.getByLabel('Keep logs for (days)').fill('-1')
      await page.getByRole('button', { name: 'Save changes' }).click()
      const field = page.locator('.field.has-error', {
        has: page.getByLabel('Keep logs for (days)'),
      })
      await field.locator('.error-text').waitFor()
      expect((await field.locator('.error-text').textContent())?.length).toBeGreaterThan(0)
    })
    expect((await settings()).logs!.maxDays).toBe(5)
  })

  it('sets the SMTP password as a write-only secret and sends a test email with it', async () => {
    await withPage('#/settings/mail', async (p) => {
      const { page } = p
      await page.getByRole('heading', { name: 'Mail', exact: true }).waitFor()
      await page.getByLabel('Use SMTP mail server').check()
      await page.getByLabel('SMTP host').fill(smtp.host)
      await page.getByLabel('Port').fill(String(smtp.port))
      await page.getByLabel('Username').fill(SMTP_USER)
      expect(await page.locator('[data-secret="smtp.password"]').textContent()).toBe('not set')
      await page.getByRole('button', { name: 'Set', exact: true }).click()
      await page.getByLabel('New Password').fill(SMTP_SECRET)
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('Mail settings saved.').waitFor()
      await page.locator('[data-secret="smtp.password"]', { hasText: /^set$/ }).waitFor()
      expect(await page.content()).not.toContain(SMTP_SECRET)

      await page.getByRole('button', { name: 'Send test email' }).click()
      const dialog = page.getByRole('dialog', { name: 'Send test email' })
      await dialog.getByLabel('Template').selectOption('password-reset')
      await dialog.getByLabel('To address').fill('tester@example.com')
      await dialog.getByRole('button', { name: 'Send' }).click()
      await page.getByText('Test email sent to tester@example.com.').waitFor()
      await p.shot('settings-mail')
    })
    const mail = await smtp.waitForMail((m) => m.to.includes('tester@example.com'))
    expect(mail.subject).toMatch(/password/i)
    expect(smtp.auths.some((a) => a.username === SMTP_USER)).toBe(true)
    const s = await settings()
    expect(s.smtp!.host).toBe(smtp.host)
    expect(JSON.stringify(s)).not.toContain(SMTP_SECRET)
    const secrets = await t.api('GET', '/api/settings/secrets', { token: t.suToken })
    expect(secrets.body['smtp.password']).toBe(true)
  })

  it('edits the rate-limit rules table', async () => {
    await withPage('#/settings/rate-limits', async (p) => {
      const { page } = p
      await page.getByRole('button', { name: 'Add rule' }).click()
      await page.getByLabel('Rule 5 label').fill('posts:create')
      await page.getByLabel('Rule 5 max requests').fill('7')
      await page.getByLabel('Rule 5 audience').selectOption('@guest')
      await page.getByRole('button', { name: 'Save changes' }).click()
      await page.getByText('Rate limits settings saved.').waitFor()
    })
    const rules = (await settings()).rateLimits!.rules as Record<string, unknown>[]
    expect(rules[4]).toEqual({
      label: 'posts:create',
      maxRequests: 7,
      duration: 10,
      audience: '@guest',
    })
  })

  it('shows the IP the server resolves, and warns before a superuser IP list locks you out', async () => {
    await withPage('#/settings/trusted-proxy', async (p) => {
      const { page } = p
      await page.getByRole('note').getByText('127.0.0.1').waitFor()
      await page.getByRole('link', { name: 'Superuser IPs' }).click()
      await page.getByLabel('Allowed IPs').fill('10.0.0.1')
      await page.getByText('Your IP is not in the list: saving it locks you out.').waitFor()
      await page.getByLabel('Allowed IPs').fill('10.0.0.1\n127.0.0.1')
      await page.getByText('locks you out').waitFor({ state: 'detached' })
    })
  })

  it('looks right in the dark theme', async () => {
    await withPage(
      '#/settings/storage',
      async (p) => {
        await p.page.getByRole('heading', { name: 'Files storage' }).waitFor()
        await p.page.locator('[data-secret="s3.secret"]').waitFor()
        await p.shot('settings-storage-dark')
      },
      true,
    )
  })
})

describe('API keys', () => {
  it('creates a key shown once, which works, and revokes it', async () => {
    let key = ''
    await withPage('#/api-keys', async (p) => {
      const { page } = p
      await page.getByRole('button', { name: 'New API key' }).click()
      const dialog = page.getByRole('dialog', { name: 'New API key' })
      await dialog.getByLabel('Name').fill('ci-bot')
      await dialog.getByLabel('Expires after').selectOption({ label: '30 days' })
      await dialog.getByRole('button', { name: 'Create key' }).click()
      const shown = page.getByLabel('The new API key')
      await shown.waitFor()
      key = await shown.inputValue()
      expect(key).toMatch(/^svc_/)
      await p.shot('api-keys-created')
      await page.getByRole('button', { name: 'Done' }).click()
      await page.getByRole('cell', { name: 'ci-bot', exact: true }).waitFor()
      expect(await page.content()).not.toContain(key)

      const ok = await t.api('GET', '/api/settings', { token: key })
      expect(ok.status).toBe(200)

      await page.getByRole('button', { name: 'Revoke ci-bot' }).click()
      await page
        .getByRole('dialog', { name: 'Revoke API key' })
        .getByRole('button', { name: 'Revoke' })
        .click()
      await page.getByText('No API keys yet.').waitFor()
    })
    expect((await t.api('GET', '/api/settings', { token: key })).status).toBe(401)
  })
})

describe('webhooks', () => {
  it('creates a webhook in the page and shows its delivery', async () => {
    const allow = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { webhooks: { allowPrivateNetworks: true } },
    })
    expect(allow.status).toBe(200)
    await withPage('#/webhooks', async (p) => {
      const { page } = p
      await page.getByRole('button', { name: 'New webhook' }).click()
      const dialog = page.getByRole('dialog', { name: 'New webhook' })
      await dialog.getByLabel('Name').fill('to receiver')
      await dialog.getByLabel('URL').fill(receiverUrl)
      await dialog.getByLabel('Collection').selectOption('posts')
      await dialog.getByLabel('delete').uncheck()
      await dialog.getByRole('button', { name: 'Create webhook' }).click()
      await page.getByRole('cell', { name: 'to receiver', exact: true }).waitFor()

      const list = await t.api('GET', '/api/collections/_webhooks/records', { token: t.suToken })
      expect(list.body.items).toHaveLength(1)
      expect(list.body.items[0]).toMatchObject({
        name: 'to receiver',
        url: receiverUrl,
        collection: 'posts',
        events: 'create,update',
        enabled: true,
      })
      expect(list.body.items[0].secret).toBeUndefined()

      const made = await t.api('POST', '/api/collections/posts/records', {
        token: t.suToken,
        body: { title: 'hello hooks' },
      })
      expect(made.status).toBe(200)
      await expect
        .poll(
          async () => {
            const r = await t.api('GET', '/api/collections/_webhooks/records', { token: t.suToken })
            return r.body.items[0].lastStatus as string
          },
          { timeout: 15_000 },
        )
        .toBe('204')
      expect(JSON.parse(received[0]!.body)).toMatchObject({ event: 'create', collection: 'posts' })
      await page.getByRole('button', { name: 'Refresh' }).click()
      await page.getByText('204 OK').waitFor()
      await page.getByRole('button', { name: 'Pending deliveries of to receiver' }).click()
      await page.getByText('No pending deliveries.').waitFor()
      await p.shot('webhooks-list')

      await page.getByRole('button', { name: 'Edit to receiver' }).click()
      const edit = page.getByRole('dialog', { name: 'Edit webhook to receiver' })
      await edit.getByLabel('Enabled').uncheck()
      await edit.getByRole('button', { name: 'Save webhook' }).click()
      await page.getByRole('cell', { name: 'no', exact: true }).waitFor()
      const edited = await t.api('GET', '/api/collections/_webhooks/records', {
        token: t.suToken,
      })
      expect(edited.body.items[0]).toMatchObject({ enabled: false, url: receiverUrl })

      await page.getByRole('button', { name: 'Delete to receiver' }).click()
      await page
        .getByRole('dialog', { name: 'Delete webhook' })
        .getByRole('button', { name: 'Delete' })
        .click()
      await page.getByText('No webhooks yet.').waitFor()
    })
    const after = await t.api('GET', '/api/collections/_webhooks/records', { token: t.suToken })
    expect(after.body.items).toHaveLength(0)
  })
})

describe('webhook retries', () => {
  it('retries a pending delivery now from the page (POST /api/webhooks/deliveries/{id}/retry)', async () => {
    expect((await t.api('POST', '/api/webhooks/deliveries/nothere/retry')).status).toBe(401)
    const unknown = await t.api('POST', '/api/webhooks/deliveries/nothere/retry', {
      token: t.suToken,
    })
    expect(unknown.status).toBe(404)
    const hook = await t.api('POST', '/api/collections/_webhooks/records', {
      token: t.suToken,
      body: {
        name: 'flaky',
        url: receiverUrl,
        collection: 'posts',
        enabled: true,
        secret: 'whsec_BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcH',
      },
    })
    expect(hook.status, JSON.stringify(hook.body)).toBe(200)
    answer = 500
    const made = await t.api('POST', '/api/collections/posts/records', {
      token: t.suToken,
      body: { title: 'will fail first' },
    })
    expect(made.status).toBe(200)
    const lastStatus = async () =>
      (
        await t.api('GET', `/api/collections/_webhooks/records/${hook.body.id}`, {
          token: t.suToken,
        })
      ).body.lastStatus as string
    await expect.poll(lastStatus, { timeout: 15_000 }).toBe('500')
    answer = 204
    await withPage('#/webhooks', async (p) => {
      const { page } = p
      await page.getByText('500 failed').waitFor()
      await page.getByRole('button', { name: 'Pending deliveries of flaky' }).click()
      const retry = page.getByRole('button', { name: /^Retry delivery .* now$/ })
      await retry.waitFor()
      await retry.click()
      await page.getByText('The delivery is being sent again.').waitFor()
      await expect.poll(lastStatus, { timeout: 15_000 }).toBe('204')
      await page.getByRole('button', { name: 'Refresh' }).click()
      await page.getByText('204 OK').waitFor()
    })
    const outbox = await t.api('GET', '/api/collections/_webhook_outbox/records', {
      token: t.suToken,
    })
    expect(outbox.body.items).toHaveLength(0)
  })
})

describe('MCP playground', () => {
  it('lists the tools for the superuser and calls one', async () => {
    await withPage('#/mcp', async (p) => {
      const { page } = p
      await page.getByRole('button', { name: 'List tools' }).click()
      const tool = page.getByLabel('Tool', { exact: true })
      await tool.waitFor()
      const names = await tool.locator('option').allTextContents()
      expect(names).toEqual(expect.arrayContaining(['list_posts', 'create_posts', 'list_users']))
      await tool.selectOption('create_posts')
      await page.getByLabel('title (required)').fill('from the playground')
      await page.getByRole('button', { name: 'Call create_posts' }).click()
      await page.getByLabel('Result').filter({ hasText: 'from the playground' }).waitFor()
      const transcript = await page.locator('.mcp-transcript').textContent()
      expect(transcript).toContain('"tools/list"')
      expect(transcript).toContain('"tools/call"')
      await p.shot('mcp-playground')
    })
    const found = await t.api(
      'GET',
      `/api/collections/posts/records?filter=${encodeURIComponent("title='from the playground'")}`,
      {
        token: t.suToken,
      },
    )
    expect(found.body.items).toHaveLength(1)
  })

  it('lists the tools for a pasted API key', async () => {
    const minted = await t.api('POST', '/api/api-keys', {
      token: t.suToken,
      body: { name: 'agent' },
    })
    expect(minted.status).toBe(200)
    await withPage('#/mcp', async (p) => {
      const { page } = p
      await page.getByLabel('Act as').selectOption('key')
      await page.getByLabel('API key or token').fill(minted.body.key)
      await page.getByRole('button', { name: 'List tools' }).click()
      const tool = page.getByLabel('Tool', { exact: true })
      await tool.waitFor()
      expect(await tool.locator('option').allTextContents()).toContain('delete_posts')
      await tool.selectOption('list_posts')
      await page.getByLabel('perPage').fill('1')
      await page.getByRole('button', { name: 'Call list_posts' }).click()
      await page.getByLabel('Result').filter({ hasText: '"perPage": 1' }).waitFor()
      expect(await page.locator('.mcp-transcript').textContent()).not.toContain(minted.body.key)
    })
  })

  it('lists only what a guest may use', async () => {
    await withPage('#/mcp', async (p) => {
      const { page } = p
      await page.getByLabel('Act as').selectOption('guest')
      await page.getByRole('button', { name: 'List tools' }).click()
      await page
        .getByRole('heading', { name: /^Tools/ })
        .filter({ hasText: '(' })
        .waitFor()
      // posts has no rules (superusers only): a guest sees none of its tools.
      const options = page.getByLabel('Tool', { exact: true }).locator('option')
      expect(await options.allTextContents()).not.toContain('create_posts')
    })
  })
})
