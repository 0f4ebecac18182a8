/**
 * The dashboard's operations pages in a real browser: logs (chart, a request of the test, the
 * detail modal), crons (run now, the outcome through the API), the SQL console (rows, NULL),
 * storage (browse, delete), the realtime inspector (an event for a record created through the
 * API, as the superuser and as an impersonated user whose rules hide others' records), and
 * backups (take one, change the data, restore it in the browser: the data is back).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openPage, type TestPage } from './helpers/browser.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

let browser: Browser
let t: TestServer
let auth: { token: string; record: unknown }
let noteId: string
let aliceId: string
let uiCopy: string

beforeAll(async () => {
  browser = await launchBrowser()
  // NB: a copy of the build: another run's global setup rebuilds the shared one in place, and a
  // page loading its lazy chunks meanwhile would get 404s.
  uiCopy = mkdtempSync(join(tmpdir(), 'svcbase-ui-'))
  cpSync(process.env.SVC_TEST_UI_DIR!, uiCopy, { recursive: true })
  t = await startServer({ dashboardDir: uiCopy })
  const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: SU_EMAIL, password: SU_PASSWORD },
  })
  auth = { token: login.body.token, record: login.body.record }
  const users = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: { name: 'members', type: 'auth', fields: [] },
  })
  expect(users.status).toBe(200)
  const alice = await t.api('POST', '/api/collections/members/records', {
    token: t.suToken,
    body: {
      email: 'alice@example.com',
      password: 'alice-password-1',
      passwordConfirm: 'alice-password-1',
    },
  })
  expect(alice.status).toBe(200)
  aliceId = alice.body.id
  const notes = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: 'notes',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'owner', type: 'text' },
      ],
      listRule: 'owner = @request.auth.id',
      viewRule: 'owner = @request.auth.id',
    },
  })
  expect(notes.status).toBe(200)
  const note = await t.api('POST', '/api/collections/notes/records', {
    token: t.suToken,
    body: { title: 'first note' },
  })
  expect(note.status).toBe(200)
  noteId = note.body.id
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
  if (uiCopy) rmSync(uiCopy, { recursive: true, force: true })
})

/** A signed-in page (the superuser's auth put where the dashboard keeps it). */
async function signedIn(hash: string, dark = false): Promise<TestPage> {
  const p = await openPage(browser, dark ? { colorScheme: 'dark' } : {})
  await p.page.addInitScript({
    content: `localStorage.setItem('__svc_superusers__/_/', ${JSON.stringify(JSON.stringify(auth))})`,
  })
  await p.page.goto(`${t.url}/_/${hash}`)
  return p
}

async function withPage(hash: string, fn: (p: TestPage) => Promise<void>, dark = false) {
  const p = await signedIn(hash, dark)
  try {
    await fn(p)
    expect(p.outside).toEqual([])
    expect(p.errors).toEqual([])
  } catch (err) {
    // What the page showed, for the failure report.
    await p.shot('operations-failure').catch(() => undefined)
    const text = await p.page
      .locator('body')
      .innerText()
      .catch(() => '')
    throw new Error(
      `${String(err)}\npage errors: ${p.errors.join(' | ')}\npage text: ${text.slice(0, 600)}`,
    )
  } finally {
    await p.close()
  }
}

