/**
 * List and view parameters on a small data model (users, tags, posts, comments and a few
 * rule-guarded collections, ids chosen by the corpus): filters of every operator and modifier,
 * relation and back-relation paths, @collection joins, macros, invalid filters; sort; fields and
 * excerpts; expand (nested, back-relations, unknown names, relations the caller may not view);
 * pagination edge values; list and view rules as guest, signed-in users and the superuser.
 */
import type { Group, Step } from '../harness.js'

const open = { listRule: '', viewRule: '', createRule: null, updateRule: null, deleteRule: null }
const signedIn = '@request.auth.id != ""'
const rules = (list: string | null, view: string | null) => ({
  listRule: list,
  viewRule: view,
  createRule: null,
  updateRule: null,
  deleteRule: null,
})
const autodates = [
  { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
  { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
]

const uid = (n: number) => `usr${String(n).padStart(12, '0')}`
const tid = (n: number) => `tag${String(n).padStart(12, '0')}`
const pid = (n: number) => `pst${String(n).padStart(12, '0')}`
const cid = (n: number) => `cmt${String(n).padStart(12, '0')}`
const nid = (n: number) => `not${String(n).padStart(12, '0')}`
const thid = (n: number) => `thr${String(n).padStart(12, '0')}`
const rid = (n: number) => `rep${String(n).padStart(12, '0')}`
const gid = (n: number) => `gat${String(n).padStart(12, '0')}`
const sid = (n: number) => `stf${String(n).padStart(12, '0')}`

const steps: Step[] = []
const add = (s: Step) => steps.push(s)
const create = (name: string, body: { name: string; [key: string]: unknown }) =>
  add({
    name,
    method: 'POST',
    path: '/api/collections',
    as: 'su',
    body,
    save: { [`${body.name}Id`]: 'id' },
  })
const insert = (name: string, coll: string, body: unknown) =>
  add({ name, method: 'POST', path: `/api/collections/${coll}/records`, as: 'su', body })

/** A list request; `query` is a list of [key, value] pairs, encoded here. */
const list = (
  name: string,
  coll: string,
  query: Array<[string, string]>,
  as?: string,
  headers?: Record<string, string>,
) => {
  const qs = query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  add({
    name,
    method: 'GET',
    path: `/api/collections/${coll}/records${qs ? `?${qs}` : ''}`,
    ...(as ? { as } : {}),
    ...(headers ? { headers } : {}),
  })
}
const view = (
  name: string,
  coll: string,
  id: string,
  query: Array<[string, string]> = [],
  as?: string,
  headers?: Record<string, string>,
) => {
  const qs = query.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')
  add({
    name,
    method: 'GET',
    path: `/api/collections/${coll}/records/${id}${qs ? `?${qs}` : ''}`,
    ...(as ? { as } : {}),
    ...(headers ? { headers } : {}),
  })
}

// ---------------------------------------------------------------- the data model

create('members create', {
  name: 'members',
  type: 'auth',
  fields: [
    { name: 'name', type: 'text' },
    { name: 'age', type: 'number' },
    { name: 'role', type: 'select', values: ['admin', 'editor', 'reader'], maxSelect: 1 },
    ...autodates,
  ],
  passwordAuth: { enabled: true, identityFields: ['email'] },
  ...rules(signedIn, signedIn),
})
create('tags create', {
  name: 'tags',
  type: 'base',
  fields: [
    { name: 'name', type: 'text', required: true },
    { name: 'color', type: 'select', values: ['red', 'green', 'blue'], maxSelect: 1 },
  ],
  ...open,
})
create('posts create', {
  name: 'posts',
  type: 'base',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'body', type: 'editor' },
    { name: 'views', type: 'number' },
    { name: 'score', type: 'number' },
    { name: 'published', type: 'bool' },
    { name: 'when', type: 'date' },
    { name: 'author', type: 'relation', collectionId: '{{membersId}}', maxSelect: 1 },
    { name: 'tags', type: 'relation', collectionId: '{{tagsId}}', maxSelect: 10 },
    {
      name: 'categories',
      type: 'select',
      values: ['news', 'tech', 'life', 'misc'],
      maxSelect: 4,
    },
    { name: 'meta', type: 'json' },
    ...autodates,
  ],
  ...open,
})
create('comments create', {
  name: 'comments',
  type: 'base',
  fields: [
    { name: 'message', type: 'text' },
    { name: 'votes', type: 'number' },
    { name: 'post', type: 'relation', collectionId: '{{postsId}}', maxSelect: 1 },
    { name: 'author', type: 'relation', collectionId: '{{membersId}}', maxSelect: 1 },
  ],
  ...open,
})
create('notes create', {
  name: 'notes',
  type: 'base',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'shared', type: 'bool' },
    { name: 'owner', type: 'relation', collectionId: '{{membersId}}', maxSelect: 1 },
  ],
  ...rules('owner = @request.auth.id || shared = true', 'owner = @request.auth.id'),
})
create('gated create', {
  name: 'gated',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  ...rules('@request.query.key = "open"', '@request.headers.x_key = "abc"'),
})
create('staff create', {
  name: 'staff',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  ...rules(
    '@request.auth.role = "admin" || @request.auth.role = "editor"',
    '@request.auth.age > 20 && @request.auth.verified = true',
  ),
})
const threadRules = rules(
  'replies_via_thread.author ?= @request.auth.id',
  'replies_via_thread.id:length = 0 || replies_via_thread.author ?= @request.auth.id',
)
// A back-relation in a rule needs the collection pointing back to exist first.
add({
  name: 'threads create with back-relation rules',
  method: 'POST',
  path: '/api/collections',
  as: 'su',
  body: {
    name: 'threads',
    type: 'base',
    fields: [{ name: 'title', type: 'text' }],
    ...threadRules,
  },
})
create('threads create', {
  name: 'threads',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  ...rules(null, null),
})
create('replies create', {
  name: 'replies',
  type: 'base',
  fields: [
    { name: 'text', type: 'text' },
    { name: 'thread', type: 'relation', collectionId: '{{threadsId}}', maxSelect: 1 },
    { name: 'author', type: 'relation', collectionId: '{{membersId}}', maxSelect: 1 },
  ],
  ...rules('thread.title != "hidden"', '@request.auth.id = author'),
})
add({
  name: 'threads rules',
  method: 'PATCH',
  path: '/api/collections/threads',
  as: 'su',
  body: threadRules,
})
create('club create', {
  name: 'club',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  ...rules(
    '@request.auth.collectionName = "members" && @collection.notes.owner ?= @request.auth.id',
    '@request.auth.id != "" && @request.auth.name:lower = "alice"',
  ),
})
create('sealed create', {
  name: 'sealed',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  ...rules(null, null),
})

