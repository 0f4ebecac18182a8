/**
 * The dashboard's collections page in a real browser (headless Chromium): the sidebar, the records
 * table (filter, sort, bulk delete, live updates from another client), the record editor (a file
 * upload, a relation picked in the picker, an edit), an auth record's impersonation, and a
 * collection of 100 000 rows (the time to the first page is printed, not asserted).
 */
import sharp from 'sharp'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openPage, type TestPage } from './helpers/browser.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

let browser: Browser
let t: TestServer
let auth: { token: string; record: unknown }
const authorIds: Record<string, string> = {}

/** Creates a collection through the API (fields with flat options, as PocketBase v0.23). */
async function createCollection(body: Record<string, unknown>): Promise<string> {
  const res = await t.api('POST', '/api/collections', { token: t.suToken, body })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.id as string
}

async function createRecord(collection: string, body: Record<string, unknown>) {
  const res = await t.api('POST', `/api/collections/${collection}/records`, {
    token: t.suToken,
    body,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body as { id: string } & Record<string, unknown>
}

async function listPosts(filter = ''): Promise<Record<string, unknown>[]> {
  const q = new URLSearchParams({ perPage: '200', filter })
  const res = await t.api('GET', `/api/collections/posts/records?${q.toString()}`, {
    token: t.suToken,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.items as Record<string, unknown>[]
}

beforeAll(async () => {
  browser = await launchBrowser()
  t = await startServer()
  const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: SU_EMAIL, password: SU_PASSWORD },
  })
  auth = { token: login.body.token as string, record: login.body.record }
  const authorsId = await createCollection({
    name: 'authors',
    type: 'base',
    fields: [{ name: 'name', type: 'text', presentable: true }],
  })
  await createCollection({
    name: 'posts',
    type: 'base',
    fields: [
      { name: 'title', type: 'text', required: true },
      { name: 'status', type: 'select', values: ['draft', 'published'], maxSelect: 1 },
      { name: 'author', type: 'relation', collectionId: authorsId, maxSelect: 1 },
      { name: 'cover', type: 'file', maxSelect: 1, maxSize: 1_000_000 },
    ],
  })
  for (const name of ['Ada', 'Grace', 'Edsger'])
    authorIds[name] = (await createRecord('authors', { name })).id
  for (const [title, status] of [
    ['Alpha notes', 'draft'],
    ['Beta release', 'published'],
    ['Gamma rays', 'draft'],
    ['Delta plan', 'published'],
  ] as const)
    await createRecord('posts', { title, status, author: authorIds.Grace })
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

/** A signed-in page (the superuser's auth put in localStorage before the app starts). */
async function signedIn(opts: { colorScheme?: 'light' | 'dark' } = {}): Promise<TestPage> {
  const p = await openPage(browser, opts)
  // A step that cannot happen fails at once, naming its locator (not at the test's timeout).
  p.page.setDefaultTimeout(8000)
  await p.page.addInitScript({
    content: `localStorage.setItem('__svc_superusers__/_/', ${JSON.stringify(JSON.stringify(auth))})`,
  })
  return p
}

async function withPage(
  fn: (p: TestPage) => Promise<void>,
  opts: { colorScheme?: 'light' | 'dark' } = {},
): Promise<void> {
  const p = await signedIn(opts)
  try {
    await fn(p).catch(async (err: unknown) => {
      await p.shot('records-failure')
      throw err
    })
    expect(p.outside).toEqual([])
    expect(p.errors).toEqual([])
  } finally {
    await p.close()
  }
}

/** The titles in the table's rows, in order (the title column is the second data column). */
async function shownTitles(p: TestPage): Promise<string[]> {
  const titles = p.page.locator('table.records-table tbody tr td:nth-child(3)')
  return titles.allInnerTexts()
}

describe('collections page', () => {
  it('lists collections in the sidebar, system ones behind a toggle that opens while searching', async () => {
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=posts`)
      const nav = p.page.getByRole('navigation', { name: 'Collections' })
      await nav.getByRole('link', { name: /posts/ }).waitFor()
      await nav.getByRole('link', { name: /authors/ }).waitFor()
      expect(await nav.getByRole('link', { name: /_superusers/ }).count()).toBe(0)
      await nav.getByRole('button', { name: /System/ }).click()
      await nav.getByRole('link', { name: /_superusers/ }).waitFor()
      await nav.getByRole('button', { name: /System/ }).click()
      await nav.getByLabel('Search collections').fill('super')
      await nav.getByRole('link', { name: /_superusers/ }).waitFor()
      expect(await nav.getByRole('link', { name: /posts/ }).count()).toBe(0)
      await nav.getByLabel('Search collections').fill('')
      // The cog and "New collection" open the collection editor.
      await nav.getByRole('button', { name: 'Edit collection posts' }).click()
      await p.page.getByRole('dialog', { name: 'Edit collection posts' }).waitFor()
      await p.page.keyboard.press('Escape')
      await p.page.getByRole('dialog').waitFor({ state: 'detached' })
      await nav.getByRole('button', { name: /New collection/ }).click()
      await p.page.getByRole('dialog', { name: 'New collection' }).waitFor()
      await p.page.keyboard.press('Escape')
      await p.page.getByRole('dialog').waitFor({ state: 'detached' })
      await nav.getByRole('link', { name: /authors/ }).click()
      await p.page.getByRole('heading', { name: /authors/ }).waitFor()
      await p.page.getByRole('cell', { name: 'Edsger' }).waitFor()
    })
  })

  it('creates a record with a file upload and a picked relation, then edits it', async () => {
    const image = await sharp({
      create: { width: 120, height: 80, channels: 3, background: '#2a7fd4' },
    })
      .png()
      .toBuffer()
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=posts`)
      await p.page.getByRole('cell', { name: 'Alpha notes' }).waitFor()
      await p.page.getByRole('button', { name: 'New record' }).first().click()
      const modal = p.page.getByRole('dialog', { name: 'Create posts record' })
      await modal.getByRole('textbox', { name: 'title *' }).fill('Hello dashboard')
      await modal.getByLabel('status').selectOption('published')
      await modal.getByRole('button', { name: 'Open records picker' }).click()
      const picker = p.page.getByRole('dialog', { name: 'Choose authors records' })
      await picker.getByLabel('Search authors').fill('Ada')
      await picker.getByRole('button', { name: 'Search' }).click()
      await expect.poll(() => picker.getByRole('radio').count()).toBe(1)
      await picker.getByRole('radio', { name: /Ada/ }).check()
      await picker.getByRole('button', { name: 'Set selection' }).click()
      await modal.locator('.chip', { hasText: 'Ada' }).waitFor()
      await modal.locator('input[type=file]').setInputFiles({
        name: 'cover.png',
        mimeType: 'image/png',
        buffer: image,
      })
      await modal.getByText('cover.png').waitFor()
      await p.shot('records-create')
      await modal.getByRole('button', { name: 'Create' }).click()
      await modal.waitFor({ state: 'detached' })

      const [made] = await listPosts('title = "Hello dashboard"')
      expect(made).toMatchObject({ status: 'published', author: authorIds.Ada })
      expect(made!.cover).toMatch(/^cover_\w+\.png$/)
      // The new row shows the thumbnail and the related author's presentable name.
      const row = p.page.getByRole('row', { name: /Hello dashboard/ })
      await row.locator('img.thumb').waitFor()
      expect(await row.locator('img.thumb').getAttribute('src')).toContain('thumb=100x100')
      await row.getByText('Ada').waitFor()
      await expect
        .poll(() =>
          row
            .locator('img.thumb')
            .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
        )
        .toBeGreaterThan(0)

      await row.getByRole('cell', { name: 'Hello dashboard' }).click()
      const edit = p.page.getByRole('dialog', { name: 'Edit posts record' })
      await edit.getByRole('textbox', { name: 'title *' }).fill('Hello edited')
      await edit.getByRole('button', { name: 'Remove file cover' }).click()
      await p.page.keyboard.press('Control+s')
      await edit.waitFor({ state: 'detached' })
      const after = await t.api('GET', `/api/collections/posts/records/${made!.id as string}`, {
        token: t.suToken,
      })
      expect(after.body).toMatchObject({ title: 'Hello edited', cover: '', author: authorIds.Ada })
      await p.page.getByRole('cell', { name: 'Hello edited' }).waitFor()
      await p.shot('records-table')

      // Deleting from the editor asks first.
      await p.page.getByRole('cell', { name: 'Hello edited' }).click()
      await edit.getByRole('button', { name: 'Delete' }).click()
      const confirm = p.page.getByRole('dialog', { name: 'Delete record' })
      await confirm.getByRole('button', { name: 'Delete' }).click()
      await edit.waitFor({ state: 'detached' })
      await p.page.getByRole('cell', { name: 'Hello edited' }).waitFor({ state: 'detached' })
      const gone = await t.api('GET', `/api/collections/posts/records/${made!.id as string}`, {
        token: t.suToken,
      })
      expect(gone.status).toBe(404)

      // A field error from the API shows under its input.
      await p.page.getByRole('button', { name: 'New record' }).first().click()
      const bad = p.page.getByRole('dialog', { name: 'Create posts record' })
      await bad.getByRole('button', { name: 'Create' }).click()
      await bad.locator('.has-error .error-text').first().waitFor()
      await p.page.keyboard.press('Escape')
      await bad.waitFor({ state: 'detached' })
    })
  })

  it('filters by a plain term and by a raw filter, and sorts by clicking headers', async () => {
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=posts`)
      await p.page.getByRole('cell', { name: 'Alpha notes' }).waitFor()
      const search = p.page.getByRole('combobox', { name: 'Search or filter records' })
      await search.fill('gamma')
      await search.press('Enter')
      await expect.poll(() => shownTitles(p)).toEqual(['Gamma rays'])
      expect(decodeURIComponent(p.page.url())).toContain('filter=gamma')

      await search.fill('status = "draft"')
      await search.press('Enter')
      const drafts = (await listPosts('status = "draft"')).map((r) => r.title).sort()
      await expect.poll(async () => (await shownTitles(p)).sort()).toEqual(drafts)

      // Completion offers field names.
      await search.fill('sta')
      await p.page.getByRole('option', { name: /status/ }).waitFor()
      await search.press('Escape')

      await p.page.getByRole('button', { name: 'Clear', exact: true }).click()
      const all = (await listPosts()).map((r) => r.title as string)
      await expect.poll(async () => (await shownTitles(p)).length).toBe(all.length)
      const title = p.page.getByRole('button', { name: /^title/ })
      await title.click()
      const desc = [...all].sort().reverse()
      await expect.poll(() => shownTitles(p)).toEqual(desc)
      expect(decodeURIComponent(p.page.url())).toContain('sort=-title')
      await title.click()
      await expect.poll(() => shownTitles(p)).toEqual([...desc].reverse())
      expect(
        await p.page.getByRole('columnheader', { name: /title/ }).getAttribute('aria-sort'),
      ).toBe('ascending')
    })
  })

  it('bulk deletes two records chosen with a shift-click range', async () => {
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=posts&sort=title`)
      await p.page.getByRole('cell', { name: 'Alpha notes' }).waitFor()
      const titles = await shownTitles(p)
      const box = (i: number) =>
        p.page.locator('table.records-table tbody tr').nth(i).getByRole('checkbox')
      await box(0).click()
      await box(2).click({ modifiers: ['Shift'] })
      await p.page.getByText('Selected 3').waitFor()
      await box(2).click()
      await p.page.getByText('Selected 2').waitFor()
      await p.page.getByRole('button', { name: 'Delete selected' }).click()
      await p.page.getByRole('dialog', { name: 'Delete records' }).waitFor()
      await p.shot('records-bulk-delete')
      await p.page.getByRole('button', { name: 'Delete 2' }).click()
      await expect.poll(() => shownTitles(p)).toEqual(titles.slice(2))
      const left = (await listPosts()).map((r) => r.title).sort()
      expect(left).toEqual(titles.slice(2).sort())
    })
  })

  it('shows records created, changed and deleted by another client live', async () => {
    await withPage(async (p) => {
      // The subscription is sent once the page shows the collection; wait until the server has it.
      const subscribed = p.page.waitForResponse(
        (r) => r.url().endsWith('/api/realtime') && r.request().method() === 'POST',
      )
      await p.page.goto(`${t.url}/_/#/collections?collection=posts`)
      await p.page.getByRole('cell', { name: 'Delta plan' }).waitFor()
      expect((await subscribed).status()).toBe(204)
      const made = await createRecord('posts', {
        title: 'Made elsewhere',
        status: 'draft',
        author: authorIds.Edsger,
      })
      const row = p.page.getByRole('row', { name: /Made elsewhere/ })
      await row.waitFor()
      await row.getByText('Edsger').waitFor()
      const upd = await t.api('PATCH', `/api/collections/posts/records/${made.id}`, {
        token: t.suToken,
        body: { title: 'Changed elsewhere' },
      })
      expect(upd.status).toBe(200)
      await p.page.getByRole('cell', { name: 'Changed elsewhere' }).waitFor()
      const del = await t.api('DELETE', `/api/collections/posts/records/${made.id}`, {
        token: t.suToken,
      })
      expect(del.status).toBe(204)
      await p.page.getByRole('cell', { name: 'Changed elsewhere' }).waitFor({ state: 'detached' })
    })
  })

  it('edits an auth record in the dark theme and impersonates it', async () => {
    const user = await createRecord('users', {
      email: 'someone@example.com',
      password: 'pass-word-123',
      passwordConfirm: 'pass-word-123',
    })
    await withPage(
      async (p) => {
        await p.page.goto(`${t.url}/_/#/collections?collection=users&record=${user.id}`)
        const modal = p.page.getByRole('dialog', { name: 'Edit users record' })
        await modal.getByRole('button', { name: 'Send verification email' }).waitFor()
        await modal.getByLabel('verified').check()
        await p.shot('records-auth-editor-dark')
        await modal.getByRole('button', { name: 'Save changes' }).click()
        await modal.waitFor({ state: 'detached' })
        const after = await t.api('GET', `/api/collections/users/records/${user.id}`, {
          token: t.suToken,
        })
        expect(after.body.verified).toBe(true)

        await p.page.getByRole('cell', { name: 'someone@example.com' }).click()
        await modal.getByRole('button', { name: 'Impersonate' }).click()
        const imp = p.page.getByRole('dialog', { name: `Impersonate ${user.id}` })
        await imp.getByLabel(/Token duration/).fill('600')
        await imp.getByRole('button', { name: 'Generate token' }).click()
        const token = await imp.getByLabel('Token', { exact: true }).inputValue()
        expect(token.length).toBeGreaterThan(20)
        const as = await t.api('GET', `/api/collections/users/records/${user.id}`, { token })
        expect(as.status).toBe(200)
        expect(as.body.email).toBe('someone@example.com')
      },
      { colorScheme: 'dark' },
    )
  })
})

