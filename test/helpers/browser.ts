/**
 * Headless Chromium (Debian's, installed by scripts/chromium.sh) driven by playwright-core for the
 * dashboard's end-to-end tests. test/global-setup.ts builds the dashboard afresh for runs that
 * import this helper (`SVC_TEST_UI_DIR`), and test servers serve that build at `/_/`.
 * Every page records the requests it makes to anything but 127.0.0.1 (the dashboard must need
 * no network), and screenshots go to `test-artifacts/dashboard/`.
 */
import { mkdirSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser, type Page } from 'playwright-core'

const root = resolve(fileURLToPath(new URL('../..', import.meta.url)))

/** Where the screenshots of the dashboard tests go (kept out of git). */
export const SHOTS = join(root, 'test-artifacts', 'dashboard')

/** Starts headless Chromium. */
export async function launchBrowser(): Promise<Browser> {
  if (!process.env.SVC_TEST_UI_DIR)
    throw new Error('SVC_TEST_UI_DIR is not set: test/global-setup.ts builds the dashboard')
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  })
}

/** A page with its outside requests and uncaught page errors recorded. */
export interface TestPage {
  page: Page
  /** URLs of requests to hosts other than 127.0.0.1 (must stay empty). */
  outside: string[]
  /** Errors thrown in the page and console errors. */
  errors: string[]
  /** Saves a full-page screenshot as `test-artifacts/dashboard/<name>.png`. */
  shot(name: string): Promise<void>
  close(): Promise<void>
}

/** Opens a new page (its own context: storage not shared with other pages). */
export async function openPage(
  browser: Browser,
  opts: { colorScheme?: 'light' | 'dark'; width?: number; height?: number } = {},
): Promise<TestPage> {
  const context = await browser.newContext({
    colorScheme: opts.colorScheme ?? 'light',
    viewport: { width: opts.width ?? 1280, height: opts.height ?? 860 },
  })
  const page = await context.newPage()
  const outside: string[] = []
  const errors: string[] = []
  page.on('request', (req) => {
    const url = new URL(req.url())
    if (!['data:', 'blob:'].includes(url.protocol) && url.hostname !== '127.0.0.1')
      outside.push(req.url())
  })
  page.on('pageerror', (err) => errors.push(String(err)))
  page.on('console', (msg) => {
    // NB: failed API calls the page handles (a 400 shown in a form) log a console error too.
    if (msg.type() === 'error' && !/Failed to load resource/.test(msg.text()))
      errors.push(msg.text())
  })
  return {
    page,
    outside,
    errors,
    async shot(name) {
      mkdirSync(SHOTS, { recursive: true })
      await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true })
    },
    close: () => context.close(),
  }
}
