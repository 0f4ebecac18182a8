/**
 * The dashboard's rule pages in Chromium: the overview (every rule in one table, the relations
 * diagram, editing rules with completion and the server's syntax check as you type) and the
 * rules simulator (a user's records against a guest's, a denied view explained). Results are
 * checked through the API too.
 */
import type { Browser, Locator, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { launchBrowser, openPage, type TestPage } from './helpers/browser.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './helpers/server.js'

let browser: Browser
let t: TestServer
let auth: { token: string; record: unknown }
const ids: Record<string, string> = {}

async function create(collection: string, body: Record<string, unknown>): Promise<string> {
  const res = await t.api('POST', `/api/collections/${collection}/records`, {
    token: t.suToken,
    body,
  })
  expect(res.status, JSON.stringify(res.body)).toBe(200)
  return res.body.id as string
}

beforeAll(async () => {
  browser = await launchBrowser()
  t = await startServer()
  const res = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
    body: { identity: SU_EMAIL, password: SU_PASSWORD },
  })
  auth = { token: res.body.token, record: res.body.record }
  const posts = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: 'posts',
      type: 'base',
      listRule: 'owner = @request.auth.id || public = true',
      viewRule: 'owner = @request.auth.id',
      createRule: null,
      updateRule: 'owner = @request.auth.id',
      deleteRule: null,
      fields: [
        { name: 'title', type: 'text' },
        { name: 'public', type: 'bool' },
        { name: 'owner', type: 'relation', collectionId: '_pb_users_auth_', maxSelect: 1 },
      ],
    },
  })
  expect(posts.status).toBe(200)
  const comments = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name: 'comments',
      type: 'base',
      listRule: '',
      fields: [
        { name: 'body', type: 'text' },
        { name: 'post', type: 'relation', collectionId: posts.body.id, maxSelect: 1 },
      ],
    },
  })
  expect(comments.status).toBe(200)
  for (const name of ['alice', 'bob']) {
    ids[name] = await create('users', {
      email: `${name}@example.com`,
      name,
      password: 'password123',
      passwordConfirm: 'password123',
    })
  }
  ids.alice1 = await create('posts', { title: 'Alice private', owner: ids.alice })
  ids.alice2 = await create('posts', { title: 'Alice second', owner: ids.alice })
  ids.bob1 = await create('posts', { title: 'Bob private', owner: ids.bob })
  ids.pub = await create('posts', { title: 'Bob public', owner: ids.bob, public: true })
  ids.comment = await create('comments', { body: 'Nice', post: ids.pub })
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
  // A step that never happens fails by name, well before the test's own timeout.
  p.page.setDefaultTimeout(20_000)
  try {
    await p.page.addInitScript({
      content: `localStorage.setItem('__svc_superusers__/_/', ${JSON.stringify(JSON.stringify(auth))})`,
    })
    await p.page.goto(`${t.url}/_/${hash}`)
    await fn(p)
    expect(p.outside).toEqual([])
    // The syntax check's 400s log a console error too; nothing else may.
    expect(p.errors.filter((e) => !/status of 400/.test(e))).toEqual([])
  } finally {
    await p.close()
  }
}

function ruleBox(page: Page, label: string): Locator {
  return page.locator('fieldset.rule-input', {
    has: page.locator('legend', { hasText: new RegExp(`^${label}$`) }),
  })
}

