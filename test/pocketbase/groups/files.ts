/**
 * Files and the collections API. (1) A collection of file fields (single, multiple with
 * maxSelect/maxSize, image with mimeTypes and thumbs, protected): multipart uploads and their
 * errors, `field+`/`+field`/`field-` on update, file names as stored, then
 * `GET /api/files/{collection}/{record}/{filename}` with thumbs, `download=1`, file tokens and
 * missing things. Thumbs' bytes depend on the image library, so their bodies (a digest) differ.
 * A wrong mime type is left out: PocketBase's message names the stored file, random suffix and
 * all, inside a sentence that normalise cannot mask.
 * (2) The collections API: create (base, auth, view) valid and not, list/view, update, delete,
 * truncate, import and scaffolds; view collections' fields and records.
 */
import type { FormFile, Group, Step } from '../harness.js'

/** A 40x30 palette PNG and a 40x30 JPEG (made with sharp, embedded so answers compare). */
const PNG =
  'iVBORw0KGgoAAAANSUhEUgAAACgAAAAeBAMAAACs80HuAAAAMFBMVEUlIYBqIIAi0IAimIAiYICjIIBiXoDVIYCZ0IBjmICcXoCcmIDSmIBg0IDSYIDS0IC5inNDAAAACXBIWXMAAAPoAAAD6AG1e1JrAAABbUlEQVQoz23MMWvCUBSG4RsQZx10cEymDllMENwiSqBjhyJkkAbkQtyLm3MKFQdFjOLgEKGxOGsj9Q+ECHXRIaMErGR2KNhzY4ym9Bsf3nMQ8kclYalHWB2GbvAhihRFBVguX8sEsVTqFiFMBOVzPVqmSOlrYInkn1IQhEKhIMujka7ru53ruigGi8fj6XQ6k5EkqVJpNBqoVIJSeJIxpIakk9AFjJVEUcQyHhuGMZ1OPc8DhFWrGOMx0b0XIpQY12pRDMv99VwU73FXqfWNj0tZLPJcsaPg7ttkYpjftnWwEcfzfC6X72pKv2+a75+2bVuII2t3NEWbz83Jx2JhWYcz5vOapg0GpknMupRtQCgDRefwv5JrExtcS4bO3rHDrTPsvaiz19bq57RCdJZhmPV6u930erPZbLlcrQDpLE2zrONsN6qqHo8nGCAxQKfZJBoi/eWwzmYDaat1DNEvHTVS+ud+efOTpknYDMtfE0gSNnB00U0AAAAASUVORK5CYII='
const JPEG =
  '/9j/2wBDABALDA4MChAODQ4SERATGCgaGBYWGDEjJR0oOjM9PDkzODdASFxOQERXRTc4UG1RV19iZ2hnPk1xeXBkeFxlZ2P/2wBDARESEhgVGC8aGi9jQjhCY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2P/wAARCAAeACgDASIAAhEBAxEB/8QAGAABAQEBAQAAAAAAAAAAAAAABAMABQb/xAAYEAADAQEAAAAAAAAAAAAAAAAAAgNhAf/EABcBAQEBAQAAAAAAAAAAAAAAAAMFBAf/xAAYEQEBAQEBAAAAAAAAAAAAAAADAAIBIf/aAAwDAQACEQMRAD8A8kkMLpDBaQwQkMKOlhF4aQwukMGJDC6QwDS1YXhpDDHTSGGA6tUw/kVIYXSGC0jwukeBaW54LRUhhdIYKSPBCR4Z9LVxaIkMMdJI8MB1anhvL//Z'

export const png = (file = 'pic.png'): FormFile => ({
  file,
  content: PNG,
  base64: true,
  type: 'image/png',
})
export const jpeg = (file = 'pic.jpg'): FormFile => ({
  file,
  content: JPEG,
  base64: true,
  type: 'image/jpeg',
})
const txt = (file: string, content = `content of ${file}`): FormFile => ({
  file,
  content,
  type: 'text/plain',
})

const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
const THUMBS = ['10x10', '20x0', '0x20', '10x10t', '10x10b', '10x10f', '5x8']
const docsFields = [
  { name: 'title', type: 'text' },
  { name: 'single', type: 'file', maxSelect: 1 },
  { name: 'many', type: 'file', maxSelect: 3, maxSize: 100 },
  {
    name: 'img',
    type: 'file',
    maxSelect: 2,
    mimeTypes: ['image/png', 'image/jpeg'],
    thumbs: THUMBS,
  },
  { name: 'secret', type: 'file', maxSelect: 1, protected: true },
]

/**
 * What of a collection compares: view fields derived from a query get random `_clone_…` ids,
 * so their answers pick every key but the fields' ids.
 */
const PICK = [
  'id,name,type,system,viewQuery,listRule,viewRule,createRule,updateRule,deleteRule,indexes',
  ...['name', 'type', 'system', 'hidden', 'required', 'primaryKey', 'presentable'].map(
    (k) => `fields.${k}`,
  ),
  ...['max', 'min', 'maxSelect', 'maxSize', 'collectionId', 'onlyInt', 'values', 'mimeTypes'].map(
    (k) => `fields.${k}`,
  ),
  'fields.thumbs,fields.protected,fields.pattern,fields.cascadeDelete,fields.onCreate',
].join(',')

const R = '/api/collections/docs/records'
const F = '/api/files/docs'
const id = (n: number) => `fil${String(n).padStart(12, '0')}`

const steps: Step[] = []
const add = (s: Step) => steps.push(s)
const get = (name: string, path: string, as?: string) =>
  add({ name, method: 'GET', path, ...(as ? { as } : {}) })

// ---------------------------------------------------------------- part 1: files

// invalid file field definitions
const badFileFields: Array<[string, Record<string, unknown>]> = [
  ['thumbs word', { thumbs: ['abc'] }],
  ['thumbs 0x0', { thumbs: ['0x0'] }],
  ['thumbs suffix x', { thumbs: ['10x10x'] }],
  ['thumbs negative', { thumbs: ['-10x10'] }],
  ['maxSelect negative', { maxSelect: -1 }],
  ['maxSize negative', { maxSize: -5 }],
  ['mimeTypes not list', { mimeTypes: 'image/png' }],
  ['thumbs not list', { thumbs: '10x10' }],
]
for (const [label, extra] of badFileFields)
  add({
    name: `file field ${label}`,
    method: 'POST',
    path: '/api/collections',
    as: 'su',
    body: { name: 'badfiles', type: 'base', fields: [{ name: 'f', type: 'file', ...extra }] },
  })