describe('field inputs', () => {
  it('saves rich text, JSON (refusing invalid JSON), a UTC date, number, bool, geoPoint and a multi-select', async () => {
    await createCollection({
      name: 'kitchen',
      type: 'base',
      fields: [
        { name: 'body', type: 'editor' },
        { name: 'meta', type: 'json' },
        { name: 'due', type: 'date' },
        { name: 'score', type: 'number' },
        { name: 'done', type: 'bool' },
        { name: 'place', type: 'geoPoint' },
        { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
      ],
    })
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=kitchen&record=new`)
      const modal = p.page.getByRole('dialog', { name: 'Create kitchen record' })
      const body = modal.getByRole('textbox', { name: 'body' })
      await body.click()
      await p.page.keyboard.type('Hello ')
      await modal.getByRole('button', { name: 'Bold' }).click()
      // Tiptap gives the focus back to the text on the next frame.
      await p.page.waitForFunction(
        "document.activeElement?.classList.contains('rich-text-content') === true",
      )
      await p.page.keyboard.type('world')
      await modal.getByRole('textbox', { name: 'meta' }).fill('{"a": ')
      await modal.getByText('Invalid JSON', { exact: true }).first().waitFor()
      await modal.getByRole('button', { name: 'Create' }).click()
      await modal.getByText('Invalid JSON: fix it before saving.').waitFor()
      const none = await t.api('GET', '/api/collections/kitchen/records', { token: t.suToken })
      expect(none.body.items).toEqual([])
      await modal.getByRole('textbox', { name: 'meta' }).fill('{"a": 1}')
      await modal.getByText('Valid JSON', { exact: true }).waitFor()
      expect(await modal.getByText('Invalid JSON: fix it before saving.').count()).toBe(0)
      await modal.getByLabel('due (UTC)').fill('2030-01-02T03:04:05')
      await modal.getByLabel('score').fill('42.5')
      await modal.getByLabel('done').check()
      await modal.getByLabel('Latitude').fill('48.85')
      await modal.getByLabel('Longitude').fill('2.35')
      await modal.getByRole('checkbox', { name: 'a', exact: true }).check()
      await modal.getByRole('checkbox', { name: 'c', exact: true }).check()
      await p.shot('records-field-inputs')
      await modal.getByRole('button', { name: 'Create' }).click()
      await modal.waitFor({ state: 'detached' })
      const res = await t.api('GET', '/api/collections/kitchen/records', { token: t.suToken })
      expect(res.body.items).toHaveLength(1)
      expect(res.body.items[0]).toMatchObject({
        body: '<p>Hello <strong>world</strong></p>',
        meta: { a: 1 },
        due: '2030-01-02 03:04:05.000Z',
        score: 42.5,
        done: true,
        place: { lat: 48.85, lon: 2.35 },
        tags: ['a', 'c'],
      })
      // The table shows the stored UTC date, the bool badge and the chips.
      const row = p.page.getByRole('row', { name: /Hello world/ })
      await row.getByText('2030-01-02').waitFor()
      await row.getByText('True').waitFor()

      // Lists ask for rich text as a short excerpt (here: the live fetch of a record made elsewhere).
      const listed = p.page.waitForResponse(
        (r) => r.url().includes('/api/collections/kitchen/records?') && r.url().includes('excerpt'),
      )
      await createRecord('kitchen', { body: `<p>${'long text '.repeat(200)}</p>` })
      const page = (await (await listed).json()) as { items: { body: string }[] }
      expect(page.items[0]!.body.length).toBeLessThanOrEqual(203)
      await p.page.getByRole('row', { name: /long text/ }).waitFor()
    })
  })

  it('shows view records read-only', async () => {
    await createCollection({
      name: 'post_titles',
      type: 'view',
      viewQuery: 'SELECT id, title FROM posts',
    })
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=post_titles`)
      await p.page.getByRole('cell', { name: 'Delta plan' }).click()
      const modal = p.page.getByRole('dialog', { name: 'View post_titles record' })
      await modal.getByRole('textbox', { name: 'title' }).waitFor()
      expect(await modal.getByRole('textbox', { name: 'title' }).getAttribute('readonly')).toBe('')
      expect(await modal.getByRole('button', { name: /Save|Delete/ }).count()).toBe(0)
      expect(await p.page.getByRole('button', { name: 'New record' }).count()).toBe(0)
    })
  })
})