describe('overview', () => {
  it('shows every rule in one table and a relations diagram that links to each collection', async () => {
    await withPage('#/overview', async (p) => {
      const row = p.page.locator('tr[data-collection="posts"]')
      await row.waitFor()
      await expect(row.innerText()).resolves.toContain('owner = @request.auth.id || public = true')
      expect(await row.locator('.rule-badge.locked').count()).toBe(2) // create, delete
      const comments = p.page.locator('tr[data-collection="comments"]')
      await expect(comments.locator('.rule-badge.open').innerText()).resolves.toBe('anyone')
      // System collections only on request.
      expect(await p.page.locator('tr[data-collection="_superusers"]').count()).toBe(0)

      const diagram = p.page.locator('svg.relations-diagram')
      await expect(diagram.locator('a[data-collection]').count()).resolves.toBe(3)
      const lines = await diagram.locator('path.rel-line title').allTextContents()
      expect(lines.sort()).toEqual(['comments.post → posts', 'posts.owner → users'])
      await p.shot('rules-overview')

      // Keyboard: a box is focusable and Enter opens its collection.
      const box = diagram.locator('a[data-collection="posts"]')
      await box.focus()
      await p.page.keyboard.press('Enter')
      await p.page.waitForURL(/#\/collections\?collection=posts$/)
    })
  })

  it('is readable in the dark theme', async () => {
    await withPage(
      '#/overview',
      async (p) => {
        await p.page.locator('svg.relations-diagram').waitFor()
        await p.shot('rules-overview-dark')
      },
      'dark',
    )
  })
})

describe('editing a rule', () => {
  it('completes with Enter, reports a syntax error as you type, and saves', async () => {
    await withPage('#/overview', async (p) => {
      const page = p.page
      await page.getByRole('button', { name: 'Edit the rules of comments' }).click()
      const dialog = page.getByRole('dialog', { name: 'API rules of comments' })
      const createRule = ruleBox(page, 'Create rule')
      await createRule.getByText('Superusers only', { exact: true }).waitFor()
      await createRule.getByLabel('Filter', { exact: true }).check()
      const editor = createRule.locator('.cm-content')
      await editor.click()

      // Completion: `@request.auth.i` offers `id`; Enter accepts it.
      await page.keyboard.type('@request.auth.i')
      const option = page.locator('.cm-tooltip-autocomplete li', { hasText: /^id/ })
      await option.waitFor()
      await p.shot('rules-completion')
      await page.keyboard.press('Enter')
      await expect(editor.innerText()).resolves.toBe('@request.auth.id')
      await page.keyboard.type(' != "')
      await createRule.getByText('The rule is valid.').waitFor()

      // A broken rule: the server's message appears, then goes once it is fixed.
      await page.keyboard.press('ControlOrMeta+a')
      await page.keyboard.type('post.nope = 1')
      const alert = createRule.getByRole('alert')
      await alert.waitFor()
      await expect(alert.innerText()).resolves.toMatch(/^Invalid rule: .*nope/)
      await expect(editor.getAttribute('aria-invalid')).resolves.toBe('true')
      await p.shot('rules-syntax-error')
      await page.keyboard.press('ControlOrMeta+a')
      await page.keyboard.type('post.ti')
      await page.locator('.cm-tooltip-autocomplete li', { hasText: /^title/ }).waitFor()
      await page.keyboard.press('Enter')
      await page.keyboard.type(' != "')
      await alert.waitFor({ state: 'detached' })
      await createRule.getByText('The rule is valid.').waitFor()
      await expect(editor.innerText()).resolves.toBe('post.title != ""')

      // Anyone for delete; then save.
      await ruleBox(page, 'Delete rule').getByLabel('Anyone', { exact: true }).check()
      await dialog.getByRole('button', { name: 'Save rules' }).click()
      await dialog.waitFor({ state: 'detached' })
      const row = page.locator('tr[data-collection="comments"]')
      await row.getByText('post.title != ""').waitFor()
    })
    const c = await t.api('GET', '/api/collections/comments', { token: t.suToken })
    expect(c.body.createRule).toBe('post.title != ""')
    expect(c.body.deleteRule).toBe('')
    expect(c.body.listRule).toBe('')
    expect(c.body.viewRule).toBeNull()
  }, 60_000)
})

describe('rules simulator', () => {
  it("shows a user's records against a guest's, and explains a denied view", async () => {
    await withPage('#/rules-simulator?collection=posts', async (p) => {
      const page = p.page
      const result = page.locator('.simulator-result')
      const titles = () => result.locator('tbody tr td:nth-child(2)').allInnerTexts()

      // A guest sees the public post only.
      await page.getByRole('button', { name: 'Run' }).click()
      await result.getByText('Result for a guest').waitFor()
      expect(await titles()).toEqual(['Bob public'])
      await expect(result.innerText()).resolves.toContain(
        'owner = @request.auth.id || public = true',
      )

      // Alice sees hers and the public one.
      await page.getByLabel('Run as').selectOption('users')
      await page.getByLabel('Find a user of users').fill('alice')
      await page.getByRole('button', { name: `alice@example.com (${ids.alice})` }).click()
      await page.getByRole('button', { name: 'Run' }).click()
      await result.getByText(`Result for alice@example.com`).waitFor()
      expect((await titles()).sort()).toEqual(['Alice private', 'Alice second', 'Bob public'])
      await p.shot('rules-simulator')

      // Viewing Bob's private post: it exists, the rule hides it (404, not 403).
      await page.getByLabel('Action').selectOption('view')
      await page.getByLabel('Record id').fill(ids.bob1!)
      await page.getByRole('button', { name: 'Run' }).click()
      await result.getByText('404', { exact: true }).waitFor()
      await expect(result.locator('.explanation').innerText()).resolves.toMatch(
        /exists, but the view rule does not match/,
      )
      await p.shot('rules-simulator-denied')

      // A view rule of "superusers only" (null) is a 403, for a guest as for anyone.
      await page.getByLabel('Collection').selectOption('comments')
      await page.getByLabel('Run as').selectOption('')
      await page.getByLabel('Record id').fill(ids.comment!)
      await page.getByRole('button', { name: 'Run' }).click()
      await result.getByText('403', { exact: true }).waitFor()
      await expect(result.locator('.explanation').innerText()).resolves.toMatch(
        /"superusers only" \(null\): a guest is refused with 403/,
      )
      await expect(result.locator('.rule-badge').innerText()).resolves.toBe('superusers only')

      // The superuser is still signed in (the user's token lived in another client).
      const stored = await page.evaluate<string | null>(
        'localStorage.getItem("__svc_superusers__/_/")',
      )
      const { token, record } = JSON.parse(stored ?? '{}') as { token: string; record: unknown }
      expect(record).toMatchObject({ collectionName: '_superusers', email: SU_EMAIL })
      const me = await t.api('GET', '/api/collections/posts/records?perPage=10', { token })
      expect(me.body.items).toHaveLength(4)
      await page.getByRole('button', { name: 'Sign out' }).waitFor()
    })
  }, 60_000)
})