add({
  name: 'docs create',
  method: 'POST',
  path: '/api/collections',
  as: 'su',
  body: { name: 'docs', type: 'base', fields: docsFields, ...open },
  save: { docsId: 'id' },
})
add({
  name: 'locked create',
  method: 'POST',
  path: '/api/collections',
  as: 'su',
  body: {
    name: 'locked',
    type: 'base',
    fields: [
      { name: 'pub', type: 'file', maxSelect: 1 },
      { name: 'priv', type: 'file', maxSelect: 1, protected: true },
    ],
  },
})

// a user and its token
add({
  name: 'user create',
  method: 'POST',
  path: '/api/collections/users/records',
  body: {
    id: 'usr000000000001',
    email: 'u1@example.com',
    password: 'password123',
    passwordConfirm: 'password123',
  },
})
add({
  name: 'user login',
  method: 'POST',
  path: '/api/collections/users/auth-with-password',
  body: { identity: 'u1@example.com', password: 'password123' },
  save: { ut: 'token' },
})

// uploads
add({
  name: 'upload single',
  method: 'POST',
  path: R,
  form: { id: id(1), title: 'one', single: txt('hello.txt', 'hello world') },
  save: { s1: 'single' },
})
add({
  name: 'upload many 3',
  method: 'POST',
  path: R,
  form: { id: id(2), title: 'two', many: [txt('aaa.txt'), txt('bbb.txt'), txt('ccc.txt')] },
  save: { m0: 'many.0', m1: 'many.1', m2: 'many.2' },
})
add({
  name: 'upload many 4',
  method: 'POST',
  path: R,
  form: { title: 'x', many: [txt('aaa.txt'), txt('bbb.txt'), txt('ccc.txt'), txt('ddd.txt')] },
})
add({
  name: 'upload single 2 files',
  method: 'POST',
  path: R,
  form: { id: id(13), title: 'two singles', single: [txt('first.txt'), txt('second.txt')] },
})
add({
  name: 'upload too big',
  method: 'POST',
  path: R,
  form: { title: 'x', many: txt('big.txt', 'x'.repeat(200)) },
})
add({
  name: 'upload exactly max size',
  method: 'POST',
  path: R,
  form: { id: id(20), title: 'max', many: txt('max.txt', 'y'.repeat(100)) },
})
add({
  name: 'upload one too big of two',
  method: 'POST',
  path: R,
  form: { title: 'x', many: [txt('fine.txt'), txt('big.txt', 'x'.repeat(101))] },
})
add({
  name: 'upload img png',
  method: 'POST',
  path: R,
  form: { id: id(3), title: 'png', img: png() },
  save: { i0: 'img.0' },
})
add({
  name: 'upload img jpeg',
  method: 'POST',
  path: R,
  form: { id: id(4), title: 'jpeg', img: jpeg() },
  save: { j0: 'img.0' },
})
add({
  name: 'upload img png and jpeg',
  method: 'POST',
  path: R,
  form: { id: id(6), title: 'both', img: [png('one.png'), jpeg('two.jpg')] },
})
add({
  name: 'upload img three',
  method: 'POST',
  path: R,
  form: { title: 'x', img: [png('1.png'), png('2.png'), jpeg('3.jpg')] },
})
add({
  name: 'upload png declared text',
  method: 'POST',
  path: R,
  form: { id: id(7), title: 'png as text', img: { ...png('typed.png'), type: 'text/plain' } },
  save: { it0: 'img.0' },
})
add({
  name: 'upload protected',
  method: 'POST',
  path: R,
  form: { id: id(5), title: 'secret', secret: txt('secret.txt', 'top secret') },
  save: { p0: 'secret' },
})
add({
  name: 'upload unknown field',
  method: 'POST',
  path: R,
  form: { id: id(8), title: 'unknown', nope: txt('nope.txt') },
})
add({
  name: 'upload file into text field',
  method: 'POST',
  path: R,
  form: { id: id(9), title: txt('title.txt') },
})
add({
  name: 'upload empty file',
  method: 'POST',
  path: R,
  form: { id: id(14), title: 'empty', single: txt('empty.txt', '') },
})
add({
  name: 'upload json payload',
  method: 'POST',
  path: R,
  form: {
    '@jsonPayload': JSON.stringify({ id: id(10), title: 'from json payload' }),
    single: txt('payload.txt'),
  },
})
add({
  name: 'create json file name string',
  method: 'POST',
  path: R,
  body: { id: id(11), title: 'json', single: 'whatever.txt' },
})
add({
  name: 'create json many names',
  method: 'POST',
  path: R,
  body: { id: id(12), title: 'json', many: ['a.txt', 'b.txt'] },
})

// file names as stored
const names: Array<[string, string]> = [
  ['upper and space', 'My File.TXT'],
  ['no extension', 'README'],
  ['unicode', 'ümlaut ñame.txt'],
  ['dashes', 'a-b_c.txt'],
  ['symbols', 'we!rd@#$%.txt'],
  ['long', `${'n'.repeat(150)}.txt`],
  ['path', '../../etc/passwd'],
  ['long ext', 'file.verylongextension'],
]
names.forEach(([label, file], i) =>
  add({
    name: `name ${label}`,
    method: 'POST',
    path: R,
    form: { id: id(30 + i), title: label, single: txt(file, `named ${label}`) },
  }),
)

// reading files
get('list docs', `${R}?sort=id&fields=id,title,single,many,img,secret`)
get('view record with files', `${R}/${id(2)}`)
get('file single', `${F}/${id(1)}/{{s1}}`)
get('file by collection id', `/api/files/{{docsId}}/${id(1)}/{{s1}}`)
get('file download', `${F}/${id(1)}/{{s1}}?download=1`)
get('file download 0', `${F}/${id(1)}/{{s1}}?download=0`)
get('file many 0', `${F}/${id(2)}/{{m0}}`)
get('file many 1', `${F}/${id(2)}/{{m1}}`)
get('file many 2', `${F}/${id(2)}/{{m2}}`)
get('file as superuser', `${F}/${id(1)}/{{s1}}`, 'su')
get('file as user', `${F}/${id(1)}/{{s1}}`, 'ut')
get('file of other record', `${F}/${id(2)}/{{s1}}`)
get('file missing name', `${F}/${id(1)}/nope.txt`)
get('file missing record', `${F}/nope00000000000/{{s1}}`)
get('file missing collection', `/api/files/nope/${id(1)}/{{s1}}`)
get('file no name', `${F}/${id(1)}`)
get('file no name slash', `${F}/${id(1)}/`)
get('file original name', `${F}/${id(1)}/hello.txt`)
get('file thumb on text', `${F}/${id(1)}/{{s1}}?thumb=10x10`)
get('file png', `${F}/${id(3)}/{{i0}}`)
get('file png download', `${F}/${id(3)}/{{i0}}?download=true`)
get('file jpeg', `${F}/${id(4)}/{{j0}}`)

