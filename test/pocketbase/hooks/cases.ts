/**
 * The requests replayed against the `*.pb.js` files of this folder: recorded from PocketBase by
 * `record.ts` into `<suite>.json`, replayed against svcbase by `test/hook-scripts-pb-*.test.ts`.
 */

/** One request of a suite. */
export interface HookCase {
  name: string
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS'
  path: string
  headers?: Record<string, string>
  /** True when the body is random (only status and type are compared). */
  random?: true
  /** A JSON body to send. */
  send?: unknown
  /** Signs in first (password) and sends the token. */
  auth?: { collection: string; identity: string; password: string }
  /** Only these paths (`a.b`) of a JSON answer are kept (the rest is random: ids, dates). */
  keep?: string[]
  /** Milliseconds to wait before the request (for work the server does in the background). */
  wait?: number
  /** How many mails the request sends (the suite's SMTP listener receives them). */
  mails?: number
  /**
   * Values this answer hands to the cases after it, as `{{name}}` in their `path` and `send`
   * (each server its own): `body:a.b`, a path of the JSON answer; `mail:<regex>`, the regex's
   * first group in the HTML of the mails the request sent (with `mails`): a token, an OTP.
   */
  save?: Record<string, string>
}

/** A mail the suite's SMTP listener received, as compared (tokens masked). */
export interface SentMail {
  from: string
  fromHeader: string
  to: string[]
  subject: string
  html: string
  /** The `Cc` header, when the mail has one. */
  cc?: string
  /** The `Bcc` header, when the mail has one. */
  bcc?: string
  /** The attached files, when the mail has some. */
  attachments?: { filename: string; contentType: string; content: string }[]
}

/** The answer to one case, as recorded. */
export interface HookAnswer extends HookCase {
  status: number
  /** The media type of the answer ('' when none). */
  type: string
  /** The parsed JSON, or the text. */
  body: unknown
  /** The path (and query) a redirect sends to. */
  location?: string
  /** The mails the request sent (a case with `mails`). */
  sent?: SentMail[]
}

export interface HookSuite {
  name: string
  /** The files of this folder the suite's hooks dir holds (a path under it keeps its folders). */
  files: string[]
  cases: HookCase[]
  /** Mail goes to an SMTP listener of the test (set in the settings before the cases). */
  smtp?: true
}

export interface HookRecording {
  oracle: string
  recorded: string
  suite: string
  answers: HookAnswer[]
}

const get = (name: string, path: string, extra: Partial<HookCase> = {}): HookCase => ({
  name,
  method: 'GET',
  path,
  ...extra,
})

