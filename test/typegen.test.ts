/**
 * Typed records: `GET /api/collections/meta/types` and `svcbase typegen` (a child process) give
 * the same text for a schema with every field type; a test app importing it and `pocketbase` is
 * compiled with the project's TypeScript and run against the live server, and a file with wrong
 * types fails to compile with the expected errors.
 */
import { execFile } from 'node:child_process'
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import pg from 'pg'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { blankCollection, makeField } from '../src/core/collections/defaults.js'
import type { Collection } from '../src/core/collections/model.js'
import { collectionIdentifiers, generateTypes } from '../src/core/collections/typegen.js'
import { dirSchema } from '../src/core/store-choice.js'
import { startServer, type TestServer } from './helpers/server.js'

/** The CLI from its sources, runnable from any working directory. */
const CLI = [
  '--import',
  pathToFileURL(resolve('node_modules/tsx/dist/loader.mjs')).href,
  resolve('src/cli.ts'),
]
const root = mkdtempSync(join(tmpdir(), 'svcbase-typegen-'))

interface Result {
  code: number | null
  stdout: string
  stderr: string
}

/** Runs a command to its end; never rejects (the exit code is in the result). */
function run(args: string[], env: Record<string, string> = {}): Promise<Result> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      args,
      { cwd: root, env: { ...process.env, ...env } },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
        done({ code, stdout, stderr })
      },
    )
  })
}

const cli = (args: string[]) => run([...CLI, ...args])

let t: TestServer
let userToken: string
let routeText: string

beforeAll(async () => {
  t = await startServer()
  const su = t.suToken
  const create = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', '/api/collections', { token: su, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as { id: string }
  }
  const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
  const users = await t.api('GET', '/api/collections/users', { token: su })
  let usersId: string
  if (users.status === 200) {
    usersId = users.body.id as string
    const fields = [
      ...(users.body.fields as unknown[]),
      { name: 'role', type: 'select', required: true, values: ['admin', 'member'], maxSelect: 1 },
    ].filter(
      (f, i, all) =>
        all.findIndex((g) => (g as { name: string }).name === (f as { name: string }).name) === i,
    )
    const res = await t.api('PATCH', `/api/collections/${usersId}`, {
      token: su,
      body: { fields, ...open },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  } else {
    usersId = (
      await create({
        name: 'users',
        type: 'auth',
        ...open,
        schema: [
          { name: 'name', type: 'text' },
          {
            name: 'role',
            type: 'select',
            required: true,
            options: { values: ['admin', 'member'], maxSelect: 1 },
          },
          { name: 'avatar', type: 'file', options: { maxSelect: 1 } },
        ],
      })
    ).id
  }
  const tags = await create({
    name: 'tags',
    type: 'base',
    ...open,
    schema: [
      { name: 'label', type: 'text', required: true },
      { name: 'color', type: 'select', options: { values: ['red', 'green'], maxSelect: 1 } },
    ],
  })
  await create({
    name: 'posts',
    type: 'base',
    ...open,
    schema: [
      { name: 'title', type: 'text', required: true },
      { name: 'body', type: 'editor' },
      { name: 'views', type: 'number' },
      { name: 'published', type: 'bool' },
      { name: 'contact', type: 'email' },
      { name: 'link', type: 'url' },
      { name: 'due', type: 'date' },
      {
        name: 'status',
        type: 'select',
        required: true,
        options: { values: ['draft', 'published'], maxSelect: 1 },
      },
      { name: 'categories', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 } },
      { name: 'author', type: 'relation', options: { collectionId: usersId, maxSelect: 1 } },
      { name: 'tags', type: 'relation', options: { collectionId: tags.id, maxSelect: 5 } },
      { name: 'images', type: 'file', options: { maxSelect: 3 } },
      { name: 'meta', type: 'json' },
      { name: 'location', type: 'geoPoint' },
      { name: 'embedding', type: 'vector', options: { dimensions: 3 } },
      { name: 'secret', type: 'text', hidden: true },
      { name: '2nd_title', type: 'text' },
      { name: 'stamp', type: 'autodate', options: { onCreate: true, onUpdate: true } },
    ],
  })
  await create({
    name: 'post_stats',
    type: 'view',
    listRule: '',
    viewRule: '',
    viewQuery: 'SELECT id, title, views, status FROM posts',
  })
  // Three names needing care: two map to `BlogPosts`, one to `Superusers` (as `_superusers`
  // does), one starts with a digit.
  for (const name of ['blog_posts', 'blogPosts', 'superusers', '3d_models'])
    await create({ name, type: 'base', ...open, schema: [{ name: 'name', type: 'text' }] })

  const user = await t.api('POST', '/api/collections/users/records', {
    token: su,
    body: {
      email: 'bob@example.com',
      password: 'bobsecret1',
      passwordConfirm: 'bobsecret1',
      role: 'member',
    },
  })
  expect(user.status, JSON.stringify(user.body)).toBe(200)
  const login = await t.api('POST', '/api/collections/users/auth-with-password', {
    body: { identity: 'bob@example.com', password: 'bobsecret1' },
  })
  userToken = login.body.token as string
  const res = await fetch(`${t.url}/api/collections/meta/types`, {
    headers: { authorization: `Bearer ${su}` },
  })
  expect(res.status).toBe(200)
  routeText = await res.text()
}, 30_000)