const users: Array<[number, string, string, number | null, string, boolean, boolean]> = [
  [1, 'alice', 'Alice', 30, 'admin', true, true],
  [2, 'bob', 'bob', 25, 'editor', false, false],
  [3, 'carol', 'Carol', 41, 'reader', true, true],
  [4, 'dave', 'dave', null, '', false, false],
  [5, 'oneil', "O'Neil", 19, 'reader', true, false],
]
for (const [n, login, name, age, role, verified, emailVisibility] of users)
  insert(`user ${login}`, 'members', {
    id: uid(n),
    email: `${login}@example.com`,
    password: `${login}-secret-1`,
    passwordConfirm: `${login}-secret-1`,
    name,
    ...(age === null ? {} : { age }),
    role,
    verified,
    emailVisibility,
  })

const tags: Array<[string, string]> = [
  ['go', 'red'],
  ['js', 'blue'],
  ['ts', 'blue'],
  ['sql', 'green'],
  ['rust', 'red'],
  ['C++', ''],
]
tags.forEach(([name, color], i) => insert(`tag ${name}`, 'tags', { id: tid(i + 1), name, color }))

interface Post {
  title: string
  body?: string
  views?: number
  score?: number
  published?: boolean
  when?: string
  author?: number
  tags?: number[]
  categories?: string[]
  meta?: unknown
}
const posts: Post[] = [
  {
    title: 'Hello World',
    body: '<p>Hello <b>world</b>, this is the very first post of the corpus.</p>',
    views: 10,
    score: 1.5,
    published: true,
    when: '2020-01-01 10:00:00.000Z',
    author: 1,
    tags: [1, 2],
    categories: ['news', 'tech'],
    meta: { a: 1, list: [1, 2], nested: { b: 'x' } },
  },
  {
    title: 'Second post',
    body: '<h1>Title</h1><p>Second &amp; more</p>',
    views: 20,
    score: -2.25,
    published: false,
    when: '2021-06-15 12:30:00.000Z',
    author: 2,
    tags: [2],
    categories: ['tech'],
    meta: { a: 2, list: [] },
  },
  {
    title: 'It\'s quoted "twice"',
    views: 0,
    score: 0,
    published: true,
    author: 1,
    meta: null,
  },
  {
    title: '100% sure',
    body: 'plain text body',
    views: 5,
    score: 3,
    published: true,
    when: '2999-12-31 23:59:59.000Z',
    author: 3,
    tags: [3, 4, 5],
    categories: ['life'],
    meta: [1, 2, 3],
  },
  {
    title: 'snake_case_title',
    views: -5,
    score: 0.1,
    published: false,
    when: '2019-03-03 00:00:00.000Z',
    tags: [1],
    categories: ['news', 'life', 'misc'],
    meta: 'just a string',
  },
  {
    title: 'Ünïcödé title',
    body: '<p>ünïcödé</p>',
    views: 1000,
    score: 99.9,
    published: true,
    when: '2022-02-22 22:22:22.222Z',
    author: 5,
    tags: [6],
    categories: ['misc'],
    meta: { a: 3 },
  },
  { title: 'lower case', views: 7, published: true, author: 2, tags: [1, 3], meta: 7 },
  { title: 'UPPER CASE', views: 8, author: 3, categories: ['news'], meta: true },
  { title: 'back\\slash', views: 9, author: 4, when: '2020-01-01 00:00:00.000Z' },
  { title: '', views: 10, published: true },
  { title: 'percent % sign', views: 20, score: 1.5, tags: [2, 4] },
  {
    title: 'Hello again',
    views: 12,
    author: 1,
    tags: [2, 1],
    categories: ['tech', 'news'],
    when: '2020-01-01 10:00:00.000Z',
  },
  { title: 'under_score', views: 3, author: 5, published: true, categories: ['misc', 'tech'] },
  { title: '  spaced  ', views: 3, author: 2, meta: { a: null } },
  { title: 'last one', views: 15, score: -0.5, author: 3, tags: [5], published: true },
]
posts.forEach((p, i) =>
  insert(`post ${i + 1}`, 'posts', {
    id: pid(i + 1),
    title: p.title,
    ...(p.body !== undefined ? { body: p.body } : {}),
    ...(p.views !== undefined ? { views: p.views } : {}),
    ...(p.score !== undefined ? { score: p.score } : {}),
    ...(p.published !== undefined ? { published: p.published } : {}),
    ...(p.when !== undefined ? { when: p.when } : {}),
    ...(p.author !== undefined ? { author: uid(p.author) } : {}),
    ...(p.tags ? { tags: p.tags.map(tid) } : {}),
    ...(p.categories ? { categories: p.categories } : {}),
    ...(p.meta !== undefined ? { meta: p.meta } : {}),
  }),
)

