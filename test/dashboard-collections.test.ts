/**
 * The collection editor of the dashboard (ui/src/collection-editor/), the export and import
 * pages, and the view dry run they use (`POST /api/collections/meta/dry-run-view`): a user in
 * Chromium creates, renames, drops and previews, and every result is checked through the API.
 */
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openPage, type TestPage } from './helpers/browser.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

let browser: Browser
let t: TestServer
let auth: { token: string; record: unknown }

beforeAll(async () => {
  browser = await launchBrowser()
  t = await startServer()
  const res = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: SU_EMAIL, password: SU_PASSWORD },
  })
  expect(res.status).toBe(200)
  auth = { token: res.body.token, record: res.body.record }
  const authors = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: { name: 'authors', type: 'base', fields: [{ name: 'name', type: 'text' }] },
  })
  expect(authors.status).toBe(200)
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await t?.close()
})

/** A signed-in page at `hash`; checks afterwards that it reached nothing outside and threw nothing. */
async function withPage(
  hash: string,
  fn: (p: TestPage) => Promise<void>,
  colorScheme: 'light' | 'dark' = 'light',
): Promise<void> {
  const p = await openPage(browser, { colorScheme })
  try {
    await p.page.addInitScript({
      content: `localStorage.setItem('__svc_superusers__/_/', ${JSON.stringify(JSON.stringify(auth))})`,
    })
    await p.page.goto(`${t.url}/_/${hash}`)
    await fn(p).catch(async (err: unknown) => {
      await p.shot('collections-failure')
      throw err
    })
    expect(p.outside).toEqual([])
    // A 400 the page shows in a form logs a console error too; nothing else may.
    expect(p.errors.filter((e) => !/status of 400/.test(e))).toEqual([])
  } finally {
    await p.close()
  }
}

async function collection(name: string) {
  const res = await t.api('GET', `/api/collections/${name}`, { token: t.suToken })
  return res
}

/** The editor's row of the field named `name` (its name input holds it). */
function fieldRow(page: Page, index: number) {
  return page.locator('li.ce-field').nth(index)
}

/** The editor's row of the field named `name`. */
async function rowNamed(page: Page, name: string) {
  const rows = page.locator('li.ce-field')
  const n = await rows.count()
  for (let i = 0; i < n; i++) {
    if ((await rows.nth(i).getByLabel('Field name').inputValue()) === name) return rows.nth(i)
  }
  throw new Error(`no field row named ${name}`)
}

async function addField(page: Page, type: string): Promise<ReturnType<typeof fieldRow>> {
  await page.getByLabel('New field type').selectOption(type)
  await page.getByRole('button', { name: '+ New field' }).click()
  const count = await page.locator('li.ce-field').count()
  return fieldRow(page, count - 1)
}