afterAll(async () => {
  await t?.close()
  rmSync(root, { recursive: true, force: true })
})

describe('GET /api/collections/meta/types', () => {
  it('is for superusers: 401 for a guest, 403 for a user', async () => {
    const guest = await t.api('GET', '/api/collections/meta/types')
    expect(guest.status).toBe(401)
    const user = await t.api('GET', '/api/collections/meta/types', { token: userToken })
    expect(user.status).toBe(403)
  })

  it('answers the text with an ETag; If-None-Match answers 304; a schema change changes both', async () => {
    const res = await fetch(`${t.url}/api/collections/meta/types`, {
      headers: { authorization: `Bearer ${t.suToken}` },
    })
    expect(res.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    const etag = res.headers.get('etag')!
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/)
    expect(await res.text()).toBe(routeText)
    const again = await fetch(`${t.url}/api/collections/meta/types`, {
      headers: { authorization: `Bearer ${t.suToken}`, 'if-none-match': etag },
    })
    expect(again.status).toBe(304)
    expect(await again.text()).toBe('')

    await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'later', type: 'base', schema: [{ name: 'note', type: 'text' }] },
    })
    const changed = await fetch(`${t.url}/api/collections/meta/types`, {
      headers: { authorization: `Bearer ${t.suToken}`, 'if-none-match': etag },
    })
    expect(changed.status).toBe(200)
    expect(changed.headers.get('etag')).not.toBe(etag)
    expect(await changed.text()).toContain('export type LaterRecord = {')
    const del = await t.api('DELETE', '/api/collections/later', { token: t.suToken })
    expect(del.status).toBe(204)
  })

  it('wins over /api/collections/:collection, even with a collection named meta', async () => {
    const meta = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: { name: 'meta', type: 'base', schema: [] },
    })
    expect(meta.status).toBe(200)
    const res = await t.api('GET', '/api/collections/meta/types', { token: t.suToken })
    expect(res.status).toBe(200)
    expect(res.body).toMatch(/^\/\*\*\n \* Generated by svcbase typegen/)
    expect((await t.api('GET', '/api/collections/meta', { token: t.suToken })).body.name).toBe(
      'meta',
    )
    expect((await t.api('DELETE', '/api/collections/meta', { token: t.suToken })).status).toBe(204)
  })
})