const comments: Array<[number, string, number, number]> = [
  [1, 'first!', 5, 2],
  [1, 'Nice post', 2, 3],
  [1, 'agree', 0, 1],
  [2, 'meh', -1, 1],
  [2, 'Second comment', 3, 4],
  [4, 'really 100%?', 10, 1],
  [4, 'yes', 1, 2],
  [4, "it's true", 7, 3],
  [4, 'no', 0, 5],
  [6, 'ünï', 4, 2],
  [12, 'again?', 2, 1],
  [12, 'HELLO', 6, 3],
]
comments.forEach(([post, message, votes, author], i) =>
  insert(`comment ${i + 1}`, 'comments', {
    id: cid(i + 1),
    post: pid(post),
    message,
    votes,
    author: uid(author),
  }),
)

const notes: Array<[string, boolean, number]> = [
  ['alice private', false, 1],
  ['alice shared', true, 1],
  ['bob private', false, 2],
  ['bob shared', true, 2],
  ['nobody private', false, 0],
  ['nobody shared', true, 0],
]
notes.forEach(([title, shared, owner], i) =>
  insert(`note ${i + 1}`, 'notes', {
    id: nid(i + 1),
    title,
    shared,
    ...(owner ? { owner: uid(owner) } : {}),
  }),
)
for (let i = 1; i <= 3; i++) insert(`gated ${i}`, 'gated', { id: gid(i), title: `gated ${i}` })
for (let i = 1; i <= 3; i++) insert(`staff ${i}`, 'staff', { id: sid(i), title: `staff ${i}` })
for (const [i, title] of ['alpha', 'beta', 'hidden', 'empty'].entries())
  insert(`thread ${title}`, 'threads', { id: thid(i + 1), title })
const replies: Array<[number, number, string]> = [
  [1, 1, 'alice on alpha'],
  [1, 2, 'bob on alpha'],
  [2, 2, 'bob on beta'],
  [3, 1, 'alice on hidden'],
  [3, 3, 'carol on hidden'],
]
replies.forEach(([thread, author, text], i) =>
  insert(`reply ${i + 1}`, 'replies', {
    id: rid(i + 1),
    thread: thid(thread),
    author: uid(author),
    text,
  }),
)
insert('club 1', 'club', { id: 'clb000000000001', title: 'club 1' })
insert('sealed 1', 'sealed', { id: 'sea000000000001', title: 'sealed 1' })

// Sign the users in.
for (const [, login] of users)
  add({
    name: `sign in ${login}`,
    method: 'POST',
    path: '/api/collections/members/auth-with-password',
    body: { identity: `${login}@example.com`, password: `${login}-secret-1` },
    save: { [login]: 'token' },
  })
add({
  name: 'sign in wrong password',
  method: 'POST',
  path: '/api/collections/members/auth-with-password',
  body: { identity: 'alice@example.com', password: 'nope-nope-nope' },
})

// ---------------------------------------------------------------- filters on posts