// thumbs (bodies differ by image library; the statuses and types compare)
const thumbs = [...THUMBS, '100x100', '30x30', '0x0', '10x0', 'abc', '10x10x', '', '10x10t ']
for (const t of thumbs) get(`thumb png ${JSON.stringify(t)}`, `${F}/${id(3)}/{{i0}}?thumb=${t}`)
for (const t of ['10x10', '20x0', '10x10f', '100x100', '30x30'])
  get(`thumb jpeg ${t}`, `${F}/${id(4)}/{{j0}}?thumb=${t}`)
get('thumb png twice', `${F}/${id(3)}/{{i0}}?thumb=10x10`)
get('thumb and download', `${F}/${id(3)}/{{i0}}?thumb=10x10&download=1`)
get('thumb png declared text', `${F}/${id(7)}/{{it0}}?thumb=10x10`)

// protected files and file tokens
get('protected guest', `${F}/${id(5)}/{{p0}}`)
get('protected as su header', `${F}/${id(5)}/{{p0}}`, 'su')
get('protected bad token', `${F}/${id(5)}/{{p0}}?token=nope`)
get('protected auth token', `${F}/${id(5)}/{{p0}}?token={{ut}}`)
add({ name: 'file token guest', method: 'POST', path: '/api/files/token' })
add({
  name: 'file token user',
  method: 'POST',
  path: '/api/files/token',
  as: 'ut',
  save: { uft: 'token' },
})
add({
  name: 'file token su',
  method: 'POST',
  path: '/api/files/token',
  as: 'su',
  save: { sft: 'token' },
})
add({ name: 'file token bad auth', method: 'POST', path: '/api/files/token', as: 'uft' })
add({ name: 'file token GET', method: 'GET', path: '/api/files/token', as: 'ut' })
get('protected user file token', `${F}/${id(5)}/{{p0}}?token={{uft}}`)
get('protected su file token', `${F}/${id(5)}/{{p0}}?token={{sft}}`)
get('protected file token download', `${F}/${id(5)}/{{p0}}?token={{sft}}&download=1`)
get('unprotected with file token', `${F}/${id(1)}/{{s1}}?token={{uft}}`)
add({
  name: 'locked upload',
  method: 'POST',
  path: '/api/collections/locked/records',
  as: 'su',
  form: { id: id(50), pub: txt('pub.txt', 'public'), priv: txt('priv.txt', 'private') },
  save: { lp: 'pub', lq: 'priv' },
})
add({
  name: 'locked upload guest',
  method: 'POST',
  path: '/api/collections/locked/records',
  form: { pub: txt('pub.txt', 'public') },
})
get('locked public guest', `/api/files/locked/${id(50)}/{{lp}}`)
get('locked private guest', `/api/files/locked/${id(50)}/{{lq}}`)
get('locked private user token', `/api/files/locked/${id(50)}/{{lq}}?token={{uft}}`)
get('locked private su token', `/api/files/locked/${id(50)}/{{lq}}?token={{sft}}`)
get('locked record guest', `/api/collections/locked/records/${id(50)}`)

// a collection whose records only signed-in users may view
add({
  name: 'vault create',
  method: 'POST',
  path: '/api/collections',
  as: 'su',
  body: {
    name: 'vault',
    type: 'base',
    fields: [{ name: 'doc', type: 'file', maxSelect: 1, protected: true }],
    listRule: '@request.auth.id != ""',
    viewRule: '@request.auth.collectionName = "users"',
    createRule: '',
  },
})
add({
  name: 'vault upload',
  method: 'POST',
  path: '/api/collections/vault/records',
  form: { id: id(60), doc: txt('vault.txt', 'vault content') },
  save: { vd: 'doc' },
})
get('vault guest', `/api/files/vault/${id(60)}/{{vd}}`)
get('vault auth header', `/api/files/vault/${id(60)}/{{vd}}`, 'ut')
get('vault auth token param', `/api/files/vault/${id(60)}/{{vd}}?token={{ut}}`)
get('vault user file token', `/api/files/vault/${id(60)}/{{vd}}?token={{uft}}`)
get('vault su file token', `/api/files/vault/${id(60)}/{{vd}}?token={{sft}}`)
get('vault su header', `/api/files/vault/${id(60)}/{{vd}}`, 'su')
get('vault thumb user file token', `/api/files/vault/${id(60)}/{{vd}}?thumb=10x10&token={{uft}}`)
get('vault missing with token', `/api/files/vault/${id(60)}/nope.txt?token={{uft}}`)
get('vault record guest', `/api/collections/vault/records/${id(60)}`)
get('vault record user', `/api/collections/vault/records/${id(60)}`, 'ut')

// updates with modifiers
const U = `${R}/${id(2)}`
const patch = (name: string, path: string, rest: Partial<Step>) =>
  add({ name, method: 'PATCH', path, ...rest })
patch('append over max', U, { form: { 'many+': txt('ddd.txt') } })
patch('remove one', U, { body: { 'many-': '{{m0}}' } })
patch('append one', U, { form: { 'many+': txt('ddd.txt') }, save: { m3: 'many.2' } })
patch('prepend one over max', U, { form: { '+many': txt('eee.txt') } })
patch('remove two', U, { body: { 'many-': ['{{m1}}', '{{m2}}'] } })
patch('remove missing name', U, { body: { 'many-': 'nope.txt' } })
patch('prepend one', U, { form: { '+many': txt('eee.txt') } })
patch('remove and append', U, {
  form: { 'many-': '{{m3}}', 'many+': [txt('fff.txt'), txt('ggg.txt')] },
})
patch('set names keep subset', U, { body: { many: [] } })
patch('set new files', U, { form: { many: [txt('hhh.txt'), txt('iii.txt')] } })
patch('append too big', U, { form: { 'many+': txt('big.txt', 'z'.repeat(300)) } })
patch('set unknown name', U, { body: { many: ['nope.txt'] } })
get('after modifiers', U)
get('removed file gone', `${F}/${id(2)}/{{m0}}`)
get('removed file m1 gone', `${F}/${id(2)}/{{m1}}`)
const U1 = `${R}/${id(1)}`
patch('replace single', U1, {
  form: { single: txt('new.txt', 'new content') },
  save: { s2: 'single' },
})
get('replaced old gone', `${F}/${id(1)}/{{s1}}`)
get('replaced new there', `${F}/${id(1)}/{{s2}}`)
patch('single minus name', U1, { body: { 'single-': '{{s2}}' } })
get('single minus gone', `${F}/${id(1)}/{{s2}}`)
patch('single set again', U1, { form: { single: txt('again.txt') }, save: { s3: 'single' } })
patch('single set empty', U1, { body: { single: '' } })
get('single empty gone', `${F}/${id(1)}/{{s3}}`)
patch('single set null', U1, { body: { single: null } })
patch('single plus', U1, { form: { 'single+': txt('plus.txt') } })
patch('single plus second', U1, { form: { 'single+': txt('plus2.txt') } })
patch('img append jpeg', `${R}/${id(3)}`, { form: { 'img+': jpeg('more.jpg') } })
patch('title only keeps files', `${R}/${id(3)}`, { body: { title: 'renamed' } })
get('img after append', `${R}/${id(3)}?fields=title,img`)
get('img first still', `${F}/${id(3)}/{{i0}}`)

