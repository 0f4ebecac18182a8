/**
 * The `dbtpl` suite: `$app.db()` query builders (`select`, `insert`, `update`, `delete`,
 * `upsert`), the `$dbx` differences (an empty expression in a find, `like` with `%`, `_` or `\`
 * in the value), `$template` (`{{break}}`, `{{continue}}`, `<style>` escaping) and the auth
 * confirm hooks, recorded from PocketBase by `record.ts` into `dbtpl.json`, replayed by
 * `test/hook-scripts-pb-dbtpl.test.ts`.
 */
import { SU, type HookCase, type HookSuite } from './cases.js'

const get = (name: string, path: string, extra: Partial<HookCase> = {}): HookCase => ({
  name,
  method: 'GET',
  path,
  ...extra,
})
const post = (name: string, path: string, send: unknown, extra: Partial<HookCase> = {}) =>
  ({ name, method: 'POST', path, send, ...extra }) as HookCase

/** The base collection the builders read and write. */
const ITEMS = {
  name: 'items',
  type: 'base',
  listRule: '',
  viewRule: '',
  fields: [
    { name: 'name', type: 'text' },
    { name: 'n', type: 'number' },
  ],
}

export const SELECT_KINDS = [
  'all',
  'star',
  'where',
  'andOr',
  'whereReplaced',
  'limitOffset',
  'offsetOnly',
  'limitNegative',
  'alias',
  'bind',
  'brackets',
  'build',
  'emptyHash',
  'whereNull',
  'likeUnderscore',
  'likePercent',
  'likeBackslash',
  'likeCase',
  'notLikeUnderscore',
  'orLike',
  'likeMatchLeft',
  'likeMatchRight',
  'likeEscapeNone',
  'likeExactWildcard',
  'likeEscapeCustom',
  'notLikeMatch',
  'likeUnchanged',
]

const FIND_KINDS = ['hashEmpty', 'andEmpty', 'expEmpty', 'like', 'likeUnderscore', 'likePercent']
const ERR_KINDS = ['upsert', 'row', 'badTable', 'badColumn', 'updateStringWhere', 'unbound']

export const TEMPLATE_KINDS = [
  'break',
  'continue',
  'breakNested',
  'breakVars',
  'continueMap',
  'breakInt',
  'breakOutside',
  'continueInIf',
  'cssValue',
  'cssHex',
  'cssWords',
  'cssNumber',
  'cssSemicolon',
  'cssComment',
  'cssExpression',
  'cssEscapeDecoded',
  'cssUnicode',
  'cssNull',
  'cssList',
  'cssDq',
  'cssSq',
  'cssStringScheme',
  'cssStringAfter',
  'cssStringQuery',
  'cssUrl',
  'cssUrlPlain',
  'cssUrlDq',
  'cssUrlSq',
  'cssUrlSpace',
  'cssUrlQuery',
  'cssBlockComment',
  'cssCommentOnly',
  'cssAfterStyle',
  'cssTwoValues',
  'styleAttr',
  'styleAttrBad',
  'styleAttrString',
  'styleAttrUrl',
  'styleAttrUnquoted',
  'styleUpper',
]

const USERS = '/api/collections/users'
const PASSWORD = 'password123'
const NEW_PASSWORD = 'newpass123'
const TOKEN = 'mail:(eyJ[\\w-]+\\.[\\w-]+\\.[\\w-]+)'
const AUTH_KEEP = ['record.email', 'record.verified', 'record.name', 'status', 'message', 'data']
const signIn = (name: string, identity: string, password = PASSWORD) =>
  post(name, `${USERS}/auth-with-password`, { identity, password }, { keep: AUTH_KEEP })
/** A saved value's name for a user (`{{name}}` takes word characters only). */
const key = (n: string) => n.replace(/\W/g, '')
const as = (identity: string, password = PASSWORD) => ({ collection: 'users', identity, password })