describe('POST /api/collections/meta/dry-run-view', () => {
  it('derives the fields and up to 10 sample rows, creating nothing', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await t.api('POST', '/api/collections/authors/records', {
        token: t.suToken,
        body: { name: `author ${i}` },
      })
      expect(r.status).toBe(200)
    }
    const before = await t.api('GET', '/api/collections?perPage=500', { token: t.suToken })
    const res = await t.api('POST', '/api/collections/meta/dry-run-view', {
      token: t.suToken,
      body: {
        viewQuery:
          'SELECT id, name, CAST(length(name) AS INTEGER) AS len FROM authors ORDER BY name',
      },
    })
    expect(res.status).toBe(200)
    expect(res.body.fields.map((f: { name: string; type: string }) => [f.name, f.type])).toEqual([
      ['id', 'text'],
      ['name', 'text'],
      ['len', 'number'],
    ])
    expect(res.body.rows).toHaveLength(10)
    expect(res.body.rows[0]).toMatchObject({ name: 'author 0', len: 8 })
    const after = await t.api('GET', '/api/collections?perPage=500', { token: t.suToken })
    expect(after.body.totalItems).toBe(before.body.totalItems)
  })

  it('answers 400 with the engine message for a bad query, and 401 without a superuser', async () => {
    const bad = await t.api('POST', '/api/collections/meta/dry-run-view', {
      token: t.suToken,
      body: { viewQuery: 'SELECT id, nope FROM authors' },
    })
    expect(bad.status).toBe(400)
    expect(bad.body.data.viewQuery.message).toMatch(/^Invalid query - .*nope/)
    const noId = await t.api('POST', '/api/collections/meta/dry-run-view', {
      token: t.suToken,
      body: { viewQuery: 'SELECT name FROM authors' },
    })
    expect(noId.status).toBe(400)
    expect(noId.body.data.viewQuery.message).toBe(
      "Invalid query - missing required id column (you can use `(ROW_NUMBER() OVER()) as id` if you don't have one).",
    )
    const write = await t.api('POST', '/api/collections/meta/dry-run-view', {
      token: t.suToken,
      body: { viewQuery: 'DELETE FROM authors' },
    })
    expect(write.status).toBe(400)
    const empty = await t.api('POST', '/api/collections/meta/dry-run-view', {
      token: t.suToken,
      body: { viewQuery: ' ' },
    })
    expect(empty.status).toBe(400)
    expect(empty.body.data.viewQuery.message).toBe('Cannot be blank.')
    const anon = await t.api('POST', '/api/collections/meta/dry-run-view', {
      token: null,
      body: { viewQuery: 'SELECT id FROM authors' },
    })
    expect(anon.status).toBe(401)
    const count = await t.api('GET', '/api/collections/authors/records?perPage=1', {
      token: t.suToken,
    })
    expect(count.body.totalItems).toBe(12)
  })
})