describe('the generated text', () => {
  it('maps every field type, selects to unions, relations to ids, files to names', () => {
    const posts = block(routeText, 'PostsRecord')
    expect(posts).toContain('  id: RecordIdString\n')
    expect(posts).toContain('  title: string\n')
    expect(posts).toContain('  body: HTMLString\n')
    expect(posts).toContain('  views: number\n')
    expect(posts).toContain('  published: boolean\n')
    expect(posts).toContain('  due: IsoDateString\n')
    expect(posts).toContain('  status: "draft" | "published"\n')
    expect(posts).toContain('  categories: ("a" | "b" | "c")[]\n')
    expect(posts).toContain('  /** the id of a record of `users` */\n  author: RecordIdString\n')
    expect(posts).toContain('  /** ids of records of `tags` */\n  tags: RecordIdString[]\n')
    expect(posts).toContain('  images: FileNameString[]\n')
    expect(posts).toContain('  meta: unknown\n')
    expect(posts).toContain('  location: GeoPoint\n')
    expect(posts).toContain('  embedding: number[] | null\n')
    expect(posts).toContain('  "2nd_title": string\n')
    expect(posts).toContain('  stamp: IsoDateString\n')
    expect(posts).not.toContain('secret')
    const create = block(routeText, 'PostsCreate')
    expect(create).not.toMatch(/\b(created|updated|stamp):/)
    expect(create).toContain('  images?: FileInput[]\n')
    expect(create).toContain('  /** hidden: superusers only */\n  secret?: string\n')
    expect(block(routeText, 'PostsUpdate')).toContain(
      '  "tags+"?: RecordIdString | RecordIdString[]\n',
    )
    expect(block(routeText, 'PostsExpand')).toBe(
      'export type PostsExpand = {\n  author?: UsersResponse\n  tags?: TagsResponse[]\n}',
    )
    const users = block(routeText, 'UsersRecord')
    expect(users).not.toMatch(/password|tokenKey/)
    expect(block(routeText, 'UsersCreate')).toContain(
      '  password: string\n  passwordConfirm: string\n',
    )
    expect(routeText).not.toContain('PostStatsCreate')
    expect(routeText).toContain('  BlogPosts: "blogPosts",\n  BlogPosts2: "blog_posts",\n')
    expect(routeText).toContain('  Superusers2: "_superusers",\n')
    expect(routeText).toContain('  Superusers: "superusers",\n')
    expect(routeText).toContain('  _3dModels: "3d_models",\n')
    // PocketBase's system collections are in, svcbase's internal ones out.
    expect(routeText).toContain('collection(idOrName: "_externalAuths")')
    expect(routeText).not.toMatch(/"_webhooks"|"_logs"|"_teams"/)
  })

  it('is the same bytes whatever the order of the collections', () => {
    const all = t.server.app.collections.all()
    const text = generateTypes(all)
    expect(text).toBe(routeText)
    expect(generateTypes([...all].reverse())).toBe(text)
  })
})

/** A collection built by the model's own constructors (no server): `fields` added to its system ones. */
function collection(name: string, fields: Parameters<typeof makeField>[0][] = []): Collection {
  const c = blankCollection('base', name)
  c.id = `pbc_${name}`
  c.fields.push(...fields.map(makeField))
  return c
}

/** Names and values a module must survive: clashes, digits first, quotes in select values. */
const awkward = [
  collection('blog_posts'),
  collection('blogPosts'),
  collection('blogPosts2', [
    {
      name: 'mood',
      type: 'select',
      required: true,
      options: { values: [`it's "quoted"`, 'back\\slash', 'line\nbreak', 'ünï'], maxSelect: 1 },
    },
    { name: '9lives', type: 'number' },
    { name: 'class', type: 'text' },
    {
      name: 'lost',
      type: 'relation',
      options: { collectionId: 'gone*/ x', maxSelect: 1 },
    },
  ]),
  collection('a__b'),
  collection('A_b'),
]

describe('identifiers', () => {
  it('are unique and deterministic: clashes get 2, 3, … without taking a name another maps to', () => {
    const ids = collectionIdentifiers(awkward)
    expect(Object.fromEntries([...awkward].map((c) => [c.name, ids.get(c.id)]))).toEqual({
      blog_posts: 'BlogPosts3',
      blogPosts: 'BlogPosts',
      blogPosts2: 'BlogPosts2',
      a__b: 'AB2',
      A_b: 'AB',
    })
    const text = generateTypes(awkward)
    expect(text).toContain(
      `  mood: "it's \\"quoted\\"" | "back\\\\slash" | "line\\nbreak" | "ünï"\n`,
    )
    expect(text).toContain('  "9lives": number\n')
    expect(text).toContain('  /** the id of a record of `gone___x` */\n')
    expect(text).toContain('  lost?: RecordModel\n')
    expect(generateTypes([...awkward].reverse())).toBe(text)
  })
})

/** The declaration of `name` in `text`, up to its closing brace. */
function block(text: string, name: string): string {
  const start = text.indexOf(`export type ${name}`)
  expect(start, name).toBeGreaterThanOrEqual(0)
  return text.slice(start, text.indexOf('\n}', start) + 2)
}