// view collection with a file field
add({
  name: 'docs view create',
  method: 'POST',
  path: `/api/collections?fields=${PICK}`,
  as: 'su',
  body: {
    name: 'docs_view',
    type: 'view',
    viewQuery: 'SELECT id, title, img, secret FROM docs',
    listRule: '',
    viewRule: '',
  },
})
get('docs view record', `/api/collections/docs_view/records/${id(3)}`)
get('docs view file', `/api/files/docs_view/${id(3)}/{{i0}}`)
get('docs view thumb', `/api/files/docs_view/${id(3)}/{{i0}}?thumb=10x10`)
get('docs view protected guest', `/api/files/docs_view/${id(5)}/{{p0}}`)
get('docs view protected token', `/api/files/docs_view/${id(5)}/{{p0}}?token={{sft}}`)

// auth collection avatar
add({
  name: 'user avatar upload',
  method: 'PATCH',
  path: '/api/collections/users/records/usr000000000001',
  as: 'ut',
  form: { avatar: png('avatar.png') },
  save: { av: 'avatar' },
})
get('user avatar file', '/api/files/users/usr000000000001/{{av}}')
get('user avatar thumb default', '/api/files/users/usr000000000001/{{av}}?thumb=100x100')

// deletion removes files
add({ name: 'delete record with files', method: 'DELETE', path: `${R}/${id(4)}` })
get('deleted record file', `${F}/${id(4)}/{{j0}}`)
get('deleted record thumb', `${F}/${id(4)}/{{j0}}?thumb=10x10`)

// ---------------------------------------------------------------- part 2: collections API

const C = '/api/collections'
const create = (name: string, body: Record<string, unknown>, save?: Record<string, string>) =>
  add({ name, method: 'POST', path: C, as: 'su', body, ...(save ? { save } : {}) })
const createView = (name: string, body: Record<string, unknown>) =>
  add({ name, method: 'POST', path: `${C}?fields=${PICK}`, as: 'su', body })