// NB: Chromium on a shared 2-core machine: each test gets a minute.
describe('operations pages', { timeout: 60_000 }, () => {
  it('logs: the chart, a request made by the test, its detail', async () => {
    const probe = '/api/collections/notes/records?marker=dashboard-ops-probe'
    expect((await t.api('GET', probe)).status).toBe(200)
    // The log writer stores in batches: wait until the API has it.
    for (;;) {
      const res = await t.api(
        'GET',
        `/api/logs?filter=${encodeURIComponent("data.url ~ 'dashboard-ops-probe'")}`,
        {
          token: t.suToken,
        },
      )
      if (res.body.items?.length) break
      await new Promise((r) => setTimeout(r, 200))
    }
    await withPage('#/logs', async (p) => {
      await p.page.locator('.logs-chart canvas').first().waitFor()
      const row = p.page.getByRole('row').filter({ hasText: 'dashboard-ops-probe' })
      await row.waitFor()
      expect(await row.textContent()).toContain('GET')
      await p.shot('operations-logs')
      // Dragging over the chart zooms in and narrows the list to that time; Reset zoom undoes it.
      const over = await p.page.locator('.logs-chart .u-over').boundingBox()
      expect(over).not.toBeNull()
      // The first hours of the last 24 had no requests.
      await p.page.mouse.move(over!.x + over!.width * 0.05, over!.y + over!.height / 2)
      await p.page.mouse.down()
      await p.page.mouse.move(over!.x + over!.width * 0.4, over!.y + over!.height / 2, { steps: 5 })
      await p.page.mouse.up()
      await p.page.getByText('No logs found.').waitFor()
      await p.page.getByRole('button', { name: 'Reset zoom' }).click()
      await p.page.getByRole('button', { name: 'Reset zoom' }).waitFor({ state: 'detached' })
      await row.waitFor()
      await row.getByRole('button').first().click()
      const dialog = p.page.getByRole('dialog', { name: 'Request log' })
      await dialog.waitFor()
      expect(await dialog.textContent()).toContain(probe)
      await p.shot('operations-log-detail')
      await p.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], {
        origin: t.url,
      })
      await dialog.getByRole('button', { name: 'Copy JSON' }).click()
      await p.page.getByText('The log was copied as JSON.').waitFor()
      const copied = JSON.parse(
        await p.page.evaluate<string>('navigator.clipboard.readText()'),
      ) as {
        data: { url: string }
      }
      expect(copied.data.url).toBe(probe)
      await p.page.keyboard.press('Escape')
      await dialog.waitFor({ state: 'detached' })
      // A filter narrows the list (kept in the URL).
      await p.page.getByLabel('Filter').fill("data.url ~ 'no-such-marker'")
      await p.page.getByRole('button', { name: 'Search' }).click()
      await p.page.getByText('No logs found.').waitFor()
      expect(p.page.url()).toContain('no-such-marker')
    })
  })

  it('crons: runs a job now; its outcome is in _cron_jobs', async () => {
    await withPage('#/crons', async (p) => {
      const row = p.page.locator('tr[data-job="__svcOTPCleanup__"]')
      await row.waitFor()
      expect(await row.textContent()).toContain('never')
      await row.getByRole('button', { name: 'Run __svcOTPCleanup__ now' }).click()
      await row.getByText('success').waitFor()
      await p.shot('operations-crons')
    })
    const runs = await t.api(
      'GET',
      `/api/collections/_cron_jobs/records?filter=${encodeURIComponent("jobId = '__svcOTPCleanup__'")}`,
      { token: t.suToken },
    )
    expect(runs.body.items[0].lastStatus).toBe('success')
    expect(runs.body.items[0].lastRun).not.toBe('')
  })

  it('SQL console: a query shows its rows, NULL shown; a write is confirmed first', async () => {
    await withPage('#/sql', async (p) => {
      const editor = p.page.locator('.cm-content')
      await editor.click()
      await p.page.keyboard.press('Control+A')
      await p.page.keyboard.type('SELECT title, NULL AS missing FROM notes ORDER BY title')
      await p.page.keyboard.press('Escape')
      await p.page.keyboard.press('Control+Enter')
      await p.page.getByRole('status').filter({ hasText: '1 row' }).waitFor()
      const grid = p.page.locator('.sql-grid')
      expect(await grid.textContent()).toContain('first note')
      expect(await grid.locator('.sql-null').textContent()).toBe('NULL')
      await p.page.getByRole('button', { name: 'Export CSV' }).waitFor()
      await p.shot('operations-sql')
      // A write asks first, then answers rows affected.
      await editor.click()
      await p.page.keyboard.press('Control+A')
      await p.page.keyboard.type("UPDATE notes SET owner = 'sql' WHERE title = 'nothing'")
      await p.page.keyboard.press('Escape')
      await p.page.getByRole('button', { name: 'Execute' }).click()
      await p.page.getByRole('dialog', { name: 'Run a write statement?' }).waitFor()
      await p.page.getByRole('button', { name: 'Run it' }).click()
      await p.page.getByText('0 rows affected').waitFor()
      // Recent queries keep both.
      expect(await p.page.locator('.sql-recent li').count()).toBe(2)
    })
  })

  it('storage: browses folders and deletes a file after a confirmation', async () => {
    const form = new FormData()
    form.append('key', 'ops-test/hello.txt')
    form.append('file', new Blob(['hello']), 'hello.txt')
    expect(
      (await t.api('POST', '/api/storage/objects', { token: t.suToken, raw: form })).status,
    ).toBeLessThan(300)
    await withPage('#/storage', async (p) => {
      await p.page.getByRole('link', { name: 'ops-test/' }).click()
      const row = p.page.getByRole('row').filter({ hasText: 'hello.txt' })
      await row.waitFor()
      expect(await row.textContent()).toContain('5 B')
      await p.shot('operations-storage')
      await row.getByRole('button', { name: 'Delete ops-test/hello.txt' }).click()
      await p.page
        .getByRole('dialog', { name: 'Delete file' })
        .getByRole('button', { name: 'Delete' })
        .click()
      await p.page.getByText('This folder is empty.').waitFor()
    })
    expect(await t.storedKeys('ops-test/')).toEqual([])
  })

  it('realtime inspector: events for records created through the API, under the chosen rules', async () => {
    await withPage('#/realtime', async (p) => {
      await p.page.getByLabel('Collection').selectOption('notes')
      await p.page.getByRole('button', { name: 'Start listening' }).click()
      await p.page.getByText('Listening to notes/* as the superuser').waitFor()
      const created = await t.api('POST', '/api/collections/notes/records', {
        token: t.suToken,
        body: { title: 'live one' },
      })
      const event = p.page.locator('.realtime-event').filter({ hasText: created.body.id })
      await event.waitFor()
      expect(await event.textContent()).toContain('create')
      await event.locator('summary').click()
      expect(await event.locator('pre').textContent()).toContain('live one')
      await p.shot('operations-realtime')
      // Paused: an event is counted, not listed.
      await p.page.getByLabel('Pause').check()
      const whilePaused = await t.api('POST', '/api/collections/notes/records', {
        token: t.suToken,
        body: { title: 'while paused' },
      })
      await p.page.getByText('1 ignored while paused').waitFor()
      expect(
        await p.page.locator('.realtime-event').filter({ hasText: whilePaused.body.id }).count(),
      ).toBe(0)
      await p.page.getByLabel('Pause').uncheck()
      // As alice: her own note arrives, another's does not.
      await p.page.getByRole('button', { name: 'Clear' }).click()
      await p.page.getByLabel('Listen as').selectOption('user')
      await p.page.getByLabel('Auth collection').selectOption('members')
      await p.page.getByLabel('User id or e-mail').fill('alice@example.com')
      await p.page.getByRole('button', { name: 'Restart' }).click()
      await p.page.getByText('Listening to notes/* as members alice@example.com').waitFor()
      const hidden = await t.api('POST', '/api/collections/notes/records', {
        token: t.suToken,
        body: { title: 'not hers' },
      })
      const hers = await t.api('POST', '/api/collections/notes/records', {
        token: t.suToken,
        body: { title: 'hers', owner: aliceId },
      })
      await p.page.locator('.realtime-event').filter({ hasText: hers.body.id }).waitFor()
      // Events arrive in order: the earlier, hidden one would be listed by now.
      expect(
        await p.page.locator('.realtime-event').filter({ hasText: hidden.body.id }).count(),
      ).toBe(0)
      expect(await p.page.locator('.realtime-event').count()).toBe(1)
    })
  })

  it('backup options: an automatic schedule saved through the settings API', async () => {
    await withPage('#/backups', async (p) => {
      await p.page.getByLabel('Enable automatic backups').check()
      await p.page.getByRole('button', { name: 'Every day at 00:00 UTC' }).click()
      await p.page.getByLabel('Automatic backups to keep').fill('2')
      await p.page.getByRole('button', { name: 'Save backup options' }).click()
      await p.page.getByText('The backup options were saved.').waitFor()
      // A bad expression is refused with the server's message under the field.
      await p.page.getByLabel('Cron expression (UTC)').fill('not a cron')
      await p.page.getByRole('button', { name: 'Save backup options' }).click()
      await p.page.locator('.backup-options .has-error').waitFor()
    })
    const settings = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(settings.body.backups.cron).toBe('0 0 * * *')
    expect(settings.body.backups.cronMaxKeep).toBe(2)
    const jobs = await t.api('GET', '/api/crons', { token: t.suToken })
    expect(jobs.body.map((j: { id: string }) => j.id)).toContain('__svcAutoBackup__')
  })

  it('backups: take one in the browser, change the data, restore it: the data is back', async () => {
    await withPage(
      '#/backups',
      async (p) => {
        await p.page.getByRole('button', { name: 'New backup' }).click()
        await p.page.getByLabel('Name (optional)').fill('before_change.zip')
        await p.page.getByRole('button', { name: 'Start backup' }).click()
        const row = p.page.locator('tr[data-key="before_change.zip"]')
        await row.waitFor()
        const list = await t.api('GET', '/api/backups', { token: t.suToken })
        expect(list.body.map((b: { key: string }) => b.key)).toContain('before_change.zip')
        await p.shot('operations-backups-dark')

        // Download it (a file token in the link), upload the bytes back under another name.
        const [download] = await Promise.all([
          p.page.waitForEvent('download'),
          row.getByRole('button', { name: 'Download before_change.zip' }).click(),
        ])
        expect(download.suggestedFilename()).toBe('before_change.zip')
        const bytes = readFileSync(await download.path())
        expect(bytes.subarray(0, 2).toString()).toBe('PK')
        await p.page.getByLabel('Upload backup').setInputFiles({
          name: 'copy.zip',
          mimeType: 'application/zip',
          buffer: bytes,
        })
        const copy = p.page.locator('tr[data-key="copy.zip"]')
        await copy.waitFor()
        // Delete the copy after a confirmation.
        await copy.getByRole('button', { name: 'Delete copy.zip' }).click()
        await p.page
          .getByRole('dialog', { name: 'Delete backup' })
          .getByRole('button', { name: 'Delete' })
          .click()
        await copy.waitFor({ state: 'detached' })
        const keys = (await t.api('GET', '/api/backups', { token: t.suToken })).body.map(
          (b: { key: string }) => b.key,
        )
        expect(keys).toEqual(['before_change.zip'])

        // Change the data after the backup.
        expect(
          (
            await t.api('PATCH', `/api/collections/notes/records/${noteId}`, {
              token: t.suToken,
              body: { title: 'changed after the backup' },
            })
          ).status,
        ).toBe(200)

        await row.getByRole('button', { name: 'Restore before_change.zip' }).click()
        const dialog = p.page.getByRole('dialog', { name: 'Restore backup' })
        const restore = dialog.getByRole('button', { name: 'Restore' })
        expect(await restore.isDisabled()).toBe(true)
        await dialog.getByLabel('Type before_change.zip to confirm').fill('before_change.zip')
        await restore.click()
        await dialog.getByText('the server is restarting').waitFor()
        // The page reloads once the server is back: the dialog is gone, the list is there.
        await dialog.waitFor({ state: 'detached', timeout: 60_000 })
        await p.page.locator('tr[data-key="before_change.zip"]').waitFor()
      },
      true,
    )
    const note = await t.api('GET', `/api/collections/notes/records/${noteId}`, {
      token: t.suToken,
    })
    expect(note.status).toBe(200)
    expect(note.body.title).toBe('first note')
  }, 90_000)
})