export const routesSuite: HookSuite = {
  name: 'routes',
  files: ['routes.pb.js'],
  cases: [
    get('name', '/r/t/abc'),
    get('name with query', '/r/t/abc?x=1'),
    get('name two segments', '/r/t/abc/def'),
    get('name then {$}', '/r/t/abc/'),
    get('name empty', '/r/t/'),
    get('name decoded space', '/r/t/a%20b'),
    get('name decoded slash', '/r/t/a%2Fb'),
    get('name decoded letter', '/r/t/%41'),
    get('name case', '/r/T/abc'),
    get('rest', '/r/f/a/b/c.txt'),
    get('rest encoded slash', '/r/f/a%2Fb/c'),
    get('rest empty', '/r/f/'),
    get('rest redirect', '/r/f'),
    get('rest redirect keeps query', '/r/f?q=1'),
    get('static beats rest', '/r/f/fixed'),
    get('{$} exact', '/r/x/'),
    get('{$} longer', '/r/x/y'),
    get('{$} redirect', '/r/x'),
    get('prefix root', '/r/pre/'),
    get('prefix deeper', '/r/pre/a/b'),
    get('prefix redirect', '/r/pre'),
    get('prefix under /api/', '/api/pre/x'),
    get('prefix under /api/ redirect', '/api/pre'),
    get('literal star', '/r/s/*'),
    get('literal star encoded', '/r/s/%2A'),
    get('star is no wildcard', '/r/s/anything'),
    get('star then more', '/r/s/*x'),
    get('two names', '/r/a/1/b/2'),
    get('two names second empty', '/r/a/1/b/'),
    get('root star', '/*'),
    get('root star encoded', '/%2A'),
    get('root other', '/nothing'),
    { name: 'OPTIONS root star', method: 'OPTIONS', path: '/*' },
    { name: 'OPTIONS route', method: 'OPTIONS', path: '/r/opt/7' },
    {
      name: 'OPTIONS preflight',
      method: 'OPTIONS',
      path: '/r/opt/7',
      headers: { origin: 'http://x.test', 'access-control-request-method': 'GET' },
    },
    { name: 'HEAD route', method: 'HEAD', path: '/r/head' },
    { name: 'HEAD of GET', method: 'HEAD', path: '/r/t/abc' },
    { name: 'HEAD none', method: 'HEAD', path: '/r/m' },
    { name: 'GET of HEAD route', method: 'GET', path: '/r/head' },
    { name: 'POST lower-case method', method: 'POST', path: '/r/m' },
    { name: 'PUT', method: 'PUT', path: '/r/m' },
    { name: 'PATCH', method: 'PATCH', path: '/r/m' },
    { name: 'DELETE', method: 'DELETE', path: '/r/m' },
    { name: 'POST unknown', method: 'POST', path: '/r/t/abc' },
  ],
}

const KEY32 = 'abcdefghijklmnopqrstuvwxyz012345'

export const securitySuite: HookSuite = {
  name: 'security',
  files: ['security.pb.js'],
  cases: [
    get('digests', '/sec/digests?s=abc'),
    get('digests unicode', '/sec/digests?s=h%C3%A9llo%20w%C3%B6rld'),
    get('digests empty', '/sec/digests?s='),
    get('random', '/sec/random'),
    get('regex invalid', '/sec/regex/bad'),
    get('regex anchored', '/sec/regex/anchored'),
    get('regex fixed', '/sec/regex/fixed'),
    get('jwt round trip', '/sec/jwt'),
    get('encrypt 32', `/sec/encrypt?data=hello%20world&key=${KEY32}`),
    get('encrypt 16', '/sec/encrypt?data=x&key=0123456789abcdef'),
    get('encrypt bad key', '/sec/encrypt?data=x&key=short'),
    get('decrypt garbage', `/sec/decrypt?cipher=bm90LWEtY2lwaGVy&key=${KEY32}`),
    get('decrypt not base64', `/sec/decrypt?cipher=%%%&key=${KEY32}`),
    get('jwt garbage', '/sec/jwt/fixed?token=a.b&key=k'),
  ],
}

export const templateSuite: HookSuite = {
  name: 'template',
  files: [
    'template.pb.js',
    'views/layout.gohtml',
    'views/page.gohtml',
    'views/content-only.gohtml',
  ],
  cases: [
    get('page', '/tpl/page'),
    get(
      'page other title and link',
      '/tpl/page?title=a%2Bb%20%60x%60&link=%2Frel%2Fpath%3Fq%3D1%23frag',
    ),
    get('page mailto link', '/tpl/page?link=mailto%3Ax%40y.z'),
    get('page data link', '/tpl/page?link=data%3Atext%2Fhtml%2Cx'),
    get('string', '/tpl/string?name=%3Cx%3E'),
    get('blocks', '/tpl/blocks'),
    get('trim markers', '/tpl/trim'),
    get('javascript strings', '/tpl/js'),
    get('syntax error', '/tpl/bad-syntax'),
    get('missing file', '/tpl/missing-file'),
    get('unknown func', '/tpl/unknown-func'),
    get('missing template', '/tpl/missing-template'),
    get('exec error', '/tpl/exec-error'),
  ],
}