const postsFields = [
  { name: 'title', type: 'text', required: true },
  { name: 'views', type: 'number' },
  { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
  { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
]

create('col posts', { name: 'posts', type: 'base', fields: postsFields, ...open }, { pid: 'id' })
create('col posts again', { name: 'posts', type: 'base', fields: [] })
create('col posts upper', { name: 'POSTS', type: 'base', fields: [] })
create('col users again', { name: 'Users', type: 'auth', fields: [] })
create('col chosen id', { id: 'col000000000001', name: 'chosen', type: 'base', fields: [] })
create('col chosen id again', { id: 'col000000000001', name: 'chosen2', type: 'base', fields: [] })
create('col chosen id short', { id: 'abc', name: 'chosen3', type: 'base', fields: [] })
create('col no type', { name: 'notype', fields: [{ name: 'a', type: 'text' }] })
create('col empty body', {})
create('col name number', { name: 5, type: 'base' })

const badNames = [
  '',
  'has space',
  'dash-name',
  '_private',
  '_collections',
  '_params',
  '_superusers',
  'sqlite_master',
  'a'.repeat(256),
  '1abc',
  'ünicode',
  'expand',
]
for (const n of badNames)
  create(`col name ${JSON.stringify(n.length > 20 ? `${n.slice(0, 5)}x${n.length}` : n)}`, {
    name: n,
    type: 'base',
    fields: [],
  })
create('col type nope', { name: 'typenope', type: 'nope', fields: [] })
create('col type nope no fields', { name: 'typenope', type: 'nope' })
create('col type nope without key', {
  name: 'typenope',
  type: 'nope',
  fields: [{ name: 'a', type: 'text' }],
})
create('col type nope with key', {
  name: 'typenope',
  type: 'nope',
  fields: [{ name: 'id', type: 'text', primaryKey: true, pattern: '^[a-z0-9]+$', required: true }],
})

const badFields: Array<[string, unknown]> = [
  ['field name space', [{ name: 'a b', type: 'text' }]],
  ['field name empty', [{ name: '', type: 'text' }]],
  ['field name dash', [{ name: 'a-b', type: 'text' }]],
  ['field name long', [{ name: 'f'.repeat(101), type: 'text' }]],
  ['field name expand', [{ name: 'expand', type: 'text' }]],
  ['field name collectionId', [{ name: 'collectionId', type: 'text' }]],
  ['field name collectionName', [{ name: 'collectionName', type: 'text' }]],
  ['field name at', [{ name: '@x', type: 'text' }]],
  ['field name id text', [{ name: 'id', type: 'text' }]],
  ['field name id number', [{ name: 'id', type: 'number' }]],
  [
    'field duplicate',
    [
      { name: 'a', type: 'text' },
      { name: 'a', type: 'number' },
    ],
  ],
  [
    'field duplicate case',
    [
      { name: 'a', type: 'text' },
      { name: 'A', type: 'text' },
    ],
  ],
  ['field type nope', [{ name: 'a', type: 'nope' }]],
  ['field type missing', [{ name: 'a' }]],
  ['field not object', ['a']],
  ['fields not list', { a: 1 }],
  [
    'field duplicate id',
    [
      { id: 'same1', name: 'a', type: 'text' },
      { id: 'same1', name: 'b', type: 'text' },
    ],
  ],
  ['relation no collection', [{ name: 'r', type: 'relation' }]],
  ['relation missing collection', [{ name: 'r', type: 'relation', collectionId: 'nope' }]],
  ['select no values', [{ name: 's', type: 'select' }]],
  ['text negative min', [{ name: 't', type: 'text', min: -1 }]],
  ['text bad pattern', [{ name: 't', type: 'text', pattern: '(' }]],
  ['number min over max', [{ name: 'n', type: 'number', min: 5, max: 1 }]],
  ['autodate neither', [{ name: 'd', type: 'autodate' }]],
  ['password in base', [{ name: 'pw', type: 'password' }]],
  ['system flag on new field', [{ name: 'sys', type: 'text', system: true }]],
]
badFields.forEach(([label, fields], i) =>
  create(`col ${label}`, { name: `badfield${i}`, type: 'base', fields }),
)

const badRules: Array<[string, Record<string, unknown>]> = [
  ['rule unknown field', { listRule: 'nope = 1' }],
  ['rule syntax', { listRule: 'title =' }],
  ['rule bad operator', { viewRule: 'title === 1' }],
  ['rule unknown collection', { createRule: '@collection.nope.id != ""' }],
  ['rule unknown request', { updateRule: '@request.nope = 1' }],
  ['rule not string', { deleteRule: 5 }],
  ['rule unknown auth field', { listRule: '@request.auth.nope = 1' }],
  ['rule bad macro', { listRule: 'title = @nope' }],
]
badRules.forEach(([label, rules], i) =>
  create(`col ${label}`, {
    name: `badrule${i}`,
    type: 'base',
    fields: [{ name: 'title', type: 'text' }],
    ...rules,
  }),
)
create('col rules valid', {
  name: 'goodrules',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  listRule: '@request.auth.id != ""',
  viewRule: 'title = "x" || @request.auth.collectionName = "users"',
  createRule: '@collection.posts.title ?= title',
  updateRule: null,
  deleteRule: '',
})

const badIndexes: Array<[string, (t: string) => string[]]> = [
  ['index garbage', () => ['not sql']],
  ['index missing column', (t) => [`CREATE INDEX idx_${t} ON ${t} (nope)`]],
  ['index other table', (t) => [`CREATE INDEX idx_${t} ON posts (title)`]],
  ['index drop', () => ['DROP TABLE posts']],
  [
    'index duplicate name',
    (t) => [`CREATE INDEX idx_${t} ON ${t} (title)`, `CREATE INDEX idx_${t} ON ${t} (title)`],
  ],
  ['index empty', () => ['']],
  ['index unique no name', (t) => [`CREATE UNIQUE INDEX ON ${t} (title)`]],
  ['index two on one line', (t) => [`CREATE INDEX i1_${t} ON ${t} (title); DROP TABLE posts`]],
]
badIndexes.forEach(([label, indexes], i) =>
  create(`col ${label}`, {
    name: `badindex${i}`,
    type: 'base',
    fields: [{ name: 'title', type: 'text' }],
    indexes: indexes(`badindex${i}`),
  }),
)
create('col index valid', {
  name: 'indexed',
  type: 'base',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'n', type: 'number' },
  ],
  indexes: [
    'CREATE UNIQUE INDEX idx_indexed_title ON indexed (title)',
    'CREATE INDEX idx_n ON indexed (n)',
  ],
})
add({
  name: 'indexed record 1',
  method: 'POST',
  path: '/api/collections/indexed/records',
  as: 'su',
  body: { id: 'idx000000000001', title: 'same' },
})
add({
  name: 'indexed record unique clash',
  method: 'POST',
  path: '/api/collections/indexed/records',
  as: 'su',
  body: { id: 'idx000000000002', title: 'same' },
})
create('col index name taken', {
  name: 'indexed2',
  type: 'base',
  fields: [{ name: 'title', type: 'text' }],
  indexes: ['CREATE INDEX idx_n ON indexed2 (title)'],
})

// auth collections
create(
  'col auth',
  { name: 'members', type: 'auth', fields: [{ name: 'nick', type: 'text' }], ...open },
  { mid: 'id' },
)
create('col auth bad identity', {
  name: 'members2',
  type: 'auth',
  fields: [],
  passwordAuth: { enabled: true, identityFields: ['nope'] },
})
create('col auth token duration zero', {
  name: 'members3',
  type: 'auth',
  fields: [],
  authToken: { duration: 0 },
})
create('col auth manage rule', {
  name: 'members4',
  type: 'auth',
  fields: [],
  manageRule: '@request.auth.id != ""',
  authRule: 'verified = true',
})
create('col auth field email clash', {
  name: 'members5',
  type: 'auth',
  fields: [{ name: 'email', type: 'text' }],
})
create('col auth bad manage rule', {
  name: 'members6',
  type: 'auth',
  fields: [],
  manageRule: 'nope = 1',
})
create('col auth identity not unique', {
  name: 'members7',
  type: 'auth',
  fields: [{ name: 'nick', type: 'text' }],
  passwordAuth: { enabled: true, identityFields: ['nick'] },
})
create('col base with auth options', {
  name: 'baseopts',
  type: 'base',
  fields: [],
  passwordAuth: { enabled: true },
})

// records in posts (for the views, truncate and delete below)
for (let i = 1; i <= 4; i++)
  add({
    name: `posts record ${i}`,
    method: 'POST',
    path: '/api/collections/posts/records',
    body: { id: `pst00000000000${i}`, title: `post ${i}`, views: i * 10 },
  })

