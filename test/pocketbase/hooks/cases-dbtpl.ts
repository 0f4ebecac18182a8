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

export const dbtplSuite: HookSuite = {
  name: 'dbtpl',
  files: ['dbtpl.pb.js', 'dbtpl-tpl.pb.js'],
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
  ],
}