export const osSuite: HookSuite = {
  name: 'os',
  files: ['os.pb.js', 'files/a.txt', 'files/sub/b.txt'],
  cases: [
    get('readFile', '/os/read?p=files/a.txt'),
    get('readFile another', '/os/read?p=files/sub/b.txt'),
    get('readFile missing', '/os/read?p=files/nope.txt'),
    get('readDir', '/os/readdir'),
    get('getenv unset', '/os/env'),
    get('filepath', '/fp'),
    get('filepath rel error', '/fp/rel-error'),
    get('toString', '/tostring'),
  ],
}

export const eventsSuite: HookSuite = {
  name: 'events',
  files: ['events.pb.js'],
  cases: [
    get('store along the chain', '/ev/store'),
    get('blob', '/ev/blob'),
    get('blob of bytes', '/ev/blob-bytes'),
    get('html', '/ev/html'),
    get('string', '/ev/string'),
    get('noContent', '/ev/nocontent'),
    ...['bad', 'nf', 'forbidden', 'unauth', 'many', 'internal', 'custom'].map((k) =>
      get(`error ${k}`, `/ev/err/${k}`),
    ),
    get('redirect', '/ev/redirect'),
    get('redirect with a bad status', '/ev/redirect-bad'),
    get('ips', '/ev/ip'),
  ],
}

/** The AES key of the security suite's dynamic cases. */
export const SECURITY_KEY = KEY32

const PASSWORD = 'password123'
const user = (email: string, name: string, id?: string) => ({
  email,
  name,
  password: PASSWORD,
  passwordConfirm: PASSWORD,
  ...(id ? { id } : {}),
})
const post = (
  name: string,
  path: string,
  body: unknown,
  extra: Partial<HookCase> = {},
): HookCase => ({
  name,
  method: 'POST',
  path,
  send: body,
  ...extra,
})
const USERS = '/api/collections/users'
const RECORD_KEEP = ['name', 'collectionName', 'verified', 'status', 'message', 'data']
const AUTH_KEEP = ['meta', 'record.name', 'record.email', 'stopped', 'method', 'refreshSkipped']
const signIn = (identity: string) => ({ collection: 'users', identity, password: PASSWORD })
const signInCase = (name: string, identity: string, extra: Partial<HookCase> = {}) =>
  post(
    name,
    `${USERS}/auth-with-password`,
    { identity, password: PASSWORD },
    {
      keep: AUTH_KEEP,
      ...extra,
    },
  )
export const SU = {
  collection: '_superusers',
  identity: 'hooks-admin@example.com',
  password: 'supersecret123',
}