// views
const view = (name: string, viewQuery: unknown, extra: Record<string, unknown> = {}) => ({
  name,
  type: 'view',
  viewQuery,
  listRule: '',
  viewRule: '',
  ...extra,
})
createView('view create', view('posts_view', 'SELECT id, title, views FROM posts'))
createView(
  'view expression',
  view('posts_stats', "SELECT id, (views * 2) AS double, (title || '!') AS shout FROM posts"),
)
createView('view expression bare', view('posts_bare', 'SELECT id, views * 2 AS double FROM posts'))
createView(
  'view count',
  view('posts_count', 'SELECT (ROW_NUMBER() OVER()) as id, COUNT(*) AS total FROM posts'),
)
createView(
  'view join',
  view(
    'posts_join',
    'SELECT p.id, p.title, q.views AS other FROM posts p LEFT JOIN posts q ON q.id = p.id',
  ),
)
createView('view cast', view('posts_cast', 'SELECT id, CAST(views AS TEXT) AS v FROM posts'))
createView('view bad column', view('badview', 'SELECT nope FROM posts'))
createView('view no id', view('badview', 'SELECT title FROM posts'))
createView('view delete', view('badview', 'DELETE FROM posts'))
createView('view empty', view('badview', ''))
createView('view missing query', { name: 'badview', type: 'view', fields: [] })
createView('view two statements', view('badview', 'SELECT id FROM posts; SELECT id FROM posts'))
createView('view missing table', view('badview', 'SELECT id FROM nope'))
createView('view syntax', view('badview', 'SELEC id FROM posts'))
createView('view with create rule', view('badview', 'SELECT id FROM posts', { createRule: '' }))
createView('view with fields', {
  ...view('badview2', 'SELECT id, title FROM posts'),
  fields: [{ name: 'extra', type: 'text' }],
})
createView('view not string', view('badview', 5))
createView('view with indexes', {
  ...view('badview3', 'SELECT id, title FROM posts'),
  indexes: ['CREATE INDEX idx_bv3 ON badview3 (title)'],
})
createView(
  'view bad rule',
  view('badview4', 'SELECT id, title FROM posts', { listRule: 'nope = 1' }),
)
createView(
  'view rule on column',
  view('goodview', 'SELECT id, title FROM posts', { listRule: 'title != "post 1"' }),
)
get('view get', `${C}/posts_view?fields=${PICK}`, 'su')
get('view records', '/api/collections/posts_view/records?sort=id')
get('view record', '/api/collections/posts_view/records/pst000000000002')
get('view record missing', '/api/collections/posts_view/records/pst000000000009')
get('view records filter', `/api/collections/posts_view/records?sort=id&filter=views>15`)
get('view records fields', '/api/collections/posts_view/records?sort=-views&fields=id')
get('view stats records', '/api/collections/posts_stats/records?sort=id')
get('view count records', '/api/collections/posts_count/records')
get('view join records', '/api/collections/posts_join/records?sort=-id')
get('view cast records', '/api/collections/posts_cast/records?sort=id&perPage=2')
get('view rule records', '/api/collections/goodview/records?sort=id')
get('view without rules guest', '/api/collections/badview2/records')
get('view stats fields', `${C}/posts_stats?fields=fields.name,fields.type`, 'su')
add({
  name: 'view record create',
  method: 'POST',
  path: '/api/collections/posts_view/records',
  body: { title: 'x' },
})
add({
  name: 'view record update',
  method: 'PATCH',
  path: '/api/collections/posts_view/records/pst000000000001',
  body: { title: 'x' },
})
add({
  name: 'view record delete',
  method: 'DELETE',
  path: '/api/collections/posts_view/records/pst000000000001',
})
const patchView = (name: string, target: string, body: unknown) =>
  add({ name, method: 'PATCH', path: `${C}/${target}?fields=${PICK}`, as: 'su', body })
patchView('view update query', 'posts_view', {
  viewQuery: 'SELECT id, title FROM posts WHERE views > 15',
})
get('view records after update', '/api/collections/posts_view/records?sort=id')
patchView('view update bad query', 'posts_view', { viewQuery: 'SELECT nope FROM posts' })
patchView('view update rule', 'posts_view', { listRule: 'title ~ "3"' })
get('view records after rule', '/api/collections/posts_view/records?sort=id')
patchView('view update type', 'posts_view', { type: 'base' })
patchView('view update create rule', 'posts_view', { createRule: '' })
add({ name: 'view truncate', method: 'DELETE', path: `${C}/posts_view/truncate`, as: 'su' })

// get / list
get('get by name', `${C}/posts`, 'su')
get('get by id', `${C}/{{pid}}`, 'su')
get('get by name case', `${C}/Posts`, 'su')
get('get chosen id', `${C}/col000000000001`, 'su')
get('get missing', `${C}/nope`, 'su')
get('get guest', `${C}/posts`)
get('get user', `${C}/posts`, 'ut')
get('get superusers', `${C}/_superusers?fields=name,type,system,fields`, 'su')
get('get auth', `${C}/members`, 'su')
get('get users', `${C}/users`, 'su')
get('get fields picker', `${C}/posts?fields=name,fields.name,fields.type`, 'su')
get('list names', `${C}?sort=name&perPage=100&filter=system=false&fields=id,name,type,system`, 'su')
get(
  'list filter type',
  `${C}?sort=name&filter=${encodeURIComponent("type='view'")}&fields=${PICK}`,
  'su',
)
// svcbase has system collections of its own (SPEC 2.6): the other lists leave them out
get('list filter system', `${C}?sort=name&filter=system=true&fields=name`, 'su')
get(
  'list filter name like',
  `${C}?sort=-name&filter=${encodeURIComponent("name~'post'")}&fields=name,type`,
  'su',
)
get(
  'list filter auth',
  `${C}?sort=name&filter=${encodeURIComponent("type='auth'")}&fields=name`,
  'su',
)
get('list page 2', `${C}?sort=name&perPage=3&page=2&filter=system=false&fields=name`, 'su')
get('list skipTotal', `${C}?sort=name&perPage=3&skipTotal=1&filter=system=false&fields=name`, 'su')
get(
  'list sort type name',
  `${C}?sort=type,-name&perPage=5&filter=system=false&fields=name,type`,
  'su',
)
get('list bad filter', `${C}?filter=${encodeURIComponent('name ~')}`, 'su')
get('list bad sort', `${C}?sort=nope`, 'su')
get('list guest', C)
get('list user', C, 'ut')
add({ name: 'create guest', method: 'POST', path: C, body: { name: 'g', type: 'base' } })
add({ name: 'create user', method: 'POST', path: C, as: 'ut', body: { name: 'g', type: 'base' } })

// updates
const upd = (name: string, target: string, body: unknown, as = 'su') =>
  add({ name, method: 'PATCH', path: `${C}/${target}`, as, body })
upd('update rules', 'posts', { listRule: 'views > 15', viewRule: null })
get('records after rules', '/api/collections/posts/records?sort=id&fields=id')
get('record after rules', '/api/collections/posts/records/pst000000000001')
upd('update bad rule', 'posts', { listRule: 'nope > 0' })
upd('update add field', 'posts', {
  fields: [...postsFields, { name: 'body', type: 'editor' }],
})
get('record after add field', '/api/collections/posts/records/pst000000000001', 'su')
const withoutViews = postsFields.filter((f) => f.name !== 'views')
upd('update remove field used by rule', 'posts', { fields: withoutViews })
upd('update remove field used by view', 'posts', { fields: withoutViews, listRule: '' })
add({ name: 'delete used by views', method: 'DELETE', path: `${C}/posts`, as: 'su' })
for (const v of ['posts_view', 'posts_stats', 'posts_count', 'posts_join', 'posts_cast'])
  add({ name: `delete view ${v}`, method: 'DELETE', path: `${C}/${v}`, as: 'su' })