// Chromium on a shared machine: generous per-test limits (each step waits on the page, never on time).
describe('the collection editor', { timeout: 90_000 }, () => {
  it('creates a base collection with text, select, relation and file fields and a list rule', async () => {
    await withPage('#/collections', async (tp) => {
      const page = tp.page
      await page.getByRole('button', { name: '+ New collection' }).click()
      const dialog = page.getByRole('dialog', { name: 'New collection' })
      await dialog.getByLabel('Name', { exact: true }).fill('posts')
      await dialog.getByRole('tab', { name: 'Fields' }).waitFor()
      let row = await addField(page, 'text')
      await row.getByLabel('Field name').fill('title')
      await row.getByLabel('Nonempty (required)').check()
      row = await addField(page, 'select')
      await row.getByLabel('Field name').fill('status')
      await row.getByLabel('Choices').fill('draft, published')
      row = await addField(page, 'relation')
      await row.getByLabel('Field name').fill('author')
      await row.getByLabel('Related collection').selectOption({ label: 'authors' })
      row = await addField(page, 'file')
      await row.getByLabel('Field name').fill('cover')
      await row.getByLabel('Max files (1 = single)').fill('3')
      // Reorder with the keyboard: cover moves above author.
      await row.getByRole('button', { name: 'Move cover up' }).focus()
      await page.keyboard.press('Enter')
      // Back with the mouse (author dragged by its badge onto cover's row), then up again.
      await (
        await rowNamed(page, 'author')
      )
        .locator('.ce-drag')
        .dragTo(await rowNamed(page, 'cover'))
      await (await rowNamed(page, 'cover')).getByRole('button', { name: 'Move cover up' }).focus()
      await page.keyboard.press('Enter')
      await dialog.getByRole('button', { name: '+ New index' }).click()
      await dialog
        .getByLabel('New index')
        .fill("CREATE UNIQUE INDEX idx_posts_title ON posts (title) WHERE title != ''")
      await dialog.getByRole('button', { name: 'Set index' }).click()
      await dialog.getByText('CREATE UNIQUE INDEX idx_posts_title').waitFor()
      await tp.shot('collections-new')
      await dialog.getByRole('tab', { name: 'API rules' }).click()
      await page.getByRole('group', { name: 'List/Search rule' }).getByLabel('Filter').check()
      await page.getByLabel('List/Search rule filter').click()
      // The editor closes the quote itself.
      await page.keyboard.type('@request.auth.id != "')
      await dialog.getByRole('button', { name: 'Create' }).click()
      await dialog.waitFor({ state: 'detached' })
    })
    const res = await collection('posts')
    expect(res.status).toBe(200)
    const authors = await collection('authors')
    const custom = res.body.fields.filter((f: { system: boolean }) => !f.system)
    expect(custom.map((f: { name: string; type: string }) => `${f.name}:${f.type}`)).toEqual([
      'title:text',
      'status:select',
      'cover:file',
      'author:relation',
    ])
    expect(custom[0].required).toBe(true)
    expect(custom[1].values).toEqual(['draft', 'published'])
    expect(custom[2].maxSelect).toBe(3)
    expect(custom[3].collectionId).toBe(authors.body.id)
    expect(res.body.listRule).toBe('@request.auth.id != ""')
    expect(res.body.viewRule).toBeNull()
    expect(res.body.indexes).toHaveLength(1)
    expect(res.body.indexes[0]).toMatch(
      /^CREATE UNIQUE INDEX `?idx_posts_title`? ON `?posts`? \(`?title`?\) WHERE/,
    )
  })

  it('renames a field keeping its data, and confirms a field deletion listing it', async () => {
    const rec = await t.api('POST', '/api/collections/posts/records', {
      token: t.suToken,
      body: { title: 'Hello', status: 'draft' },
    })
    expect(rec.status).toBe(200)
    await withPage('#/collections?collection=posts', async (tp) => {
      const page = tp.page
      await page.getByRole('button', { name: 'Edit collection posts' }).first().click()
      const dialog = page.getByRole('dialog', { name: 'Edit collection posts' })
      await dialog.waitFor()
      await dialog.getByRole('button', { name: 'Remove title' }).waitFor()
      await (await rowNamed(page, 'title')).getByLabel('Field name').fill('headline')
      await dialog.getByRole('button', { name: 'Save changes' }).click()
      await dialog.waitFor({ state: 'detached' })
    })
    const renamed = await t.api('GET', `/api/collections/posts/records/${rec.body.id}`, {
      token: t.suToken,
    })
    expect(renamed.body.headline).toBe('Hello')
    expect(renamed.body.title).toBeUndefined()
    // The index over the renamed field follows it.
    expect((await collection('posts')).body.indexes[0]).toMatch(
      /\(`?headline`?\) WHERE `?headline`? != ''/,
    )

    await withPage('#/collections?collection=posts', async (tp) => {
      const page = tp.page
      await page.getByRole('button', { name: 'Edit collection posts' }).first().click()
      const dialog = page.getByRole('dialog', { name: 'Edit collection posts' })
      await dialog.getByRole('button', { name: 'Remove status' }).click()
      await dialog.getByRole('button', { name: 'Restore status' }).waitFor()
      await dialog.getByRole('button', { name: 'Save changes' }).click()
      const confirm = page.getByRole('dialog', { name: 'Confirm the changes that delete data' })
      const lost = confirm.getByRole('list', { name: 'Data that will be lost' })
      await lost.waitFor()
      expect(await lost.getByRole('listitem').allInnerTexts()).toEqual([
        'Field "status" (select) is deleted with all its values.',
      ])
      await tp.shot('collections-confirm-loss')
      // Cancelling keeps everything.
      await confirm.getByRole('button', { name: 'Cancel' }).click()
      expect(
        (await collection('posts')).body.fields.some((f: { name: string }) => f.name === 'status'),
      ).toBe(true)
      await dialog.getByRole('button', { name: 'Save changes' }).click()
      await confirm.getByRole('button', { name: 'Save and delete the data' }).click()
      await dialog.waitFor({ state: 'detached' })
    })
    const after = await collection('posts')
    expect(after.body.fields.map((f: { name: string }) => f.name)).not.toContain('status')
    expect(after.body.fields.map((f: { name: string }) => f.name)).toContain('headline')
  })

  it('previews and creates a view collection', async () => {
    await withPage('#/collections', async (tp) => {
      const page = tp.page
      await page.getByRole('button', { name: '+ New collection' }).click()
      const dialog = page.getByRole('dialog', { name: 'New collection' })
      await dialog.getByLabel('Name', { exact: true }).fill('headlines')
      await dialog.getByLabel('Collection type').selectOption('view')
      await dialog.getByRole('tab', { name: 'Query' }).click()
      await dialog.getByLabel('Select query').fill('SELECT id, headline FROM posts')
      await dialog.getByRole('button', { name: 'Preview' }).click()
      const preview = dialog.getByRole('region', { name: 'Query preview' })
      await preview.getByRole('cell', { name: 'Hello' }).waitFor()
      await preview.getByRole('columnheader', { name: 'headline' }).waitFor()
      await tp.shot('collections-view-preview')
      await dialog.getByRole('button', { name: 'Create' }).click()
      await dialog.waitFor({ state: 'detached' })
    })
    const view = await collection('headlines')
    expect(view.status).toBe(200)
    expect(view.body.type).toBe('view')
    expect(view.body.fields.map((f: { name: string }) => f.name)).toEqual(['id', 'headline'])
  })

  it('exports, then imports a changed export showing the diff first', async () => {
    let exported = ''
    await withPage('#/settings-export', async ({ page }) => {
      const box = page.getByLabel(/^JSON \(/)
      await box.waitFor()
      // Only posts.
      await page.getByRole('button', { name: 'Select none' }).click()
      await page.getByLabel('posts', { exact: true }).check()
      await page.getByText('JSON (1 collections)').waitFor()
      exported = await box.inputValue()
    })
    const list = JSON.parse(exported) as { name: string; fields: unknown[] }[]
    expect(list.map((c) => c.name)).toEqual(['posts'])
    list[0]!.fields.push({ name: 'summary', type: 'text' })
    await withPage('#/settings-import', async (tp) => {
      const page = tp.page
      await page.getByLabel('Collections JSON').fill(JSON.stringify(list))
      await page.getByRole('button', { name: 'Review changes' }).click()
      const diff = page.getByRole('region', { name: 'Changes' })
      await diff.getByText('Update posts').waitFor()
      await diff.getByText('+ fields: summary').waitFor()
      await tp.shot('collections-import-diff')
      expect(
        (await collection('posts')).body.fields.some((f: { name: string }) => f.name === 'summary'),
      ).toBe(false)
      await page.getByRole('button', { name: 'Import', exact: true }).click()
      await page.getByRole('button', { name: 'Confirm import' }).click()
      await page.getByText('Imported 1 collections.').waitFor()
      // Without merge, the diff says what the import would delete (nothing is imported here).
      const cover = list[0]!.fields.findIndex((f) => (f as { name: string }).name === 'cover')
      list[0]!.fields.splice(cover, 1)
      await page.getByLabel('Collections JSON').fill(JSON.stringify(list))
      await page.getByLabel(/^Merge/).uncheck()
      await page.getByRole('button', { name: 'Review changes' }).click()
      await diff.getByText('− fields deleted with their data: cover').waitFor()
      await diff.getByText('Delete headlines').waitFor()
      await diff.getByText('Delete authors').waitFor()
    })
    const after = await collection('posts')
    expect(after.body.fields.map((f: { name: string }) => f.name)).toContain('summary')
    // Merge kept the other collections.
    expect((await collection('headlines')).status).toBe(200)
  })

  it('edits the options of an auth collection; an OAuth2 secret stays write-only', async () => {
    await withPage('#/collections?collection=users', async (tp) => {
      const page = tp.page
      await page.getByRole('button', { name: 'Edit collection users' }).first().click()
      const dialog = page.getByRole('dialog', { name: 'Edit collection users' })
      await dialog.getByRole('tab', { name: 'Options' }).click()
      await dialog.getByLabel('Enable OTP').check()
      await dialog.getByLabel('OTP length').fill('8')
      await dialog.getByLabel('Auth token').fill('3600')
      await dialog.getByRole('button', { name: '+ Add provider' }).click()
      await dialog.getByLabel('Provider name (provider 1)').fill('gitlab')
      await dialog.getByLabel('Client ID (gitlab)').fill('client-1')
      await dialog.getByLabel('Client secret (gitlab)').fill('very-secret')
      await tp.shot('collections-auth-options')
      await dialog.getByRole('button', { name: 'Save changes' }).click()
      await dialog.waitFor({ state: 'detached' })
      const users = await collection('users')
      expect(users.body.otp).toMatchObject({ enabled: true, length: 8 })
      expect(users.body.authToken.duration).toBe(3600)
      expect(users.body.oauth2.providers).toHaveLength(1)
      expect(users.body.oauth2.providers[0]).toMatchObject({ name: 'gitlab', clientId: 'client-1' })
      expect(JSON.stringify(users.body)).not.toContain('very-secret')
      // Opened again, the stored secret shows as set, and saving keeps it.
      await page.getByRole('button', { name: 'Edit collection users' }).first().click()
      await dialog.getByRole('tab', { name: 'Options' }).click()
      const secret = dialog.getByLabel('Client secret (gitlab)')
      await expect(secret.getAttribute('placeholder')).resolves.toBe('set (leave empty to keep)')
      await expect(secret.inputValue()).resolves.toBe('')
      await dialog.getByRole('button', { name: 'Save changes' }).click()
      await dialog.waitFor({ state: 'detached' })
    })
    const again = await collection('users')
    expect(again.body.oauth2.providers[0]).toMatchObject({ name: 'gitlab', clientId: 'client-1' })
  })

  it('changes a field type, truncates, and deletes a collection once its name is typed (dark theme)', async () => {
    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'scratch', type: 'base', fields: [{ name: 'note', type: 'text' }] },
    })
    const rec = await t.api('POST', '/api/collections/scratch/records', {
      token: t.suToken,
      body: { note: 'x' },
    })
    expect(rec.status).toBe(200)
    await withPage(
      '#/collections?collection=scratch',
      async (tp) => {
        const page = tp.page
        await page.getByRole('button', { name: 'Edit collection scratch' }).first().click()
        const dialog = page.getByRole('dialog', { name: 'Edit collection scratch' })
        await dialog.getByRole('button', { name: 'Options of note' }).waitFor()
        // A type change replaces the field: the confirmation says its values go.
        await dialog.getByRole('button', { name: 'Remove note' }).waitFor()
        await (await rowNamed(page, 'note')).getByLabel('Type').selectOption('number')
        await dialog.getByRole('button', { name: 'Save changes' }).click()
        const loss = page.getByRole('list', { name: 'Data that will be lost' })
        await expect(loss.innerText()).resolves.toBe(
          'Field "note" changes type text → number: its values are deleted.',
        )
        await page.getByRole('button', { name: 'Save and delete the data' }).click()
        await dialog.waitFor({ state: 'detached' })
        const changed = await collection('scratch')
        expect(changed.body.fields.find((f: { name: string }) => f.name === 'note').type).toBe(
          'number',
        )
        await page.getByRole('button', { name: 'Edit collection scratch' }).first().click()
        await dialog.getByRole('button', { name: 'Options of note' }).waitFor()
        await dialog
          .getByRole('button', { name: /Options/ })
          .last()
          .click()
        await tp.shot('collections-editor-dark')
        await dialog.getByRole('button', { name: 'Truncate' }).click()
        await page.getByRole('button', { name: 'Delete every record' }).click()
        await page.getByText('Every record of "scratch" was deleted.').waitFor()
        const left = await t.api('GET', '/api/collections/scratch/records', { token: t.suToken })
        expect(left.body.items).toEqual([])
        await dialog.getByRole('button', { name: 'Delete collection' }).click()
        const confirm = page.getByRole('dialog', { name: 'Delete collection "scratch"?' })
        await confirm.getByLabel('Type "scratch" to confirm').fill('scratc')
        await expect(
          confirm.getByRole('button', { name: 'Delete the collection' }).isDisabled(),
        ).resolves.toBe(true)
        await confirm.getByLabel('Type "scratch" to confirm').fill('scratch')
        await confirm.getByRole('button', { name: 'Delete the collection' }).click()
        await confirm.waitFor({ state: 'detached' })
      },
      'dark',
    )
    expect((await collection('scratch')).status).toBe(404)
  })
})