describe('a collection of 100 000 rows', () => {
  it('shows the first page quickly and counts only when asked', async () => {
    await createCollection({
      name: 'big',
      type: 'base',
      fields: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'number' },
      ],
    })
    const seed = await t.api('POST', '/api/sql', {
      token: t.suToken,
      body: {
        write: true,
        sql: `WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < 100000)
              INSERT INTO big (id, title, n) SELECT printf('r%014d', i), 'row ' || i, i FROM s`,
      },
    })
    expect(seed.status, JSON.stringify(seed.body)).toBe(200)
    await withPage(async (p) => {
      await p.page.goto(`${t.url}/_/#/collections?collection=posts`)
      await p.page.getByRole('cell', { name: 'Delta plan' }).waitFor()
      const started = Date.now()
      await p.page
        .getByRole('navigation', { name: 'Collections' })
        .getByRole('link', { name: /big/ })
        .click()
      await p.page.getByRole('cell', { name: 'row 100000', exact: true }).waitFor()
      const ms = Date.now() - started
      console.log(`100 000 rows: the first page showed ${ms} ms after the click`)
      expect(await p.page.locator('table.records-table tbody tr').count()).toBe(40)
      await p.page.getByRole('button', { name: 'Load more' }).click()
      await expect.poll(() => p.page.locator('table.records-table tbody tr').count()).toBe(80)
      await p.page.getByRole('button', { name: 'Count' }).click()
      await p.page.getByText('Total: 100000').waitFor()
      await p.shot('records-big')
    })
  })
})
