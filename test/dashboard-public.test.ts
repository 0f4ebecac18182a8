/**
 * The dashboard at `/_/` in a real browser (headless Chromium): how it is served (caching,
 * compression, CSP, a clear 503 when not built), the first-run installer, sign-in and sign-out,
 * and the public pages e-mails link to, completing real e-mailed tokens.
 */
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sql } from '../src/store/sql.js'
import { launchBrowser, openPage, type TestPage } from './helpers/browser.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

let browser: Browser
let t: TestServer
let smtp: TestSmtp

beforeAll(async () => {
  browser = await launchBrowser()
  t = await startServer()
  smtp = await startSmtp()
  const res = await t.api('PATCH', '/api/settings', {
    token: t.suToken,
    body: {
      meta: { appName: 'Acme Notes', appURL: t.url, accentColor: '#a0147a' },
      smtp: { enabled: true, host: smtp.host, port: smtp.port },
    },
  })
  expect(res.status).toBe(200)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
  await smtp?.close()
})

/** Runs `fn` with a fresh page, then checks it reached nothing outside and threw nothing. */
async function withPage(fn: (p: TestPage) => Promise<void>): Promise<void> {
  const p = await openPage(browser)
  try {
    await fn(p)
    expect(p.outside).toEqual([])
    expect(p.errors).toEqual([])
  } finally {
    await p.close()
  }
}

describe('serving /_/', () => {
  it('answers index.html uncached, hashed assets immutable and gzipped, with a strict CSP', async () => {
    const index = await fetch(`${t.url}/_/`)
    expect(index.status).toBe(200)
    expect(index.headers.get('cache-control')).toBe('no-cache')
    const csp = index.headers.get('content-security-policy') ?? ''
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    const html = await index.text()
    const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1]
    expect(script).toBeDefined()
    const js = await fetch(`${t.url}/_/${script}`, { headers: { 'accept-encoding': 'gzip' } })
    expect(js.status).toBe(200)
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(js.headers.get('content-encoding')).toBe('gzip')
    expect(js.headers.get('content-type')).toMatch(/javascript/)
    const redirect = await fetch(`${t.url}/_`, { redirect: 'manual' })
    expect(redirect.status).toBe(301)
    expect(redirect.headers.get('location')).toBe('/_/')
  })

  it('answers 404 for files it does not have, and never serves outside its folder', async () => {
    for (const path of [
      '/_/nothing.js',
      '/_/assets/../../package.json',
      '/_/%2e%2e/package.json',
      '/_/.hidden',
    ])
      expect((await fetch(`${t.url}${path}`)).status, path).toBe(404)
  })

  it('answers 503 naming the build command when the dashboard is not built', async () => {
    const saved = process.env.SVC_TEST_UI_DIR
    process.env.SVC_TEST_UI_DIR = `${t.dir}/no-such-build`
    const bare = await startServer().finally(() => (process.env.SVC_TEST_UI_DIR = saved))
    try {
      const res = await bare.api('GET', '/_/')
      expect(res.status).toBe(503)
      expect(res.body.message).toMatch(/npm run build/)
    } finally {
      await bare.close()
    }
  })

  it('gives the public pages the app name and accent colour', async () => {
    const res = await t.api('GET', '/_/branding')
    expect(res.body).toEqual({ appName: 'Acme Notes', accentColor: '#a0147a' })
  })
})

