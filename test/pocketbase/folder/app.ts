/**
 * A PocketBase app made by PocketBase itself (test/pocketbase/folder/record.ts runs `setup` on the
 * oracle and keeps its `pb_data`), and the reads a client of it makes (`reads`), answered by
 * PocketBase before the move and by svcbase serving the same folder after it
 * (test/pocketbase-folder.test.ts).
 */
import type { Group, Step } from '../harness.js'
import { png } from '../groups/files.js'

const U1 = 'usr000000000001'
const M1 = 'mbr000000000001'
export const POST = 'pst000000000001'
/** PocketBase's longest token duration (three years): the fixture's tokens outlive the tests. */
const LONGEST = 94_670_856

const open = { listRule: '', viewRule: '' }
const su = (s: Omit<Step, 'as'>): Step => ({ ...s, as: 'su' })

const postsFields = [
  { name: 'title', type: 'text', required: true, min: 1, max: 100 },
  { name: 'views', type: 'number', min: 0, onlyInt: true },
  { name: 'published', type: 'bool' },
  { name: 'when', type: 'date' },
  { name: 'status', type: 'select', values: ['draft', 'live'], maxSelect: 1 },
  { name: 'labels', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
  { name: 'meta', type: 'json' },
  { name: 'img', type: 'file', maxSelect: 2, thumbs: ['20x20'], mimeTypes: ['image/png'] },
  { name: 'author', type: 'relation', collectionId: '_pb_users_auth_', maxSelect: 1 },
  { name: 'tags', type: 'relation', collectionId: '{{tagsId}}', maxSelect: 5 },
  { name: 'site', type: 'url' },
  { name: 'contact', type: 'email' },
  { name: 'body', type: 'editor' },
  { name: 'spot', type: 'geoPoint' },
  { name: 'created', type: 'autodate', onCreate: true },
  { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
]

/** Builds the app on PocketBase: every step must succeed. */
const setupSteps: Step[] = [
  su({
    name: 'superuser tokens for three years',
    method: 'PATCH',
    path: '/api/collections/_superusers',
    body: { authToken: { duration: LONGEST } },
  }),
  {
    name: 'superuser sign-in',
    method: 'POST',
    path: '/api/collections/_superusers/auth-with-password',
    body: { identity: 'admin@example.com', password: 'supersecret123' },
    save: { pbsu: 'token' },
  },
  su({
    name: 'users options',
    method: 'PATCH',
    path: '/api/collections/users',
    body: {
      authToken: { duration: LONGEST },
      otp: { enabled: true, length: 6 },
    },
  }),
  su({
    name: 'tags',
    method: 'POST',
    path: '/api/collections',
    body: {
      name: 'tags',
      ...open,
      fields: [{ name: 'name', type: 'text', required: true }],
      indexes: ['CREATE UNIQUE INDEX idx_tags_name ON tags (name)'],
    },
    save: { tagsId: 'id' },
  }),
  su({
    name: 'posts',
    method: 'POST',
    path: '/api/collections',
    body: {
      name: 'posts',
      ...open,
      createRule: '@request.auth.id != ""',
      updateRule: 'author = @request.auth.id',
      fields: postsFields,
      indexes: ['CREATE INDEX idx_posts_title ON posts (title)'],
    },
  }),
  su({
    name: 'posts view',
    method: 'POST',
    path: '/api/collections',
    body: {
      name: 'posts_stats',
      type: 'view',
      ...open,
      viewQuery: 'SELECT p.id, p.title, p.views, p.img FROM posts p WHERE p.published = TRUE',
    },
  }),
  su({
    name: 'members',
    method: 'POST',
    path: '/api/collections',
    body: {
      name: 'members',
      type: 'auth',
      fields: [{ name: 'username', type: 'text', required: true }],
      indexes: ['CREATE UNIQUE INDEX idx_members_username ON members (username)'],
      passwordAuth: { enabled: true, identityFields: ['email', 'username'] },
      authToken: { duration: LONGEST },
    },
  }),
  su({
    name: 'user',
    method: 'POST',
    path: '/api/collections/users/records',
    body: {
      id: U1,
      email: 'u1@example.com',
      password: 'password123',
      passwordConfirm: 'password123',
      name: 'User One',
      verified: true,
    },
  }),
  su({
    name: 'member',
    method: 'POST',
    path: '/api/collections/members/records',
    body: {
      id: M1,
      email: 'm1@example.com',
      username: 'member_one',
      password: 'password456',
      passwordConfirm: 'password456',
    },
  }),
  ...['go', 'js'].map((name, i): Step =>
    su({
      name: `tag ${name}`,
      method: 'POST',
      path: '/api/collections/tags/records',
      body: { id: `tag00000000000${i + 1}`, name },
    }),
  ),
  {
    name: 'user sign-in',
    method: 'POST',
    path: '/api/collections/users/auth-with-password',
    body: { identity: 'u1@example.com', password: 'password123' },
    save: { ut: 'token' },
  },
  {
    name: 'post',
    method: 'POST',
    path: '/api/collections/posts/records',
    as: 'ut',
    form: {
      id: POST,
      title: 'Hello',
      views: '7',
      published: 'true',
      when: '2024-05-06 07:08:09.123Z',
      status: 'live',
      labels: ['a', 'c'],
      meta: '{"k":[1,2]}',
      img: [png('cover.png'), png('second.png')],
      author: U1,
      tags: ['tag000000000001', 'tag000000000002'],
      site: 'https://example.org/x',
      contact: 'c@example.org',
      body: '<p>rich <b>text</b></p>',
      spot: '{"lon":12.5,"lat":41.9}',
    },
    save: { img: 'img.0', img2: 'img.1' },
  },
  su({
    name: 'draft',
    method: 'POST',
    path: '/api/collections/posts/records',
    body: { id: 'pst000000000002', title: 'Draft', status: 'draft', author: U1 },
  }),
  ...(
    [
      ['_externalAuths', { provider: 'github', providerId: 'gh-42' }],
      ['_mfas', { method: 'password' }],
      ['_otps', { password: '123456', sentTo: 'u1@example.com' }],
      ['_authOrigins', { fingerprint: 'f1ngerpr1nt' }],
    ] as Array<[string, Record<string, string>]>
  ).map(([name, body]): Step =>
    su({
      name: `${name} row`,
      method: 'POST',
      path: `/api/collections/${name}/records`,
      body: { collectionRef: '_pb_users_auth_', recordRef: U1, ...body },
    }),
  ),
  su({
    name: 'settings',
    method: 'PATCH',
    path: '/api/settings',
    body: {
      meta: { appName: 'Moved App', appURL: 'https://moved.example.org', senderName: 'Mover' },
      smtp: { enabled: false, host: 'smtp.example.org', port: 2525, username: 'mailer' },
      backups: { cron: '0 3 * * *', cronMaxKeep: 4 },
      rateLimits: {
        enabled: true,
        rules: [{ label: '/api/', maxRequests: 300, duration: 10, audience: '' }],
      },
      trustedProxy: { headers: ['X-Forwarded-For'], useLeftmostIP: true },
      logs: { maxDays: 9, minLevel: 0, logIP: true },
      batch: { enabled: true, maxRequests: 20, timeout: 5 },
    },
  }),
]

export const setup: Group = { name: 'folder-setup', steps: setupSteps }

const R = '/api/collections/posts/records'

/** What a client of the app reads, before and after the move (tokens PocketBase issued). */
export const reads: Group = {
  name: 'folder',
  steps: [
    ...['tags', 'posts', 'posts_stats', 'users', 'members'].map((name): Step => ({
      name: `collection ${name}`,
      method: 'GET',
      path: `/api/collections/${name}`,
      as: 'pbsu',
    })),
    { name: 'posts list', method: 'GET', path: `${R}?sort=created&expand=author,tags` },
    { name: 'post view', method: 'GET', path: `${R}/${POST}?expand=tags` },
    {
      name: 'posts filter',
      method: 'GET',
      path: `${R}?filter=${encodeURIComponent("labels ?= 'c' && tags.name ?= 'js'")}`,
    },
    { name: 'view records', method: 'GET', path: '/api/collections/posts_stats/records' },
    { name: 'user as self', method: 'GET', path: `/api/collections/users/records/${U1}`, as: 'ut' },
    { name: 'user as guest', method: 'GET', path: `/api/collections/users/records/${U1}` },
    { name: 'user refresh', method: 'POST', path: '/api/collections/users/auth-refresh', as: 'ut' },
    {
      name: 'user password',
      method: 'POST',
      path: '/api/collections/users/auth-with-password',
      body: { identity: 'u1@example.com', password: 'password123' },
    },
    {
      name: 'user wrong password',
      method: 'POST',
      path: '/api/collections/users/auth-with-password',
      body: { identity: 'u1@example.com', password: 'password124' },
    },
    {
      name: 'member by username',
      method: 'POST',
      path: '/api/collections/members/auth-with-password',
      body: { identity: 'member_one', password: 'password456' },
    },
    { name: 'auth methods', method: 'GET', path: '/api/collections/users/auth-methods' },
    { name: 'settings', method: 'GET', path: '/api/settings', as: 'pbsu' },
    ...['_externalAuths', '_mfas', '_otps', '_authOrigins'].map((name): Step => ({
      name: `${name} rows`,
      method: 'GET',
      path: `/api/collections/${name}/records?fields=collectionRef,recordRef,provider,providerId,method,sentTo,fingerprint${name === '_authOrigins' ? '&sort=collectionRef,fingerprint' : ''}`,
      as: 'pbsu',
    })),
    { name: 'file', method: 'GET', path: `/api/files/posts/${POST}/{{img}}` },
    { name: 'file thumb', method: 'GET', path: `/api/files/posts/${POST}/{{img2}}?thumb=20x20` },
    { name: 'view file', method: 'GET', path: `/api/files/posts_stats/${POST}/{{img}}` },
  ],
}

/** What the app's own folders answer (app/pb_public, app/pb_hooks, app/pb_migrations). */
export const appReads: Group = {
  name: 'folder app',
  steps: [
    { name: 'public file', method: 'GET', path: '/hello.txt' },
    { name: 'hook route as guest', method: 'GET', path: `/api/app/posts/${POST}` },
    { name: 'hook route as user', method: 'GET', path: `/api/app/posts/${POST}`, as: 'ut' },
    { name: 'hook route unknown post', method: 'GET', path: '/api/app/posts/nope' },
    { name: 'hook collection', method: 'GET', path: '/api/app/schema/posts' },
    { name: 'hook collection unknown', method: 'GET', path: '/api/app/schema/nope' },
    {
      name: 'migration record',
      method: 'GET',
      path: `/api/collections/notes/records?filter=${encodeURIComponent("text = 'made by a migration'")}&fields=text`,
    },
    {
      name: 'hook on create',
      method: 'POST',
      path: '/api/collections/notes/records?fields=text',
      body: { text: 'shout' },
    },
  ],
}
