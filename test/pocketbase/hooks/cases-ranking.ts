/**
 * The `ranking` suite: the members of PocketBase's JSVM real apps use most
 * (`../shared/reference/pocketbase-jsvm.md` §7) that the other suites do not exercise — the record
 * request and model hooks, the after-success hooks, `$app.logger()`, collection properties,
 * `$apis.requireAuth()`, `findRecordsByIds`, `importCollections`, `InternalServerError`.
 */
import { SU, type HookCase, type HookSuite } from './cases.js'

const PASSWORD = 'password123'
const ITEMS = '/api/collections/items/records'
const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
const KEEP = ['title', 'n', 'message', 'data', 'status']
/** The suite's user (its id given, so the records can name it). */
const RK = 'usrrk0000000001'
const asRk = { collection: 'users', identity: 'rk@example.com', password: PASSWORD }

const c = (name: string, method: HookCase['method'], path: string, extra: Partial<HookCase> = {}) =>
  ({ name, method, path, ...extra }) satisfies HookCase

const item = (id: string, title: string) =>
  c(`create ${title}`, 'POST', ITEMS, { send: { id, title, n: 1 }, keep: KEEP })

export const rankingSuite: HookSuite = {
  name: 'ranking',
  files: ['ranking.pb.js', 'ranking-import.pb.js'],
  cases: [
    c('make trace', 'POST', '/api/collections', {
      auth: SU,
      send: { name: 'trace', type: 'base', ...open, fields: [{ name: 'text', type: 'text' }] },
      keep: ['name'],
    }),
    c('make items', 'POST', '/api/collections', {
      auth: SU,
      send: {
        name: 'items',
        type: 'base',
        ...open,
        fields: [
          { name: 'title', type: 'text' },
          { name: 'n', type: 'number' },
          { name: 'owner', type: 'relation', collectionId: '_pb_users_auth_', maxSelect: 1 },
        ],
      },
      keep: ['name'],
    }),
    c('make a user', 'POST', '/api/collections/users/records', {
      send: { id: RK, email: 'rk@example.com', password: PASSWORD, passwordConfirm: PASSWORD },
      keep: ['email'],
    }),
    item('itm000000000001', 'alpha'),
    item('itm000000000002', 'keep'),
    item('itm000000000003', 'guarded'),
    item('itm000000000004', 'reject'),
    c('view', 'GET', `${ITEMS}/itm000000000001`, { keep: KEEP }),
    c('list', 'GET', `${ITEMS}?sort=title&fields=title,n`),
    c('update', 'PATCH', `${ITEMS}/itm000000000001`, { send: { title: 'beta' }, keep: KEEP }),
    c('delete refused by the request hook', 'DELETE', `${ITEMS}/itm000000000002`),
    c('delete refused by the model hook', 'DELETE', `${ITEMS}/itm000000000003`),
    c('delete', 'DELETE', `${ITEMS}/itm000000000001`),
    c('make widgets', 'POST', '/api/collections', {
      auth: SU,
      send: { name: 'widgets', type: 'base', fields: [{ name: 'title', type: 'text' }] },
      keep: ['name'],
    }),
    c('trace', 'GET', '/api/collections/trace/records?sort=text&fields=text', {
      wait: 300,
    }),
    c('logger', 'GET', '/rk/log'),
    c(
      'logs written',
      'GET',
      `/api/logs?filter=${encodeURIComponent("message ~ 'rk '")}&sort=level&fields=message,level,data`,
      {
        auth: SU,
        wait: 4000,
      },
    ),
    c('collection users', 'GET', '/rk/col/users'),
    c('collection items', 'GET', '/rk/col/items'),
    c('collection unknown', 'GET', '/rk/col/nope'),
    c('requireAuth as a guest', 'GET', '/rk/me'),
    c('requireAuth as a user', 'GET', '/rk/me', {
      auth: { collection: 'users', identity: 'rk@example.com', password: PASSWORD },
    }),
    c('owned item', 'POST', ITEMS, {
      send: { id: 'itm000000000009', title: 'owned', owner: RK },
      keep: ['title', 'owner'],
    }),
    c('enrichRecord as a guest', 'GET', '/rk/enrich/itm000000000009', {
      keep: ['title', 'n', 'owner', 'expand'],
    }),
    c('enrichRecord as the owner', 'GET', '/rk/enrich/itm000000000009', {
      auth: asRk,
      keep: ['title', 'n', 'owner', 'expand.owner.email', 'expand.owner.id'],
    }),
    c('enrichRecord with ?expand', 'GET', '/rk/enrich/itm000000000009?expand=owner', {
      auth: asRk,
      keep: ['title', 'expand.owner.id'],
    }),
    c('enrichRecords', 'GET', '/rk/enrich-many?expand=owner', { auth: asRk }),
    c('enrichRecord of a user as a guest', 'GET', '/rk/enrich-user', { keep: ['id', 'email'] }),
    c('enrichRecord of a user as itself', 'GET', '/rk/enrich-user', {
      auth: asRk,
      keep: ['id', 'email'],
    }),
    c('record.validatePassword', 'GET', '/rk/pw'),
    c('findRecordsByIds', 'GET', '/rk/byids?ids=itm000000000002,itm000000000003,nope'),
    c('InternalServerError', 'GET', '/rk/internal'),
    c('error data nested', 'GET', '/rk/error-data'),
    c('importCollections', 'POST', '/rk/import', { send: {} }),
    c('the imported collection', 'GET', '/api/collections/imported', {
      auth: SU,
      keep: ['name', 'type', 'listRule', 'viewRule'],
    }),
  ],
}