export const authSuite: HookSuite = {
  name: 'auth',
  files: ['auth.pb.js'],
  cases: [
    post(
      'create: create, validate, execute',
      `${USERS}/records`,
      user('a@example.com', 'n', 'aaaaaaaaaaaaaaa'),
      { keep: RECORD_KEEP },
    ),
    post('create stop', `${USERS}/records`, user('stop@example.com', 'n'), { keep: RECORD_KEEP }),
    post('create d', `${USERS}/records`, user('d@example.com', 'd', 'ddddddddddddddd'), {
      keep: RECORD_KEEP,
    }),
    post('validate throws', `${USERS}/records`, user('b@example.com', 'vthrow'), {
      keep: RECORD_KEEP,
    }),
    post('validate skips next', `${USERS}/records`, user('vs@example.com', 'vskip'), {
      keep: RECORD_KEEP,
    }),
    post('validate skips next, invalid email', `${USERS}/records`, user('bad', 'vskip'), {
      keep: RECORD_KEEP,
    }),
    post('execute skips next', `${USERS}/records`, user('c@example.com', 'xskip'), {
      keep: [...RECORD_KEEP, 'created'],
    }),
    signInCase('auth request meta', 'a@example.com'),
    signInCase('auth request answers itself', 'stop@example.com'),
    signInCase('auth with password throws', 'blocked@example.com', { keep: undefined }),
    signInCase('auth with password: no record', 'who@example.com', { keep: undefined }),
    signInCase('a record whose create execute skipped', 'c@example.com', { keep: undefined }),
    signInCase('a record whose validate skipped', 'vs@example.com'),
    post(
      'auth refresh',
      `${USERS}/auth-refresh`,
      {},
      { auth: signIn('a@example.com'), keep: AUTH_KEEP },
    ),
    post(
      'auth refresh answered by the hook',
      `${USERS}/auth-refresh`,
      {},
      { auth: signIn('d@example.com'), keep: AUTH_KEEP },
    ),
    {
      name: 'update execute',
      method: 'PATCH',
      path: `${USERS}/records/aaaaaaaaaaaaaaa`,
      send: { name: 'u' },
      auth: signIn('a@example.com'),
      keep: RECORD_KEEP,
    },
    {
      name: 'update execute throws',
      method: 'PATCH',
      path: `${USERS}/records/aaaaaaaaaaaaaaa`,
      send: { name: 'uthrow' },
      auth: signIn('a@example.com'),
      keep: RECORD_KEEP,
    },
    {
      name: 'delete execute skips next',
      method: 'DELETE',
      path: `${USERS}/records/ddddddddddddddd`,
      auth: signIn('d@example.com'),
    },
    signInCase('the record whose delete execute skipped', 'd@example.com'),
    post('password reset request answered by the hook', `${USERS}/request-password-reset`, {
      email: 'stop@example.com',
    }),
    post('password reset request', `${USERS}/request-password-reset`, { email: 'a@example.com' }),
    signInCase('the mail hook saved the record', 'a@example.com', { wait: 500 }),
    post(
      'collection create hook throws',
      '/api/collections',
      { name: 'blocked', type: 'base' },
      { auth: SU },
    ),
    post(
      'collection create hook passes',
      '/api/collections',
      { name: 'notes', type: 'base' },
      { auth: SU, keep: ['name', 'type'] },
    ),
    {
      name: 'collection update hook throws',
      method: 'PATCH',
      path: '/api/collections/notes',
      send: { name: 'renamed' },
      auth: SU,
    },
    {
      name: 'collection update hook passes',
      method: 'PATCH',
      path: '/api/collections/notes',
      send: { listRule: '' },
      auth: SU,
      keep: ['name', 'listRule'],
    },
    {
      name: 'collection delete hook skips next',
      method: 'DELETE',
      path: '/api/collections/notes',
      auth: SU,
    },
    get('the collection is still there', '/api/collections/notes', { auth: SU, keep: ['name'] }),
    get('collection view request answered by the hook', '/api/collections/notes', {
      auth: SU,
      headers: { 'x-hooked': '1' },
    }),
    {
      name: 'collection delete request hook throws',
      method: 'DELETE',
      path: '/api/collections/notes',
      auth: SU,
      headers: { 'x-hooked': '1' },
    },
    get('collections list request answered by the hook', '/api/collections', {
      auth: SU,
      headers: { 'x-hooked': '1' },
    }),
    post(
      'collection create request: the hook sets rules',
      '/api/collections',
      { name: 'hooked_create', type: 'base' },
      { auth: SU, keep: ['name', 'listRule', 'viewRule', 'deleteRule'] },
    ),
    {
      name: 'collection update request: the hook reads the stored collection',
      method: 'PATCH',
      path: '/api/collections/hooked_create',
      send: { updateRule: '' },
      auth: SU,
      headers: { 'x-hooked': '1' },
    },
    {
      name: 'collection update request: the hook adds a rule, the update stays partial',
      method: 'PATCH',
      path: '/api/collections/hooked_create',
      send: { updateRule: '' },
      auth: SU,
      keep: ['name', 'listRule', 'viewRule', 'updateRule', 'deleteRule', 'fields.0.name'],
    },
    {
      name: 'collections import request answered by the hook',
      method: 'PUT',
      path: '/api/collections/import',
      send: { collections: [{ name: 'imported', type: 'base' }], deleteMissing: false },
      auth: SU,
    },
    post('create tok', `${USERS}/records`, user('tok@example.com', 't'), { keep: RECORD_KEEP }),
    signInCase('auth request replaces the token', 'tok@example.com', {
      keep: ['token', 'meta.method', 'record.email'],
    }),
    {
      name: 'enable OTP',
      method: 'PATCH',
      path: '/api/collections/users',
      send: { otp: { enabled: true } },
      auth: SU,
      keep: ['otp.enabled'],
    },
    post('request OTP answered by the hook', `${USERS}/request-otp`, { email: 'a@example.com' }),
    post('request OTP of no record', `${USERS}/request-otp`, { email: 'nobody@example.com' }),
    post('request verification answered by the hook', `${USERS}/request-verification`, {
      email: 'a@example.com',
    }),
    post(
      'request email change answered by the hook',
      `${USERS}/request-email-change`,
      { newEmail: 'z@example.com' },
      {
        auth: signIn('vs@example.com'),
      },
    ),
  ],
}

