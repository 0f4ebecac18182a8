/**
 * The `middleware` suite: `new Middleware(fn, priority, id)` in `routerUse` and `routerAdd`
 * (the chain in priority order, a same id replacing, a middleware answering or throwing, a
 * handler given as source text), the `$apis` middlewares, and (`middleware-*.pb.js`) the mail
 * message's cc, bcc and attachments and `$filesystem` files saved into a record. Recorded from
 * PocketBase by `record.ts`, replayed by `test/hook-scripts-pb-middleware.test.ts`.
 */
import type { HookCase } from './cases.js'
import type { HookSuiteWithSetup } from './cases-http.js'
import { startHttpTarget } from './http-target.js'

const PASSWORD = 'password123'
const USERS = '/api/collections/users'
const OWNER_ID = 'owner0000000001'
const OTHER_ID = 'other0000000001'
const owner = { collection: 'users', identity: 'owner@example.com', password: PASSWORD }
const su = {
  collection: '_superusers',
  identity: 'hooks-admin@example.com',
  password: 'supersecret123',
}

/** What an auth answer keeps (the token is random). */
const AUTH_KEEP = ['record.email', 'record.name', 'record.id', 'meta', 'mfaId']

const get = (name: string, path: string, extra: Partial<HookCase> = {}): HookCase => ({
  name,
  method: 'GET',
  path,
  ...extra,
})
const post = (
  name: string,
  path: string,
  send: unknown,
  extra: Partial<HookCase> = {},
): HookCase => ({
  name,
  method: 'POST',
  path,
  send,
  ...extra,
})
const user = (email: string, id: string) => ({
  id,
  email,
  name: email.split('@')[0],
  password: PASSWORD,
  passwordConfirm: PASSWORD,
})

/** A collection with a single and a multiple file field, readable by anyone. */
const DOCS = {
  name: 'docs',
  type: 'base',
  listRule: '',
  viewRule: '',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'doc', type: 'file', maxSelect: 1, maxSize: 1048576 },
    { name: 'docs', type: 'file', maxSelect: 5, maxSize: 1048576 },
  ],
}