const postFilters: string[] = [
  // = and !=
  'title = "Hello World"',
  "title = 'Hello World'",
  'title = "hello world"',
  'title != "Hello World"',
  'title = ""',
  'title != ""',
  'views = 10',
  'views != 10',
  'views = "10"',
  'views = 10.0',
  'score = 1.5',
  'score = -2.25',
  'published = true',
  'published = false',
  'published != true',
  'published = 1',
  'published = "true"',
  'author = "usr000000000001"',
  'author != "usr000000000001"',
  'id = "pst000000000003"',
  'id != "pst000000000003"',
  // > >= < <=
  'views > 10',
  'views >= 10',
  'views < 5',
  'views <= 5',
  'views > -1',
  'score > 0',
  'score <= 0',
  'score < -1',
  'title > "m"',
  'title < "H"',
  'title >= "Hello"',
  'when > "2020-06-01"',
  'when >= "2020-01-01 10:00:00.000Z"',
  'when < "2020-01-01 10:00:00.000Z"',
  'when <= "2020-01-01 10:00:00Z"',
  'when > "2020-01-01"',
  'when = "2020-01-01 10:00:00.000Z"',
  'when = "2020-01-01 10:00:00Z"',
  'published > false',
  // ~ and !~
  'title ~ "hello"',
  'title ~ "HELLO"',
  'title !~ "hello"',
  'title ~ "100%"',
  'title ~ "%"',
  'title ~ "% sign"',
  'title ~ "_"',
  'title ~ "e_c"',
  'title ~ "ünï"',
  'title ~ "ÜNÏ"',
  'title ~ "back\\\\slash"',
  'title ~ ""',
  'title !~ ""',
  'body ~ "<b>"',
  'body ~ "&amp;"',
  'views ~ 1',
  'views ~ "0"',
  'when ~ "2020"',
  'categories ~ "tech"',
  'tags ~ "tag000000000001"',
  'meta ~ "list"',
  // escaping
  'title = "It\'s quoted \\"twice\\""',
  "title = 'It\\'s quoted \"twice\"'",
  'title = "back\\\\slash"',
  'title = "  spaced  "',
  'title = "spaced"',
  'title = "percent % sign"',
  // null and empty
  'when = null',
  'when != null',
  'when = ""',
  'when != ""',
  'author = null',
  'author = ""',
  'author != ""',
  'tags = null',
  'tags = ""',
  'tags = "[]"',
  'tags != ""',
  'categories = ""',
  'categories = null',
  'meta = null',
  'meta != null',
  'meta = ""',
  'body = ""',
  'score = null',
  'score = 0',
  'null = null',
  'null != null',
  '"" = null',
  // literals and logic
  '1 = 1',
  '1 = 2',
  '"a" = "a"',
  '"a" < "b"',
  'true = true',
  'views > 5 && published = true',
  'views > 5 || published = true',
  'views > 5 && published = true || title = ""',
  'views > 5 && (published = true || title = "")',
  '(views > 5 && published = true) || title = ""',
  '((views = 10))',
  'title = "Hello World" || title = "Second post" || title = "last one"',
  'views >= 5 && views <= 12 && published = false',
  '  views   >   10  ',
  'views>10&&published=true',
  // multi-value operators
  'tags ?= "tag000000000001"',
  'tags = "tag000000000001"',
  'tags ?!= "tag000000000001"',
  'tags != "tag000000000001"',
  'categories ?= "news"',
  'categories = "news"',
  'categories ?!= "news"',
  'categories != "news"',
  'categories ?~ "ne"',
  'categories ?!~ "ne"',
  'categories ~ "ne"',
  'tags.name ?= "go"',
  'tags.name = "go"',
  'tags.name ?!= "go"',
  'tags.name != "go"',
  'tags.name ?~ "s"',
  'tags.name ?!~ "s"',
  'tags.color ?= "blue"',
  'tags.color = "blue"',
  'tags.name ?> "rust"',
  'tags.name ?>= "rust"',
  'tags.name ?< "go"',
  'tags.name ?<= "go"',
  'views ?= 10',
  'views ?> 100',
  'title ?~ "hello"',
  // relation paths
  'author.name = "Alice"',
  'author.name ~ "a"',
  'author.name != "Alice"',
  'author.age > 20',
  'author.age = 0',
  'author.age = null',
  'author.role = "reader"',
  'author.verified = true',
  'author.email = "alice@example.com"',
  'author.email ~ "example"',
  'author.id = "usr000000000002"',
  'author.name = "O\'Neil"',
  "author.name = 'O\\'Neil'",
  'tags.id ?= "tag000000000003"',
  // back-relations
  'comments_via_post.message ?= "first!"',
  'comments_via_post.message = "first!"',
  'comments_via_post.message ?~ "100%"',
  'comments_via_post.votes ?> 5',
  'comments_via_post.votes > 5',
  'comments_via_post.votes ?>= 0',
  'comments_via_post.id:length = 0',
  'comments_via_post.id:length > 0',
  'comments_via_post.id:length >= 3',
  'comments_via_post:length = 0',
  'comments_via_post:length > 2',
  'comments_via_post.id = ""',
  'comments_via_post.id != ""',
  'comments_via_post.id ?= ""',
  'comments_via_post.id = null',
  'comments_via_post.author.name ?= "Carol"',
  'comments_via_post.author.role ?= "admin"',
  'comments_via_post.author ?= author',
  'comments_via_nope.id ?= "x"',
  // modifiers
  'tags:length = 0',
  'tags:length = 1',
  'tags:length > 1',
  'tags:length = 3',
  'categories:length = 0',
  'categories:length >= 2',
  'categories:length = "2"',
  'meta:length = 2',
  'title:length > 5',
  'author:length = 1',
  'categories:each = "news"',
  'categories:each ?= "news"',
  'categories:each != "misc"',
  'categories:each ~ "e"',
  'tags:each = "tag000000000001"',
  'tags:each ?= "tag000000000001"',
  'title:lower = "hello world"',
  'title:lower ~ "upper"',
  'title:lower = "ünïcödé title"',
  'author.name:lower = "alice"',
  'tags.name:lower ?= "c++"',
  'categories:lower ?= "news"',
  'title:upper = "HELLO WORLD"',
  'title:isset = true',
  'title:changed = true',
  'tags:nope = 1',
  // json paths
  'meta.a = 1',
  'meta.a > 1',
  'meta.a = null',
  'meta.a != null',
  'meta.nested.b = "x"',
  'meta.list = "[1,2]"',
  'meta.list:length = 2',
  'meta.nope = null',
  'meta.list.0 = 1',
  'meta = "just a string"',
  'meta = 7',
  'meta = true',
  'meta ~ "string"',
  // macros (only where the answer cannot depend on the day)
  'when > @now',
  'when < @now',
  'when < @now && when != ""',
  'when > @tomorrow',
  'when < @yesterday',
  'when >= @todayStart',
  'when <= @todayEnd',
  'when > @monthEnd',
  'when < @monthStart',
  'when > @yearEnd',
  'when < @yearStart',
  'created <= @now',
  'created > @now',
  'updated > "2000-01-01"',
  '@now > "2000-01-01 00:00:00.000Z"',
  '@year >= 2024',
  '@year < 2000',
  '@month >= 1 && @month <= 12',
  '@day >= 1',
  '@weekday >= 0 && @weekday <= 6',
  '@hour >= 0 && @minute >= 0 && @second >= 0',
  '@tomorrow > @yesterday',
  '@todayEnd > @todayStart',
  '@nope > 1',
  // functions
  'strftime("%Y", when) = "2020"',
  'strftime("%Y-%m", when) = "2021-06"',
  'strftime("%Y", when) = ""',
  'geoDistance(0, 0, 0, 1) > 100',
  'geoDistance(0, 0, 0, 1) < 100',
  'nope(1) = 1',
  'lower(title) = "x"',
  // invalid syntax and names
  'title =',
  'title',
  '= 1',
  'title = "unterminated',
  "title = 'unterminated",
  '(title = "a"',
  'title = "a")',
  'title == "a"',
  'title === "a"',
  'title <> "a"',
  'title = "a" &&',
  '&& title = "a"',
  'title = "a" and views = 1',
  'title = "a" or views = 1',
  'title = "a" & views = 1',
  'title = "a" | views = 1',
  'nope = 1',
  'nope.x = 1',
  'author.nope = 1',
  'author.name.x = 1',
  'tags.nope ?= 1',
  'title = nope',
  'title ! "a"',
  'title ?? "a"',
  'views > 5 &&& published = true',
  '()',
  '!published',
  'views + 1 > 10',
  '"unterminated',
  '1',
  'true',
  ';',
  '-- comment',
  'title = "a" /* x */',
  'title = "a"; DROP TABLE posts',
  'views = 1e2',
  'views = 0x10',
  'views = -0',
  'views = +10',
  'views = 10.',
  'views = .5',
]
// (A lone "|" is spelled out in the step name: difference lines read "step | line".)
for (const f of postFilters)
  list(`f: ${f.replace(' | ', ' pipe ')}`, 'posts', [
    ['filter', f],
    ['sort', 'id'],
    ['fields', 'id'],
  ])

