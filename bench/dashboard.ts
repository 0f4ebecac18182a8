/**
 * The dashboard's rows of `npm run bench`: what a browser downloads first (the JS and CSS
 * `index.html` names, gzip -9, the way `/_/` sends them) against the 200 KB budget of issue 18,
 * the whole build, and the time a real browser (Debian's Chromium, headless) takes to show the
 * first page of the 100 000-row `posts100k` collection after opening `/_/` signed in.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { ScenarioRow } from './report.js'

/** Sizes of the build in `dir` (`dist/ui`): first-load JS and CSS gzip, and all files raw. */
export function bundleSizes(dir: string): {
  js: number
  css: number
  total: number
  files: number
} {
  const html = readFileSync(join(dir, 'index.html'), 'utf8')
  const gz = (path: string) => gzipSync(readFileSync(join(dir, path)), { level: 9 }).length
  const refs = (re: RegExp) => [...html.matchAll(re)].map((m) => m[1]!.replace(/^\.\//, ''))
  const js = refs(/<script[^>]+src="([^"]+)"/g)
    .concat(refs(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g))
    .reduce((n, f) => n + gz(f), 0)
  const css = refs(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g).reduce((n, f) => n + gz(f), 0)
  let total = 0
  let files = 0
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name)
      if (statSync(p).isDirectory()) walk(p)
      else {
        total += statSync(p).size
        files++
      }
    }
  }
  walk(dir)
  return { js, css, total, files }
}

const kb = (n: number) => Math.round(n / 102.4) / 10

/** The size rows of the build in `dir`. */
export function dashboardSizeRows(dir: string): ScenarioRow[] {
  const s = bundleSizes(dir)
  const row = (name: string, note: string, met?: boolean): ScenarioRow => ({
    name,
    reqPerSec: null,
    p50Ms: null,
    p99Ms: null,
    note,
    ...(met === undefined ? {} : { met }),
  })
  return [
    row('dashboard: first-load JS (gzip)', `${kb(s.js)} KB (budget 200 KB)`, s.js <= 200 * 1024),
    row('dashboard: first-load CSS (gzip)', `${kb(s.css)} KB`),
    row('dashboard: whole build (raw)', `${kb(s.total)} KB in ${s.files} files`),
  ]
}

/**
 * Opens `/_/#/collections?collection=<name>` signed in as the superuser in headless Chromium and
 * times the first page of records (navigation start to the first row shown), three times.
 */
export async function firstPageRow(
  url: string,
  token: string,
  record: unknown,
  collection: string,
  rows: number,
): Promise<ScenarioRow> {
  const { chromium } = await import('playwright-core')
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
  })
  const times: number[] = []
  try {
    for (let i = 0; i < 3; i++) {
      const context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
      const auth = JSON.stringify(JSON.stringify({ token, record }))
      await context.addInitScript(`window.localStorage.setItem('__svc_superusers__/_/', ${auth})`)
      const page = await context.newPage()
      const started = Date.now()
      await page.goto(`${url}/_/#/collections?collection=${collection}`)
      await page.locator('table.records-table tbody tr').first().waitFor({ timeout: 60_000 })
      times.push(Date.now() - started)
      await context.close()
    }
  } finally {
    await browser.close()
  }
  times.sort((a, b) => a - b)
  return {
    name: `dashboard: first page of a ${rows.toLocaleString('en')}-row collection (Chromium)`,
    reqPerSec: null,
    p50Ms: times[1]!,
    p99Ms: times[2]!,
    note: `open /_/ signed in → first row shown; 3 loads: ${times.join(', ')} ms`,
  }
}