/** The auth confirm hooks (`dbtpl-auth.pb.js`): tokens and OTPs read from the mails sent. */
const authCases: HookCase[] = [
  {
    name: 'enable OTP',
    method: 'PATCH',
    path: `${USERS}`,
    send: { otp: { enabled: true } },
    auth: SU,
    keep: ['otp.enabled'],
  },
  ...['answer', 'plain', 'block'].map((n) =>
    post(
      `create ${n}`,
      `${USERS}/records`,
      { email: `${n}@example.com`, name: n, password: PASSWORD, passwordConfirm: PASSWORD },
      { keep: ['name', 'email', 'verified'] },
    ),
  ),
  ...['answer', 'plain', 'block'].flatMap((n) => [
    post(
      `request verification ${n}`,
      `${USERS}/request-verification`,
      {
        email: `${n}@example.com`,
      },
      { mails: 1, save: { [`verify_${n}`]: TOKEN } },
    ),
    post(`confirm verification ${n}`, `${USERS}/confirm-verification`, {
      token: `{{verify_${n}}}`,
    }),
  ]),
  signIn('answer is not verified', 'answer@example.com'),
  signIn('plain is verified', 'plain@example.com'),
  ...['answer', 'plain', 'block'].flatMap((n) => [
    post(
      `request password reset ${n}`,
      `${USERS}/request-password-reset`,
      {
        email: `${n}@example.com`,
      },
      { mails: 1, save: { [`reset_${n}`]: TOKEN } },
    ),
    post(`confirm password reset ${n}`, `${USERS}/confirm-password-reset`, {
      token: `{{reset_${n}}}`,
      password: NEW_PASSWORD,
      passwordConfirm: NEW_PASSWORD,
    }),
  ]),
  post('confirm password reset, a bad token', `${USERS}/confirm-password-reset`, {
    token: 'nope',
    password: NEW_PASSWORD,
    passwordConfirm: NEW_PASSWORD,
  }),
  signIn('answer keeps its password', 'answer@example.com'),
  signIn('plain has the new password', 'plain@example.com', NEW_PASSWORD),
  signIn('plain lost the old password', 'plain@example.com'),
  signIn('block keeps its password', 'block@example.com'),
  ...(
    [
      ['answer', PASSWORD],
      ['plain', NEW_PASSWORD],
      ['block', PASSWORD],
    ] as const
  ).flatMap(([n, password]) => [
    post(
      `request email change ${n}`,
      `${USERS}/request-email-change`,
      {
        newEmail: `${n}-new@example.com`,
      },
      { auth: as(`${n}@example.com`, password), mails: 1, save: { [`change_${n}`]: TOKEN } },
    ),
    post(`confirm email change ${n}`, `${USERS}/confirm-email-change`, {
      token: `{{change_${n}}}`,
      password,
    }),
  ]),
  signIn('answer keeps its email', 'answer@example.com'),
  signIn('plain signs in with its new email', 'plain-new@example.com', NEW_PASSWORD),
  post(
    'create fresh',
    `${USERS}/records`,
    { email: 'fresh@example.com', name: 'fresh', password: PASSWORD, passwordConfirm: PASSWORD },
    { keep: ['name', 'email', 'verified'] },
  ),
  ...(['answer', 'plain-new', 'fresh', 'block'] as const).flatMap((n) => [
    post(
      `request OTP ${n}`,
      `${USERS}/request-otp`,
      { email: `${n}@example.com` },
      {
        keep: [],
        mails: 1,
        save: {
          [`otp_${key(n)}`]: 'body:otpId',
          [`pass_${key(n)}`]: 'mail:<strong>(\\d+)</strong>',
        },
      },
    ),
    post(
      `auth with OTP ${n}`,
      `${USERS}/auth-with-otp`,
      {
        otpId: `{{otp_${n}}}`,
        password: `{{pass_${n}}}`,
      },
      { keep: [...AUTH_KEEP, 'hook', 'collection', 'email', 'otpRecord', 'otpCollection'] },
    ),
  ]),
  post('auth with OTP, a wrong password', `${USERS}/auth-with-otp`, {
    otpId: '{{otp_answer}}',
    password: '000000',
  }),
  // an unverified record verified by its OTP gets a random password (PocketBase's guard)
  signIn('fresh, verified by its OTP, lost its password', 'fresh@example.com'),
]

export const dbtplSuite: HookSuite = {
  name: 'dbtpl',
  files: ['dbtpl.pb.js', 'dbtpl-tpl.pb.js', 'dbtpl-auth.pb.js'],
  smtp: true,
  cases: [
    post('create items', '/api/collections', ITEMS, { auth: SU, keep: ['name'] }),
    post('insert', '/dbtpl/insert', {}),
    ...SELECT_KINDS.map((k) => get(`select ${k}`, `/dbtpl/select/${k}`)),
    get('group, having, distinct, one, joins', '/dbtpl/agg'),
    get('one without a row', '/dbtpl/one-missing'),
    ...FIND_KINDS.map((k) => get(`find ${k}`, `/dbtpl/find/${k}`)),
    ...ERR_KINDS.map((k) => get(`error ${k}`, `/dbtpl/err/${k}`)),
    post('update', '/dbtpl/update', {}),
    get('after update', '/dbtpl/select/all'),
    post('delete', '/dbtpl/delete', {}),
    get('after delete', '/dbtpl/select/all'),
    post('insert a duplicate id', '/dbtpl/write-fails', {}),
    get('after the failed insert', '/dbtpl/select/all'),
    ...TEMPLATE_KINDS.map((k) => get(`template ${k}`, `/tpl/${k}`)),
    ...['chain', 'call', 'callNoArgs'].map((k) => get(`addFuncs ${k}`, `/tpl-funcs/${k}`)),
    ...authCases,
  ],
}