/** Filters only a superuser may send (@request.* and @collection.*: 403 for others). */
const suFilters: string[] = [
  '@request.auth.id = ""',
  '@request.auth.id != ""',
  'author = @request.auth.id',
  '@request.query.x = "1"',
  '@request.query.sort = "id"',
  '@request.method = "GET"',
  '@request.context = "default"',
  '@request.headers.x_nope = ""',
  '@request.query.key:isset = true',
  '@request.query.nope:isset = false',
  '@request.body.title = ""',
  '@request.nope = 1',
  '@collection.comments.post ?= id && @collection.comments.votes > 6',
  '@collection.comments.post ?= id',
  '@collection.comments.post = id',
  '@collection.comments:c.post ?= id && @collection.comments:c.message ?~ "?"',
  '@collection.tags.name = "go" && tags ?= @collection.tags.id',
  '@collection.members.name ?= author.name && @collection.members.age > 40',
  '@collection.nope.id = 1',
  '@collection.comments.nope = 1',
  '@request.auth.collectionName = "_superusers"',
  '@request.auth.email = "admin@example.com"',
  '@request.auth.nope = 1',
  '@collection.comments.post ?= id && @collection.comments.author.name ?= "Alice"',
  '@collection.notes.owner ?= author && @collection.notes.shared = false',
]
for (const f of suFilters)
  list(
    `fs: ${f}`,
    'posts',
    [
      ['filter', f],
      ['sort', 'id'],
      ['fields', 'id'],
    ],
    'su',
  )
for (const f of suFilters.slice(0, 2))
  list(`fs guest: ${f}`, 'posts', [
    ['filter', f],
    ['sort', 'id'],
    ['fields', 'id'],
  ])
