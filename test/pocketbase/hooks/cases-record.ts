/**
 * The `record` suite: the members of PocketBase's `core.Record` that the other suites do not
 * exercise (`record-members.pb.js`): the typed getters (`getDateTime`, `getGeoPoint`,
 * `getInt64`), custom data and the visibility flags (`hide`, `unhide`, `withCustomData`,
 * `ignoreEmailVisibility`) in `e.json`, `clone`/`fresh`, the expand members, `setRaw`,
 * `setIfFieldExists`, `replaceModifiers`, `marshalJSON`/`unmarshalJSON`, the token key and the
 * tokens a script makes (each then used on PocketBase's own routes), and the files members.
 */
import { SU, type HookCase, type HookSuite } from './cases.js'

const PASSWORD = 'password123'
const MEMBERS = 'rmmembers000001'
const NOTES = 'rmnotes00000001'
const MEMBER = 'mbr000000000001'
const NOTE = 'nte000000000001'
const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
const asMember = { collection: 'rmmembers', identity: 'rm@example.com', password: PASSWORD }

const c = (name: string, method: HookCase['method'], path: string, extra: Partial<HookCase> = {}) =>
  ({ name, method, path, ...extra }) satisfies HookCase

export const recordSuite: HookSuite = {
  name: 'record',
  files: ['record-members.pb.js'],
  cases: [
    c('make rmmembers', 'POST', '/api/collections', {
      auth: SU,
      send: {
        id: MEMBERS,
        name: 'rmmembers',
        type: 'auth',
        ...open,
        fields: [{ name: 'nick', type: 'text' }],
      },
      keep: ['name', 'id'],
    }),
    c('make rmnotes', 'POST', '/api/collections', {
      auth: SU,
      send: {
        id: NOTES,
        name: 'rmnotes',
        type: 'base',
        ...open,
        // A protected file is then served only with a file token.
        viewRule: "@request.auth.id != ''",
        fields: [
          { name: 'title', type: 'text' },
          { name: 'n', type: 'number' },
          { name: 'when', type: 'date' },
          { name: 'place', type: 'geoPoint' },
          { name: 'data', type: 'json' },
          { name: 'secret', type: 'text', hidden: true },
          { name: 'docs', type: 'file', maxSelect: 2, protected: true },
          { name: 'owner', type: 'relation', collectionId: MEMBERS, maxSelect: 1 },
          { name: 'tags', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
        ],
      },
      keep: ['name', 'id'],
    }),
    c('make a member', 'POST', '/api/collections/rmmembers/records', {
      send: {
        id: MEMBER,
        email: 'rm@example.com',
        nick: 'rm',
        password: PASSWORD,
        passwordConfirm: PASSWORD,
      },
      keep: ['email', 'nick'],
    }),
    c('make a note', 'POST', '/api/collections/rmnotes/records', {
      auth: SU,
      send: {
        id: NOTE,
        title: 'first',
        n: 5,
        when: '2024-01-02 03:04:05.678Z',
        place: { lon: 1.5, lat: 2.5 },
        data: { a: 1, b: [2, 'x'] },
        secret: 'shh',
        owner: MEMBER,
        tags: ['a', 'b'],
      },
      keep: ['title', 'n', 'when', 'place', 'data', 'secret', 'owner', 'tags'],
    }),
    c('typed getters and data', 'GET', '/rm/getters'),
    c('custom data, clone and fresh', 'GET', '/rm/custom'),
    c('expand members', 'GET', '/rm/expand'),
    c('hide and unhide', 'GET', '/rm/hide'),
    c('ignoreEmailVisibility', 'GET', '/rm/email'),
    c('setRaw, setIfFieldExists, replaceModifiers', 'GET', '/rm/set'),
    c('marshalJSON and unmarshalJSON', 'GET', '/rm/json'),
    c('unmarshalJSONField', 'GET', '/rm/jsonfield'),
    c('dbExport', 'GET', '/rm/dbexport'),
    c('postScan and ignoreUnchangedFields', 'GET', '/rm/scan'),
    c('setRandomPassword and the token key', 'GET', '/rm/password'),
    c('isSuperuser of a superuser', 'GET', '/rm/superuser'),
    c('tokens a script makes', 'GET', '/rm/tokens', {
      keep: ['claims'],
      save: {
        auth: 'body:tokens.auth',
        static: 'body:tokens.static',
        verification: 'body:tokens.verification',
        reset: 'body:tokens.reset',
        change: 'body:tokens.change',
        file: 'body:tokens.file',
      },
    }),
    c('auth-refresh with a script auth token', 'POST', '/api/collections/rmmembers/auth-refresh', {
      headers: { authorization: '{{auth}}' },
      keep: ['record.email', 'record.id'],
    }),
    c(
      'auth-refresh with a script static token',
      'POST',
      '/api/collections/rmmembers/auth-refresh',
      {
        headers: { authorization: '{{static}}' },
        keep: ['record.email', 'record.id', 'status', 'message'],
      },
    ),
    c('view with a script static token', 'GET', `/api/collections/rmmembers/records/${MEMBER}`, {
      headers: { authorization: '{{static}}' },
      keep: ['email', 'id'],
    }),
    c('newAuthToken of a record that is not auth', 'GET', '/rm/bad/token'),
    c('unmarshalJSON of text that is not JSON', 'GET', '/rm/bad/json'),
    c('unmarshalJSONField of a value that is not JSON', 'GET', '/rm/bad/jsonfield'),
    c('getDateTime of a text', 'GET', '/rm/bad/date'),
    c(
      'onRecordEnrich ignoreEmailVisibility',
      'GET',
      `/api/collections/rmmembers/records/${MEMBER}?showEmail=1`,
      { keep: ['id', 'email', 'nick'] },
    ),
    c('onRecordEnrich without it', 'GET', `/api/collections/rmmembers/records/${MEMBER}`, {
      keep: ['id', 'email'],
    }),
    c('upload through the script', 'POST', '/rm/upload'),
    c('files members', 'GET', '/rm/files', {
      keep: ['field', 'missing', 'unsaved'],
      save: { fname: 'body:name' },
    }),
    c(
      'a protected file with a script file token',
      'GET',
      `/api/files/rmnotes/${NOTE}/{{fname}}?token={{file}}`,
    ),
    c('a protected file without a token', 'GET', `/api/files/rmnotes/${NOTE}/{{fname}}`),
    c(
      'confirm-verification with a script token',
      'POST',
      '/api/collections/rmmembers/confirm-verification',
      {
        send: { token: '{{verification}}' },
      },
    ),
    c('verified', 'GET', `/api/collections/rmmembers/records/${MEMBER}`, {
      auth: asMember,
      keep: ['verified'],
    }),
    c(
      'confirm-password-reset with a script token',
      'POST',
      '/api/collections/rmmembers/confirm-password-reset',
      {
        send: { token: '{{reset}}', password: 'newpassword1', passwordConfirm: 'newpassword1' },
      },
    ),
    c(
      'confirm-email-change with a script token after the reset',
      'POST',
      '/api/collections/rmmembers/confirm-email-change',
      {
        send: { token: '{{change}}', password: 'newpassword1' },
      },
    ),
  ],
}