for (const v of ['badview2', 'goodview', 'posts_bare'])
  add({ name: `delete view ${v}`, method: 'DELETE', path: `${C}/${v}`, as: 'su' })
get('deleted view records', '/api/collections/posts_view/records')
upd('update remove field', 'posts', { fields: withoutViews, listRule: '' })
get('record after remove field', '/api/collections/posts/records/pst000000000001', 'su')
upd('update rename field by id', 'posts', {
  fields: [
    { id: 'text724990059', name: 'heading', type: 'text', required: true },
    ...postsFields.slice(2),
  ],
})
get('record after rename field', '/api/collections/posts/records/pst000000000001', 'su')
upd('update field type change', 'posts', {
  fields: [{ id: 'text724990059', name: 'heading', type: 'number' }],
})
upd('update id change', 'notype', { id: 'newid0000000001' })
get('after id change', `${C}/notype?fields=id,name`, 'su')
upd('update duplicate field', 'notype', {
  fields: [
    { name: 'x', type: 'text' },
    { name: 'x', type: 'text' },
  ],
})
upd('update name taken', 'posts', { name: 'docs' })
upd('update name bad', 'posts', { name: 'bad name' })
upd('update type change', 'posts', { type: 'auth' })
upd('update rename', 'posts', { name: 'articles' })
get('get old name', `${C}/posts`, 'su')
get('get new name', `${C}/articles?fields=id,name`, 'su')
get('records under new name', '/api/collections/articles/records?sort=id&fields=id,heading', 'su')
get('records under old name', '/api/collections/posts/records')
upd('update missing', 'nope', { listRule: '' })
upd('update user', 'articles', { listRule: '' }, 'ut')
add({ name: 'update guest', method: 'PATCH', path: `${C}/articles`, body: { listRule: '' } })
upd('update empty body', 'articles', {})
upd('update index', 'articles', {
  indexes: ['CREATE INDEX idx_articles_heading ON articles (heading)'],
})
upd('update bad index', 'articles', { indexes: ['CREATE INDEX idx_x ON articles (nope)'] })
add({
  name: 'make duplicate heading',
  method: 'PATCH',
  path: '/api/collections/articles/records/pst000000000002',
  body: { heading: 'post 1' },
})
upd('update unique index with duplicates', 'articles', {
  indexes: ['CREATE UNIQUE INDEX idx_u ON articles (heading)'],
})
add({
  name: 'undo duplicate heading',
  method: 'PATCH',
  path: '/api/collections/articles/records/pst000000000002',
  body: { heading: 'post 2' },
})
upd('update unique index', 'articles', {
  indexes: ['CREATE UNIQUE INDEX idx_u ON articles (heading)'],
})
get('articles indexes', `${C}/articles?fields=indexes`, 'su')
upd('update rules all null', 'articles', {
  listRule: null,
  viewRule: null,
  createRule: null,
  updateRule: null,
  deleteRule: null,
})
get('records guest after null rules', '/api/collections/articles/records')
get('records su after null rules', '/api/collections/articles/records?sort=id&fields=id', 'su')

// system collections and fields
upd('sys rename superusers', '_superusers', { name: 'admins' })
upd('sys superusers rules', '_superusers', { listRule: '' })
upd('sys mfas rule', '_mfas', { listRule: '' })
upd('sys mfas fields', '_mfas', { fields: [] })
upd('sys superusers token duration', '_superusers', { authToken: { duration: 100 } })
get('sys superusers after', `${C}/_superusers?fields=authToken`, 'su')
upd('sys remove email', 'members', { fields: [{ name: 'nick', type: 'text' }] })
get('sys members fields', `${C}/members?fields=fields.name,fields.system`, 'su')
upd('sys rename tokenKey', 'members', {
  fields: [{ id: 'text2504183744', name: 'secretKey', type: 'text' }],
})
upd('sys change id type', 'chosen', { fields: [{ name: 'id', type: 'number' }] })
upd('sys base id field', 'chosen', {
  fields: [
    { id: 'text3208210256', name: 'id', type: 'text', max: 5, system: true, primaryKey: true },
  ],
})
upd('sys base id field removed', 'chosen', { fields: [{ name: 'x', type: 'text' }] })
upd('sys unset system flag', 'members', {
  fields: [{ id: 'email3885137012', name: 'email', type: 'email', system: false }],
})
upd('sys auth to base', 'members', { type: 'base' })
add({ name: 'sys delete superusers', method: 'DELETE', path: `${C}/_superusers`, as: 'su' })
add({ name: 'sys delete mfas', method: 'DELETE', path: `${C}/_mfas`, as: 'su' })

// references, truncate and delete
create(
  'col comments',
  {
    name: 'comments',
    type: 'base',
    fields: [
      { name: 'text', type: 'text' },
      {
        name: 'post',
        type: 'relation',
        collectionId: '{{pid}}',
        maxSelect: 1,
        cascadeDelete: false,
      },
    ],
    ...open,
  },
  { cid: 'id' },
)
add({
  name: 'comment record',
  method: 'POST',
  path: '/api/collections/comments/records',
  body: { id: 'cmt000000000001', text: 'hi', post: 'pst000000000001' },
})
add({ name: 'delete referenced', method: 'DELETE', path: `${C}/articles`, as: 'su' })
add({ name: 'truncate referenced', method: 'DELETE', path: `${C}/articles/truncate`, as: 'su' })
get('after truncate referenced', '/api/collections/articles/records?sort=id&fields=id', 'su')
get('comments after truncate', '/api/collections/comments/records?sort=id', 'su')
add({ name: 'truncate comments', method: 'DELETE', path: `${C}/comments/truncate`, as: 'su' })
get('after truncate comments', '/api/collections/comments/records', 'su')
add({ name: 'truncate articles', method: 'DELETE', path: `${C}/articles/truncate`, as: 'su' })
get('after truncate articles', '/api/collections/articles/records', 'su')
add({ name: 'truncate missing', method: 'DELETE', path: `${C}/nope/truncate`, as: 'su' })
add({ name: 'truncate guest', method: 'DELETE', path: `${C}/articles/truncate` })
add({ name: 'truncate user', method: 'DELETE', path: `${C}/articles/truncate`, as: 'ut' })
add({ name: 'truncate auth', method: 'DELETE', path: `${C}/members/truncate`, as: 'su' })
add({ name: 'truncate docs with files', method: 'DELETE', path: `${C}/docs/truncate`, as: 'su' })
get('docs file after truncate', `${F}/${id(3)}/{{i0}}`)
add({ name: 'truncate by id', method: 'DELETE', path: `${C}/{{cid}}/truncate`, as: 'su' })
add({ name: 'delete guest', method: 'DELETE', path: `${C}/comments` })
add({ name: 'delete user', method: 'DELETE', path: `${C}/comments`, as: 'ut' })
add({ name: 'delete comments', method: 'DELETE', path: `${C}/comments`, as: 'su' })
add({ name: 'delete comments again', method: 'DELETE', path: `${C}/comments`, as: 'su' })
add({ name: 'delete articles', method: 'DELETE', path: `${C}/{{pid}}`, as: 'su' })
get('get deleted', `${C}/articles`, 'su')
get('records of deleted', '/api/collections/articles/records')
create('col posts recreated', { name: 'posts', type: 'base', fields: [] })