export const mailsSuite: HookSuite = {
  name: 'mails',
  files: ['mails.pb.js'],
  smtp: true,
  cases: [
    post('create a', `${USERS}/records`, user('a@example.com', 'A'), { keep: ['name'] }),
    post('create skip', `${USERS}/records`, user('skip@example.com', 'S'), { keep: ['name'] }),
    post('create noverify', `${USERS}/records`, user('noverify@example.com', 'N'), {
      keep: ['name'],
    }),
    post('$mails.sendRecordPasswordReset', '/mails/reset/a@example.com', {}, { mails: 1 }),
    post('$mails.sendRecordVerification', '/mails/verify/a@example.com', {}, { mails: 1 }),
    post('$mails.sendRecordChangeEmail', '/mails/change/a@example.com', {}, { mails: 1 }),
    post('$mails.sendRecordOTP', '/mails/otp/a@example.com', {}, { mails: 1 }),
    post('$mails.sendRecordAuthAlert', '/mails/alert/a@example.com', {}, { mails: 1 }),
    post('onMailerSend skips next', '/mails/reset/skip@example.com', {}, { mails: 0 }),
    post('a record mail hook skips next', '/mails/verify/noverify@example.com', {}, { mails: 0 }),
    post('MailerMessage and newMailClient', '/mails/message', {}, { mails: 1 }),
    post(
      'request-password-reset sends through the hooks',
      `${USERS}/request-password-reset`,
      {
        email: 'a@example.com',
      },
      { mails: 1 },
    ),
  ],
}

const DBX_KINDS = [
  'none',
  'hash',
  'hashMulti',
  'hashIn',
  'hashEmpty',
  'exp',
  'expQuoted',
  'two',
  'and',
  'or',
  'in',
  'notIn',
  'like',
  'likeTwo',
  'likeUnderscore',
  'notLike',
  'orLike',
  'orNotLike',
  'between',
  'notBetween',
  'exists',
  'notExists',
]

export const dbxSuite: HookSuite = {
  name: 'dbx',
  files: ['dbx.pb.js'],
  cases: [
    ...(['alice', 'bob', 'carol', 'da_ve'] as const).map((n) =>
      post(`create ${n}`, `${USERS}/records`, user(`${n.replace('_', '')}@example.com`, n), {
        keep: ['name'],
      }),
    ),
    ...DBX_KINDS.map((k) => get(`findAllRecords ${k}`, `/dbx/all/${k}`)),
    get('countRecords', '/dbx/count'),
    get('findFirstRecordByData', '/dbx/first/carol'),
    get('findFirstRecordByData none', '/dbx/first/nobody'),
    get('newQuery all', '/dbx/query'),
    get('newQuery one', '/dbx/one'),
    get('newQuery one without a row', '/dbx/one-missing'),
    post('newQuery execute', '/dbx/exec', {}),
    get('after execute', '/dbx/all/none'),
    get('e.app and txApp', '/dbx/eapp'),
    post('txApp execute rolled back with its transaction', '/dbx/tx-exec', {}),
    get('after the rolled back transaction', '/dbx/all/none'),
  ],
}