describe('first run, sign-in and sign-out', () => {
  it('offers the installer while no superuser exists, and signs the new one in', async () => {
    // The only superuser cannot be deleted through the API: this is a fresh install's state.
    const app = t.server.app
    await app.dbFor(app.registry.find('_superusers')!).run(sql`DELETE FROM "_superusers"`)
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/`)
      await p.page.getByRole('heading', { name: 'Create the first superuser' }).waitFor()
      await p.shot('installer')
      await p.page.getByLabel('Email').fill(SU_EMAIL)
      await p.page.getByLabel('Password', { exact: true }).fill(SU_PASSWORD)
      await p.page.getByLabel('Password confirm').fill('not the same')
      await p.page.getByRole('button', { name: 'Create superuser and sign in' }).click()
      await p.page
        .getByText(/do not match|match/i)
        .first()
        .waitFor()
      await p.page.getByLabel('Password confirm').fill(SU_PASSWORD)
      await p.page.getByRole('button', { name: 'Create superuser and sign in' }).click()
      await p.page.getByRole('button', { name: 'Sign out' }).waitFor()
      expect(new URL(p.page.url()).hash).toMatch(/^#\/collections\b/)
    })
    const status = await t.api('GET', '/api/setup/status')
    expect(status.body).toEqual({ needsSetup: false })
  })

  it('signs a superuser in with a password, refuses a wrong one, and signs out', async () => {
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/`)
      await p.page.getByRole('heading', { name: 'Superuser sign-in' }).waitFor()
      await p.page.getByLabel('Email').fill(SU_EMAIL)
      await p.page.getByLabel('Password').fill('wrong password')
      await p.page.getByRole('button', { name: 'Sign in' }).click()
      await p.page.getByRole('alert').waitFor()
      await p.page.getByLabel('Password').fill(SU_PASSWORD)
      await p.page.getByRole('button', { name: 'Sign in' }).click()
      await p.page.getByRole('button', { name: 'Sign out' }).click()
      await p.page.getByRole('heading', { name: 'Superuser sign-in' }).waitFor()
    })
  })
})

describe('the pages e-mails link to', () => {
  const email = 'reader@example.com'
  let userId = ''

  beforeAll(async () => {
    const su = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: SU_EMAIL, password: SU_PASSWORD },
    })
    const made = await t.api('POST', '/api/collections/users/records', {
      token: su.body.token,
      body: { email, password: 'first-password-1', passwordConfirm: 'first-password-1' },
    })
    expect(made.status, JSON.stringify(made.body)).toBe(200)
    userId = made.body.id
  })

  /** The dashboard link of the newest mail to `email` whose subject matches. */
  async function emailedLink(subject: RegExp): Promise<string> {
    const mail = await smtp.waitForMail((m) => m.to.includes(email) && subject.test(m.subject))
    const link = /href="([^"]+\/_\/#\/auth\/[^"]+)"/.exec(mail.html)?.[1]
    expect(link, mail.html).toBeDefined()
    return link!
  }

  it('confirms a verification from the e-mailed link, with the app name and accent colour', async () => {
    const req = await t.api('POST', '/api/collections/users/request-verification', {
      body: { email },
    })
    expect(req.status).toBe(204)
    const link = await emailedLink(/verif/i)
    await withPage(async (p) => {
      await p.page.goto(link)
      await p.page.getByText('Your e-mail address is verified').waitFor()
      await p.page.getByText('Acme Notes').waitFor()
      const accent = await p.page.evaluate(
        "document.documentElement.style.getPropertyValue('--accent')",
      )
      expect(accent).toBe('#a0147a')
      await p.shot('confirm-verification')
    })
    const su = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: SU_EMAIL, password: SU_PASSWORD },
    })
    const user = await t.api('GET', `/api/collections/users/records/${userId}`, {
      token: su.body.token,
    })
    expect(user.body.verified).toBe(true)
  })

  it('sets a new password from the e-mailed reset link', async () => {
    const req = await t.api('POST', '/api/collections/users/request-password-reset', {
      body: { email },
    })
    expect(req.status).toBe(204)
    const link = await emailedLink(/reset/i)
    await withPage(async (p) => {
      await p.page.goto(link)
      await p.page.getByLabel('New password', { exact: true }).fill('second-password-2')
      await p.page.getByLabel('New password confirm').fill('second-password-2')
      await p.page.getByRole('button', { name: 'Confirm' }).click()
      await p.page.getByText('Your password is changed').waitFor()
    })
    const login = await t.api('POST', '/api/collections/users/auth-with-password', {
      body: { identity: email, password: 'second-password-2' },
    })
    expect(login.status).toBe(200)
  })

  it('says a broken link is not valid instead of calling the API', async () => {
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/auth/confirm-password-reset/not-a-token`)
      await p.page.getByText('This link is not valid').waitFor()
    })
  })
})