// scaffolds (auth's default indexes carry a random suffix: pick the rest)
get('scaffolds types', `${C}/meta/scaffolds?fields=base.type,auth.type,view.type`, 'su')
get('scaffolds base', `${C}/meta/scaffolds?fields=base`, 'su')
get('scaffolds view', `${C}/meta/scaffolds?fields=view`, 'su')
get('scaffolds auth fields', `${C}/meta/scaffolds?fields=auth.fields,auth.name,auth.id`, 'su')
get(
  'scaffolds auth options',
  `${C}/meta/scaffolds?fields=auth.passwordAuth,auth.authToken,auth.otp,auth.mfa,auth.oauth2,auth.authRule,auth.manageRule,auth.fileToken`,
  'su',
)
get('scaffolds guest', `${C}/meta/scaffolds`)
get('scaffolds user', `${C}/meta/scaffolds`, 'ut')

// import
const I = `${C}/import`
const imp = (name: string, body: unknown, as = 'su') =>
  add({ name, method: 'PUT', path: I, as, body })
const tagsFields = [
  { id: 'text1579384326', name: 'name', type: 'text', required: true },
  { id: 'number1', name: 'weight', type: 'number' },
]
// goodrules' createRule names @collection.posts.title, gone since posts was deleted
imp('import beside a stale rule', {
  collections: [{ name: 'stale_probe', type: 'base', fields: [] }],
})
add({ name: 'delete stale_probe', method: 'DELETE', path: `${C}/stale_probe`, as: 'su' })
add({ name: 'delete goodrules', method: 'DELETE', path: `${C}/goodrules`, as: 'su' })
imp('import new', {
  collections: [
    { id: 'imp000000000001', name: 'tags', type: 'base', fields: tagsFields, ...open },
    {
      id: 'imp000000000002',
      name: 'notes',
      type: 'base',
      fields: [
        { name: 'body', type: 'text' },
        { name: 'tag', type: 'relation', collectionId: 'imp000000000001', maxSelect: 1 },
      ],
    },
  ],
})
get('import got tags', `${C}/tags`, 'su')
get('import got notes', `${C}/notes?fields=id,name,fields`, 'su')
add({
  name: 'import tag record',
  method: 'POST',
  path: '/api/collections/tags/records',
  body: { id: 'tag000000000001', name: 'red', weight: 3 },
})
imp('import update', {
  collections: [
    {
      id: 'imp000000000001',
      name: 'labels',
      type: 'base',
      fields: [...tagsFields, { name: 'color', type: 'text' }],
      ...open,
    },
  ],
})
get('import renamed', `${C}/labels?fields=name,fields`, 'su')
get('import record kept', '/api/collections/labels/records/tag000000000001')
get('import notes kept', `${C}/notes?fields=name`, 'su')
imp('import drop field', {
  collections: [
    {
      id: 'imp000000000001',
      name: 'labels',
      type: 'base',
      fields: tagsFields.slice(0, 1),
      ...open,
    },
  ],
})
get('import record after drop', '/api/collections/labels/records/tag000000000001')
imp('import delete missing referenced', {
  deleteMissing: true,
  collections: [
    {
      id: 'imp000000000002',
      name: 'notes',
      type: 'base',
      fields: [
        { name: 'body', type: 'text' },
        { name: 'tag', type: 'relation', collectionId: 'imp000000000001', maxSelect: 1 },
      ],
    },
  ],
})
get(
  'after delete missing referenced',
  `${C}?sort=name&perPage=100&filter=system=false&fields=name`,
  'su',
)
imp('import by name no id', {
  collections: [{ name: 'notes', type: 'base', fields: [{ name: 'body', type: 'text' }] }],
})
get('import by name result', `${C}/notes?fields=id,name,fields.name`, 'su')
imp('import invalid field', {
  collections: [{ name: 'broken', type: 'base', fields: [{ name: 'a b', type: 'text' }] }],
})
imp('import invalid second', {
  collections: [
    { name: 'fine', type: 'base', fields: [] },
    { name: 'broken', type: 'nope', fields: [] },
  ],
})
get('import invalid nothing created', `${C}/fine`, 'su')
imp('import invalid rule', {
  collections: [{ name: 'broken', type: 'base', fields: [], listRule: 'nope = 1' }],
})
imp('import view', {
  collections: [
    {
      id: 'imp000000000003',
      name: 'labels_view',
      type: 'view',
      viewQuery: 'SELECT id, name FROM labels',
      listRule: '',
    },
  ],
})
get('import view records', '/api/collections/labels_view/records?sort=id')
imp('import empty list', { collections: [] })
imp('import missing collections', {})
imp('import not list', { collections: 'x' })
imp('import not object', { collections: ['x'] })
imp('import duplicate names', {
  collections: [
    { name: 'dup', type: 'base', fields: [] },
    { name: 'dup', type: 'base', fields: [] },
  ],
})
imp('import user', { collections: [] }, 'ut')
add({ name: 'import guest', method: 'PUT', path: I, body: { collections: [] } })
imp('import system change', {
  collections: [{ name: '_superusers', type: 'base', fields: [] }],
})
imp('import delete missing', {
  deleteMissing: true,
  collections: [{ id: 'imp000000000001', name: 'labels', type: 'base', fields: tagsFields }],
})
get(
  'after delete missing',
  `${C}?sort=name&perPage=100&filter=system=false&fields=name,system`,
  'su',
)
get('list fields labels', `${C}/labels`, 'su')
get('labels record after import', '/api/collections/labels/records/tag000000000001', 'su')

// last: PocketBase refuses it, a server that obeys loses its superuser
add({
  name: 'sys truncate superusers',
  method: 'DELETE',
  path: `${C}/_superusers/truncate`,
  as: 'su',
})

export const files: Group = { name: 'files', steps }