list(
  'fs alice: @collection',
  'posts',
  [
    ['filter', '@collection.comments.post ?= id'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)

/** Relation paths into members: nothing for a guest (members' rules), matches once signed in. */
const memberPathFilters = postFilters.filter((f) => /author\.|comments_via_post\.author/.test(f))
for (const f of memberPathFilters)
  list(
    `fa: ${f}`,
    'posts',
    [
      ['filter', f],
      ['sort', 'id'],
      ['fields', 'id'],
    ],
    'alice',
  )

list('filter empty', 'posts', [
  ['filter', ''],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('filter spaces only', 'posts', [
  ['filter', '   '],
  ['sort', 'id'],
  ['fields', 'id'],
])
list(
  'filter query key set',
  'posts',
  [
    ['filter', '@request.query.key:isset = true'],
    ['key', ''],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)
list(
  'filter query x',
  'posts',
  [
    ['filter', '@request.query.x = "1"'],
    ['x', '1'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)
list(
  'filter header x_nope set',
  'posts',
  [
    ['filter', '@request.headers.x_nope = "yes"'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
  { 'x-nope': 'yes' },
)
list(
  'filter auth alice',
  'posts',
  [
    ['filter', 'author = @request.auth.id'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)
list(
  'filter auth role su',
  'posts',
  [
    ['filter', '@request.auth.role = ""'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)
list(
  'filter auth role su admin',
  'posts',
  [
    ['filter', '@request.auth.role = "admin"'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)
list(
  'filter auth name lower su',
  'posts',
  [
    ['filter', 'author.name:lower = @request.auth.name:lower'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)
list(
  'filter auth email',
  'posts',
  [
    ['filter', 'author.email = @request.auth.email'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'carol',
)
list('filter very long', 'posts', [
  ['filter', Array.from({ length: 40 }, (_, i) => `views = ${i}`).join(' || ')],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('filter deep parens', 'posts', [
  ['filter', `${'('.repeat(20)}views > 5${')'.repeat(20)}`],
  ['sort', 'id'],
  ['fields', 'id'],
])

// Filters on the other collections.
const commentFilters = [
  'post.title = "Hello World"',
  'post.author.name = "Alice"',
  'post.tags.name ?= "go"',
  'post.tags.name = "go"',
  'post.published = false',
  'post.comments_via_post.votes ?> 9',
  'author.name ~ "o"',
  'votes > 2 && post.views >= 10',
  'message ~ "100%"',
  'message ~ "\'"',
  'message:lower = "hello"',
  'post = ""',
  'post.when < @now && post.when != ""',
]
for (const f of commentFilters)
  list(`fc: ${f}`, 'comments', [
    ['filter', f],
    ['sort', 'id'],
    ['fields', 'id'],
  ])
for (const f of commentFilters.filter((f) => f.includes('author')))
  list(
    `fc alice: ${f}`,
    'comments',
    [
      ['filter', f],
      ['sort', 'id'],
      ['fields', 'id'],
    ],
    'alice',
  )

const userFilters = [
  'name = "Alice"',
  'age > 20',
  'age = 0',
  'role = ""',
  'verified = true',
  'email ~ "bob"',
  'emailVisibility = true',
  'password = ""',
  'tokenKey != ""',
  'posts_via_author.views ?> 100',
  'posts_via_author.id:length = 0',
  'posts_via_author:length > 2',
  'comments_via_author.message ?= "yes"',
]
for (const f of userFilters)
  list(
    `fu: ${f}`,
    'members',
    [
      ['filter', f],
      ['sort', 'id'],
      ['fields', 'id'],
    ],
    'su',
  )
list('fu: as alice emails', 'members', [['sort', 'id']], 'alice')
list('fu: as guest', 'members', [['sort', 'id']])
list(
  'fu: email filter as alice',
  'members',
  [
    ['filter', 'email ~ "bob"'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)

// ---------------------------------------------------------------- sort

const sorts = [
  'title',
  '-title',
  '+title',
  'views,id',
  '-views,id',
  '-views,-id',
  'score,id',
  '-score,-id',
  'published,id',
  '-published,id',
  'when,id',
  '-when,id',
  'author,id',
  'author.name,id',
  '-author.name,id',
  'author.age,-id',
  'categories,id',
  'tags,id',
  'meta.a,id',
  '-meta.a,-id',
  'body,id',
  '@rowid',
  '-@rowid',
  'id',
  '-id',
  ' id ',
  'views , id',
  'id,',
  ',id',
  '',
  'nope',
  '-nope',
  'id,nope',
  'author.nope',
  'title:lower',
  '@random,nope',
  'comments_via_post.votes,id',
  '--id',
  'id desc',
]
for (const s of sorts)
  list(`sort: ${s}`, 'posts', [
    ['sort', s],
    ['fields', 'id,title'],
  ])
list('sort absent', 'posts', [['fields', 'id']])
list('sort comments post.title', 'comments', [
  ['sort', 'post.title,-votes,id'],
  ['fields', 'id'],
])
list(
  'sort users name',
  'members',
  [
    ['sort', 'name'],
    ['fields', 'id,name'],
  ],
  'su',
)
list(
  'sort users -age',
  'members',
  [
    ['sort', '-age,id'],
    ['fields', 'id,age'],
  ],
  'su',
)
list('sort tags color', 'tags', [
  ['sort', 'color,-name'],
  ['fields', 'name,color'],
])

// ---------------------------------------------------------------- fields

const fieldSets = [
  'id',
  'id,title',
  'title,id',
  '*',
  '*,id',
  'id,,title',
  ' id , title ',
  '',
  'nope',
  'id,nope',
  'collectionId,collectionName',
  'title:excerpt(5)',
  'title:excerpt(5,true)',
  'body:excerpt(20)',
  'body:excerpt(20,true)',
  'body:excerpt(20, true)',
  'body:excerpt(0)',
  'body:excerpt(-1)',
  'body:excerpt(x)',
  'body:excerpt()',
  'body:excerpt(1000,true)',
  'body:nope(1)',
  'body:excerpt',
  '*:excerpt(5)',
  'meta',
  'meta.a',
  'page,perPage',
  'items.id',
  'totalItems',
  'expand',
  'expand.author',
  'id,expand.author',
]
for (const f of fieldSets)
  list(`fields: ${f}`, 'posts', [
    ['fields', f],
    ['sort', 'id'],
    ['perPage', '4'],
  ])
view('view fields id,title', 'posts', pid(1), [['fields', 'id,title']])
view('view fields excerpt', 'posts', pid(1), [['fields', 'id,body:excerpt(12,true)']])
view('view fields nope', 'posts', pid(1), [['fields', 'nope']])
view('view fields empty', 'posts', pid(1), [['fields', '']])

// ---------------------------------------------------------------- expand

const expands: Array<[string, string, string?]> = [
  ['tags', 'id,tags,expand'],
  ['tags', '*'],
  ['author', 'id,expand'],
  ['author,tags', 'id,expand'],
  ['comments_via_post', 'id,expand'],
  ['comments_via_post.author', 'id,expand'],
  ['tags,comments_via_post', 'id,expand.tags.name,expand.comments_via_post.message'],
  ['nope', 'id,expand'],
  ['tags,nope', 'id,expand'],
  ['tags.nope', 'id,expand'],
  ['title', 'id,expand'],
  ['comments_via_nope', 'id,expand'],
  ['', 'id,expand'],
  [',tags,', 'id,expand'],
  ['tags,tags', 'id,expand'],
  ['TAGS', 'id,expand'],
  ['tags', '*,expand.tags.name'],
  ['tags', 'id,expand.tags.name:excerpt(1)'],
  ['tags', 'expand.*'],
  ['tags', 'id,expand.tags.*'],
  ['comments_via_post.post.tags', 'id,expand'],
  ['author', 'id,expand', 'alice'],
  ['author', 'id,expand.author.name,expand.author.email', 'alice'],
  ['author.posts_via_author', 'id,expand', 'bob'],
  ['comments_via_post.author', 'id,expand', 'carol'],
]
expands.forEach(([e, f, as], i) =>
  list(
    `expand ${i + 1}: ${e}${as ? ` as ${as}` : ''}`,
    'posts',
    [
      ['expand', e],
      ['fields', f],
      ['sort', 'id'],
      ['perPage', '6'],
    ],
    as,
  ),
)
const commentExpands: Array<[string, string, string?]> = [
  ['post', 'id,expand'],
  ['post.tags', 'id,expand'],
  ['post.author', 'id,expand', 'alice'],
  ['post.author', 'id,expand'],
  ['post,author', 'id,expand', 'bob'],
  ['post.comments_via_post', 'id,expand.post.expand.comments_via_post.id'],
  ['post.comments_via_post.post.comments_via_post.post', 'id,expand'],
  ['post.nope', 'id,expand'],
]
commentExpands.forEach(([e, f, as], i) =>
  list(
    `expand comments ${i + 1}: ${e}${as ? ` as ${as}` : ''}`,
    'comments',
    [
      ['expand', e],
      ['fields', f],
      ['sort', 'id'],
      ['perPage', '5'],
    ],
    as,
  ),
)
view('view expand author,tags as alice', 'posts', pid(1), [['expand', 'author,tags']], 'alice')
view('view expand author as guest', 'posts', pid(1), [['expand', 'author,tags']])
view(
  'view expand back-relation',
  'posts',
  pid(4),
  [
    ['expand', 'comments_via_post.author'],
    ['fields', 'id,expand'],
  ],
  'bob',
)
view('view expand none found', 'posts', pid(10), [['expand', 'author,tags,comments_via_post']])
view('view expand nope', 'posts', pid(1), [['expand', 'nope']])
view('view expand with fields', 'posts', pid(1), [
  ['expand', 'tags'],
  ['fields', 'title,expand.tags.name'],
])
view('view missing with expand', 'posts', 'pst999999999999', [['expand', 'tags']])
view(
  'view user posts back-relation',
  'members',
  uid(1),
  [
    ['expand', 'posts_via_author'],
    ['fields', 'id,expand.posts_via_author.id'],
  ],
  'bob',
)
view('view note owner as alice', 'notes', nid(1), [['expand', 'owner']], 'alice')
list(
  'notes expand owner as bob',
  'notes',
  [
    ['expand', 'owner'],
    ['sort', 'id'],
  ],
  'bob',
)
list('notes expand owner as guest', 'notes', [
  ['expand', 'owner'],
  ['sort', 'id'],
])
list(
  'replies expand thread as bob',
  'replies',
  [
    ['expand', 'thread,author'],
    ['sort', 'id'],
  ],
  'bob',
)
list(
  'threads expand replies as alice',
  'threads',
  [
    ['expand', 'replies_via_thread'],
    ['sort', 'id'],
  ],
  'alice',
)

// ---------------------------------------------------------------- pagination

for (const pp of [
  '0',
  '-1',
  '1',
  '2',
  '7',
  '15',
  '16',
  '500',
  '501',
  '1000',
  '1001',
  'x',
  '1.5',
  '',
])
  list(`perPage ${pp || '(empty)'}`, 'posts', [
    ['perPage', pp],
    ['sort', 'id'],
    ['fields', 'id'],
  ])
for (const pg of ['0', '-1', '1', '2', '3', '4', '99999', 'x', '1.5', '', '1e1'])
  list(`page ${pg || '(empty)'}`, 'posts', [
    ['page', pg],
    ['perPage', '4'],
    ['sort', 'id'],
    ['fields', 'id'],
  ])
for (const st of ['1', 'true', '0', 'false', 'x', 'TRUE', ''])
  list(`skipTotal ${st || '(empty)'}`, 'posts', [
    ['skipTotal', st],
    ['perPage', '4'],
    ['sort', 'id'],
    ['fields', 'id'],
  ])
list('skipTotal page 4', 'posts', [
  ['skipTotal', '1'],
  ['perPage', '4'],
  ['page', '4'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('skipTotal page 5', 'posts', [
  ['skipTotal', '1'],
  ['perPage', '4'],
  ['page', '5'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('skipTotal with filter', 'posts', [
  ['skipTotal', '1'],
  ['filter', 'views > 9'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('page 2 with filter', 'posts', [
  ['page', '2'],
  ['perPage', '3'],
  ['filter', 'views > 9'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('perPage 1 page 15', 'posts', [
  ['perPage', '1'],
  ['page', '15'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('perPage 1 page 16', 'posts', [
  ['perPage', '1'],
  ['page', '16'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('page huge', 'posts', [
  ['page', '9223372036854775807'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('perPage huge', 'posts', [
  ['perPage', '9223372036854775807'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('duplicate params', 'posts', [
  ['perPage', '2'],
  ['perPage', '3'],
  ['sort', '-id'],
  ['sort', 'id'],
  ['fields', 'id'],
])
list('unknown params', 'posts', [
  ['nope', '1'],
  ['sort', 'id'],
  ['perPage', '2'],
])
list('no params', 'tags', [])
list('comments page 2', 'comments', [
  ['page', '2'],
  ['perPage', '5'],
  ['sort', 'id'],
])

// ---------------------------------------------------------------- rules

const who = ['guest', 'alice', 'bob', 'carol', 'dave', 'oneil', 'su'] as const
const asOf = (w: (typeof who)[number]) => (w === 'guest' ? undefined : w)
for (const w of who) {
  list(
    `notes list as ${w}`,
    'notes',
    [
      ['sort', 'id'],
      ['fields', 'id,title'],
    ],
    asOf(w),
  )
  list(
    `staff list as ${w}`,
    'staff',
    [
      ['sort', 'id'],
      ['fields', 'id'],
    ],
    asOf(w),
  )
  list(
    `threads list as ${w}`,
    'threads',
    [
      ['sort', 'id'],
      ['fields', 'id,title'],
    ],
    asOf(w),
  )
  list(
    `replies list as ${w}`,
    'replies',
    [
      ['sort', 'id'],
      ['fields', 'id'],
    ],
    asOf(w),
  )
  list(`club list as ${w}`, 'club', [['sort', 'id']], asOf(w))
  list(`sealed list as ${w}`, 'sealed', [['sort', 'id']], asOf(w))
  list(
    `users list as ${w}`,
    'members',
    [
      ['sort', 'id'],
      ['fields', 'id,email'],
    ],
    asOf(w),
  )
}
for (const w of ['guest', 'alice', 'bob', 'carol', 'su'] as const) {
  view(`note 1 view as ${w}`, 'notes', nid(1), [], asOf(w))
  view(`note 4 view as ${w}`, 'notes', nid(4), [], asOf(w))
  view(`note 6 view as ${w}`, 'notes', nid(6), [], asOf(w))
  view(`staff view as ${w}`, 'staff', sid(1), [], asOf(w))
  view(`club view as ${w}`, 'club', 'clb000000000001', [], asOf(w))
  view(`sealed view as ${w}`, 'sealed', 'sea000000000001', [], asOf(w))
  view(`reply 1 view as ${w}`, 'replies', rid(1), [], asOf(w))
  for (let t = 1; t <= 4; t++) view(`thread ${t} view as ${w}`, 'threads', thid(t), [], asOf(w))
}
view('staff view as dave', 'staff', sid(1), [], 'dave')
view('staff view as oneil', 'staff', sid(1), [], 'oneil')
view('user 2 view as alice', 'members', uid(2), [], 'alice')
view('user 2 view as bob', 'members', uid(2), [], 'bob')
view('user 2 view as guest', 'members', uid(2))

// Rules and the caller's own filter together.
list(
  'notes filter shared as alice',
  'notes',
  [
    ['filter', 'shared = false'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)
list(
  'notes filter owner.name as bob',
  'notes',
  [
    ['filter', 'owner.name = "Alice"'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'bob',
)
list('notes filter bad as bob', 'notes', [['filter', 'nope = 1']], 'bob')
list(
  'notes perPage 1 as alice',
  'notes',
  [
    ['perPage', '1'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)
list(
  'staff filter as alice',
  'staff',
  [
    ['filter', 'title ~ "2"'],
    ['fields', 'id'],
  ],
  'alice',
)
list('staff bad filter as guest', 'staff', [['filter', 'title ==']])
list('sealed bad filter as guest', 'sealed', [['filter', 'title ==']])
list(
  'threads filter back-relation as alice',
  'threads',
  [
    ['filter', 'replies_via_thread.text ?~ "carol"'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)
list(
  'threads empty back-relation as su',
  'threads',
  [
    ['filter', 'replies_via_thread.id:length = 0'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)
list(
  'threads back-relation count as su',
  'threads',
  [
    ['filter', 'replies_via_thread.id:length = 2'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'su',
)

// Query and header rules.
for (const [label, key] of [
  ['none', undefined],
  ['open', 'open'],
  ['wrong', 'wrong'],
  ['OPEN', 'OPEN'],
  ['empty', ''],
] as const)
  list(`gated list key ${label}`, 'gated', [
    ...(key === undefined ? [] : [['key', key] as [string, string]]),
    ['sort', 'id'],
    ['fields', 'id'],
  ])
list(
  'gated list key open as alice',
  'gated',
  [
    ['key', 'open'],
    ['sort', 'id'],
    ['fields', 'id'],
  ],
  'alice',
)
list('gated list key open and filter', 'gated', [
  ['key', 'open'],
  ['filter', 'title ~ "2"'],
  ['fields', 'id'],
])
list('gated list key twice', 'gated', [
  ['key', 'wrong'],
  ['key', 'open'],
  ['sort', 'id'],
  ['fields', 'id'],
])
for (const [label, headers] of [
  ['none', undefined],
  ['abc', { 'x-key': 'abc' }],
  ['ABC', { 'x-key': 'ABC' }],
  ['wrong', { 'x-key': 'nope' }],
  ['underscore name', { x_key: 'abc' }],
] as const)
  view(`gated view header ${label}`, 'gated', gid(1), [], undefined, headers)
view('gated view key query only', 'gated', gid(1), [['key', 'open']])
view('gated view header as su', 'gated', gid(1), [], 'su')
view('gated view missing with header', 'gated', 'gat999999999999', [], undefined, {
  'x-key': 'abc',
})
list('gated list header only', 'gated', [['sort', 'id']], undefined, { 'x-key': 'abc' })

export const lists: Group = { name: 'lists', steps }