export const middlewareSuite: HookSuiteWithSetup = {
  name: 'middleware',
  files: [
    'middleware.pb.js',
    'middleware-files.pb.js',
    'middleware-files/note.txt',
    'middleware-files/pub/index.html',
    'middleware-files/pub/a.txt',
    'middleware-files/pub/style.css',
    'middleware-files/pub/sub/index.html',
    'middleware-files/pub/noindex/x.txt',
  ],
  smtp: true,
  async setup() {
    const target = await startHttpTarget()
    process.env.PB_HTTP_TARGET = target.url
    return () => target.close()
  },
  cases: [
    post('create the owner', `${USERS}/records`, user('owner@example.com', OWNER_ID), {
      keep: ['id', 'name'],
    }),
    post('create another user', `${USERS}/records`, user('other@example.com', OTHER_ID), {
      keep: ['id', 'name'],
    }),
    get('global and route middlewares in priority order', '/mw/order'),
    get('a middleware answering itself', '/mw/answer'),
    get('code after e.next() in a middleware', '/mw/after'),
    get('a middleware throwing', '/mw/throw'),
    get('a later middleware with the same id replaces the first', '/mw/same-id'),
    get('a Middleware object shows no members', '/mw/object'),
    get('a handler given as source text', '/mw/source-handler'),
    get('global middlewares around a built-in route', '/api/health'),
    get('requireSuperuserOrOwnerAuth as a guest', `/apis/owner/${OWNER_ID}`),
    get('requireSuperuserOrOwnerAuth as the owner', `/apis/owner/${OWNER_ID}`, { auth: owner }),
    get('requireSuperuserOrOwnerAuth as another user', `/apis/owner/${OTHER_ID}`, {
      auth: owner,
    }),
    get('requireSuperuserOrOwnerAuth as a superuser', `/apis/owner/${OTHER_ID}`, { auth: su }),
    get('requireSuperuserOrOwnerAuth by another param', `/apis/owner-param/${OWNER_ID}`, {
      auth: owner,
    }),
    get('requireSuperuserOrOwnerAuth default param', `/apis/owner-default/${OWNER_ID}`, {
      auth: owner,
    }),
    get('requireSuperuserOrOwnerAuth default param, not the owner', '/apis/owner-default/x', {
      auth: owner,
    }),
    get('requireGuestOnly as a guest', '/apis/guest'),
    get('requireGuestOnly signed in', '/apis/guest', { auth: owner }),
    get('requireSuperuserAuth as a user', '/apis/superuser', { auth: owner }),
    get('requireSuperuserAuth as a guest', '/apis/superuser'),
    get('requireSuperuserAuth as a superuser', '/apis/superuser', { auth: su }),
    get('requireAuth and a middleware of priority -1', '/apis/auth-mw-priority', { auth: owner }),
    get('requireAuth refusing a guest', '/apis/auth-mw-priority'),
    post('bodyLimit within', '/apis/limit', { a: 1 }),
    post('bodyLimit over', '/apis/limit', { a: '0123456789' }),
    post('bodyLimit 0 is no limit', '/apis/no-limit', { a: '0123456789'.repeat(10) }),
    get('gzip', '/apis/gzip', { headers: { 'accept-encoding': 'gzip' } }),
    get('skipSuccessActivityLog', '/apis/skip-log'),
    get('skipSuccessActivityLog failing', '/apis/skip-log-fail'),
    get('static: a file', '/st/a.txt'),
    get('static: a css file', '/st/style.css'),
    get('static: the root', '/st/'),
    get('static: the root without its slash', '/st'),
    get('static: a folder without its slash', '/st/sub'),
    get('static: a folder', '/st/sub/'),
    get('static: a folder index.html', '/st/sub/index.html'),
    get('static: the root index.html', '/st/index.html'),
    get('static: a missing file', '/st/missing'),
    get('static: a folder without index.html', '/st/noindex/'),
    get('static: a file in it', '/st/noindex/x.txt'),
    get('static: dot-dot', '/st/%2e%2e/middleware.pb.js'),
    get('static: fallback for a missing file', '/stf/missing'),
    get('static: fallback deeper', '/stf/sub/missing'),
    get('static: fallback keeps files', '/stf/a.txt'),
    get('static: the handler is a function', '/apis/static-type'),
    post(
      'recordAuthResponse with a method',
      '/auth/custom',
      { email: 'owner@example.com', method: 'password' },
      { keep: AUTH_KEEP },
    ),
    post(
      'recordAuthResponse without a method, with meta',
      '/auth/custom',
      { email: 'owner@example.com', method: '', meta: { a: 1, b: ['x'] } },
      { keep: AUTH_KEEP },
    ),
    post('recordAuthResponse of an unknown email', '/auth/custom', {
      email: 'nobody@example.com',
      method: 'password',
    }),
    post('create a collection with file fields', '/api/collections', DOCS, {
      auth: su,
      keep: ['name'],
    }),
    post('$filesystem.fileFromBytes saved into a file field', '/files/bytes', {}),
    post('$filesystem.fileFromPath and bytes saved into a multiple file field', '/files/path', {}),
    post('$filesystem.fileFromURL saved into a file field, and a 404', '/files/url', {}),
    get('the saved records keep the files under their given names', '/files/list'),
    post('$filesystem.fileFromPath outside the app', '/files/outside', {}),
    post('$filesystem.fileFromPath of a missing file', '/files/missing', {}),
    post('MailerMessage cc and bcc', '/mail/copies', {}, { mails: 1 }),
    post('MailerMessage attachments', '/mail/attachments', {}, { mails: 1 }),
    post('MailerMessage attachment given as text', '/mail/attachment-text', {}, { mails: 0 }),
  ],
}