describe('svcbase typegen', { timeout: 60_000 }, () => {
  it('prints the same text as the route, writes --out whole, and refuses what it cannot do', async () => {
    const out = join(root, 'types', 'pb-types.ts')
    mkdirSync(join(root, 'types'))
    const [printed, written, noDir, noData, badOut, extra, misplaced] = await Promise.all([
      cli(['typegen', `--dir=${t.dir}`]),
      cli(['typegen', '--dir', t.dir, '--out', out]),
      cli(['typegen', `--dir=${join(root, 'missing')}`]),
      cli(['typegen', `--dir=${join(root, 'types')}`]),
      cli(['typegen', `--dir=${t.dir}`, `--out=${join(root, 'nowhere', 'x.ts')}`]),
      cli(['typegen', 'posts', `--dir=${t.dir}`]),
      cli(['schema', 'export', `--dir=${t.dir}`, '--out=x.json']),
    ])
    expect(printed.code, printed.stderr).toBe(0)
    expect(printed.stdout).toBe(routeText)
    expect(printed.stderr).toMatch(/^typegen: \d+ collections\n$/)
    expect(written.code, written.stderr).toBe(0)
    expect(written.stdout).toBe('')
    expect(readFileSync(out, 'utf8')).toBe(routeText)
    expect(written.stderr).toContain(`collections written to ${out}`)
    expect(readdirSync(join(root, 'types'))).toEqual(['pb-types.ts'])

    expect(noDir.code).toBe(1)
    expect(noDir.stderr).toContain(`no data folder at ${join(root, 'missing')}`)
    expect(existsSync(join(root, 'missing'))).toBe(false)
    expect(noData.code).toBe(1)
    if (process.env.SVC_DATABASE_URL) {
      // On PostgreSQL the folder's schema has no svcbase tables: refused, and not created.
      const schema = dirSchema(join(root, 'types'))
      expect(noData.stderr).toContain(`no svcbase data in the PostgreSQL schema ${schema}`)
      const admin = new pg.Client({ connectionString: process.env.SVC_DATABASE_URL })
      await admin.connect()
      try {
        const r = await admin.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])
        expect(r.rowCount).toBe(0)
      } finally {
        await admin.end()
      }
    } else {
      expect(noData.stderr).toContain('data.db is missing')
    }
    expect(badOut.code).toBe(1)
    expect(badOut.stderr).toContain(`cannot write ${join(root, 'nowhere', 'x.ts')}`)
    expect(extra.code).toBe(2)
    expect(extra.stderr).toContain('typegen takes no arguments')
    expect(misplaced.code).toBe(2)
    expect(misplaced.stderr).toContain('--out belongs to typegen, not "schema"')
  })
})

const APP = `import PocketBase from 'pocketbase'
import {
  Collections,
  type BlogPosts2Create,
  type PostsCreate,
  type PostsExpand,
  type PostsRecord,
  type PostsResponse,
  type PostsUpdate,
  type Superusers2Response,
  type TagsCreate,
  type TypedPocketBase,
  type UsersCreate,
} from './pb-types.js'

const pb = new PocketBase(process.env.URL) as TypedPocketBase
pb.authStore.save(process.env.TOKEN!, null)

const user = await pb.collection('users').create({
  email: 'ann@example.com',
  password: 'annsecret1',
  passwordConfirm: 'annsecret1',
  role: 'admin',
  name: 'Ann',
} satisfies UsersCreate)
const role: 'admin' | 'member' = user.role
const tagData: TagsCreate = { label: 'news', color: 'red' }
const tag = await pb.collection('tags').create(tagData)
const status: PostsRecord['status'] = 'published'
const postData: PostsCreate = {
  title: 'Hello',
  status,
  categories: ['a', 'c'],
  author: user.id,
  tags: [tag.id],
  images: [new File(['one'], 'one.txt', { type: 'text/plain' })],
  meta: { k: 1 },
  location: { lon: 2.35, lat: 48.85 },
  embedding: [0.5, 0.25, 1],
  views: 3,
  published: true,
  '2nd_title': 'second',
}
const created = await pb.collection('posts').create(postData)
const update: PostsUpdate = {
  'views+': 2,
  'categories-': 'a',
  'images+': new File(['two'], 'two.txt', { type: 'text/plain' }),
}
await pb.collection('posts').update(created.id, update)
const post = await pb
  .collection('posts')
  .getOne<PostsResponse<PostsExpand>>(created.id, { expand: 'author,tags' })
const authorRole: 'admin' | 'member' | undefined = post.expand?.author?.role
const tagLabels: string[] = (post.expand?.tags ?? []).map((t) => t.label)
const stats = await pb.collection(Collections.PostStats).getFullList()
const blog = await pb.collection('blog_posts').create({ name: 'b' } satisfies BlogPosts2Create)
const supers: Superusers2Response[] = await pb.collection('_superusers').getFullList()
console.log(
  JSON.stringify({
    role,
    tag: tag.label,
    title: post.title,
    status: post.status,
    categories: post.categories,
    views: post.views,
    images: post.images.length,
    location: post.location,
    authorRole,
    tagLabels,
    collectionName: post.collectionName,
    stats: stats.map((s) => [s.title, s.views, s.status]),
    blog: blog.collectionName,
    supers: supers.map((s) => s.collectionName),
  }),
)
`

const BAD = `import type { PostsCreate, PostsRecord, TagsCreate } from './pb-types.js'
export const a: PostsRecord['status'] = 'archived'
export const b: TagsCreate = { label: 42 }
export const c: PostsCreate = { status: 'draft' }
`

describe('a test app typed with the generated file', { timeout: 60_000 }, () => {
  it('compiles against the pocketbase SDK, runs against the server; wrong types do not compile', async () => {
    const app = join(root, 'app')
    mkdirSync(app)
    symlinkSync(resolve('node_modules'), join(app, 'node_modules'), 'dir')
    writeFileSync(join(app, 'package.json'), '{ "type": "module" }\n')
    writeFileSync(join(app, 'pb-types.ts'), routeText)
    writeFileSync(join(app, 'app.ts'), APP)
    writeFileSync(join(app, 'bad.ts'), BAD)
    writeFileSync(join(app, 'awkward.ts'), generateTypes(awkward))
    const program = ts.createProgram(
      [join(app, 'app.ts'), join(app, 'bad.ts'), join(app, 'awkward.ts')],
      {
        target: ts.ScriptTarget.ES2022,
        module: ts.ModuleKind.NodeNext,
        moduleResolution: ts.ModuleResolutionKind.NodeNext,
        strict: true,
        noUncheckedIndexedAccess: true,
        skipLibCheck: true,
        types: ['node'],
        lib: ['lib.es2023.d.ts'],
        outDir: join(app, 'out'),
      },
    )
    const diagnostics = [...ts.getPreEmitDiagnostics(program), ...program.emit().diagnostics]
    const describe = (d: ts.Diagnostic) => {
      const line = d.file ? d.file.getLineAndCharacterOfPosition(d.start!).line + 1 : 0
      const file = d.file ? d.file.fileName.slice(app.length + 1) : ''
      return `${file}:${line} TS${d.code} ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`
    }
    const texts = diagnostics.map(describe)
    expect(texts.filter((d) => !d.startsWith('bad.ts:'))).toEqual([])
    const bad = texts.filter((d) => d.startsWith('bad.ts:'))
    expect(bad).toHaveLength(3)
    expect(bad[0]).toMatch(
      /^bad\.ts:2 TS2322 Type '"archived"' is not assignable to type '"draft" \| "published"'/,
    )
    expect(bad[1]).toMatch(/^bad\.ts:3 TS2322 Type 'number' is not assignable to type 'string'/)
    expect(bad[2]).toMatch(/^bad\.ts:4 TS2741 Property 'title' is missing in type/)

    const res = await run([join(app, 'out', 'app.js')], { URL: t.url, TOKEN: t.suToken })
    expect(res.code, res.stderr).toBe(0)
    const got = JSON.parse(res.stdout) as Record<string, unknown>
    expect(got).toEqual({
      role: 'admin',
      tag: 'news',
      title: 'Hello',
      status: 'published',
      categories: ['c'],
      views: 5,
      images: 2,
      location: { lon: 2.35, lat: 48.85 },
      authorRole: 'admin',
      tagLabels: ['news'],
      collectionName: 'posts',
      stats: [['Hello', 5, 'published']],
      blog: 'blog_posts',
      supers: ['_superusers'],
    })
    // Read back independently of the app: the records are stored.
    const list = await t.api('GET', '/api/collections/posts/records?filter=(title=%27Hello%27)', {
      token: t.suToken,
    })
    expect(list.body.totalItems).toBe(1)
    expect(list.body.items[0].images[0]).toMatch(/^one_\w+\.txt$/)
  })
})
