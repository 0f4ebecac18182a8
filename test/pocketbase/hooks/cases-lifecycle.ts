/**
 * The `lifecycle` suite (`lifecycle.pb.js`): `onBootstrap`, the record, collection and model
 * hooks in PocketBase's order (the execute, validate and after-error families among them), each
 * handler writing a row of `log` that `GET /lc/log` answers in order.
 */
import { SU, type HookCase, type HookSuite } from './cases.js'

const su = { auth: SU }
const NOTES = '/api/collections/notes/records'
/** The note the update and delete cases use (PocketBase takes a submitted id). */
const NOTE = 'note00000000001'
const KEEP = 'note00000000002'
const ITEMS = '/api/collections/items/records'
const ITEM_A = 'item00000000001'
const ITEM_B = 'item00000000002'
const ITEMS_ID = 'pbc_2000000001'
const HOLDERS = '/api/collections/holders/records'
const HOLDER = 'hold00000000001'

const readLog = (name: string): HookCase[] => [
  { name: `${name}: the handlers in order`, method: 'GET', path: '/lc/log' },
  { name: `${name}: log cleared`, method: 'DELETE', path: '/lc/log' },
]

const collection = (name: string, fields: unknown[], extra: object = {}) => ({
  name,
  type: 'base',
  listRule: '',
  viewRule: '',
  createRule: '',
  updateRule: '',
  deleteRule: '',
  fields,
  ...extra,
})

const text = (name: string, required = false) => ({ name, type: 'text', required })

const COLLECTION_KEEP = ['name', 'listRule', 'status', 'message', 'data']
/** A holder without its autodates (svcbase's API-created collections have them). */
const HOLDER_KEEP = ['id', 'label', 'item', 'expand.item']
const RECORD_KEEP = ['id', 'title', 'status', 'message', 'data']

export const lifecycleSuite: HookSuite = {
  name: 'lifecycle',
  files: ['lifecycle.pb.js', 'lifecycle-enrich.pb.js'],
  cases: [
    { name: 'onBootstrap ran once', method: 'GET', path: '/lc/boot' },
    {
      name: 'create log',
      method: 'POST',
      path: '/api/collections',
      send: collection('log', [{ name: 'seq', type: 'number' }, text('ev')]),
      keep: COLLECTION_KEEP,
      ...su,
    },
    {
      name: 'create notes',
      method: 'POST',
      path: '/api/collections',
      send: collection('notes', [text('title', true)]),
      keep: COLLECTION_KEEP,
      ...su,
    },
    { name: 'the log is empty', method: 'GET', path: '/lc/log' },
    {
      name: 'create a collection',
      method: 'POST',
      path: '/api/collections',
      send: collection('watched', [text('title')]),
      keep: COLLECTION_KEEP,
      ...su,
    },
    ...readLog('collection create'),
    {
      name: 'update a collection',
      method: 'PATCH',
      path: '/api/collections/watched',
      send: { listRule: null },
      keep: COLLECTION_KEEP,
      ...su,
    },
    ...readLog('collection update'),
    {
      name: 'a collection create failing in its execute hook',
      method: 'POST',
      path: '/api/collections',
      send: collection('broken', [text('title')]),
      keep: COLLECTION_KEEP,
      ...su,
    },
    ...readLog('collection create error'),
    {
      name: 'the failed collection is not there',
      method: 'GET',
      path: '/api/collections/broken',
      keep: ['status', 'message'],
      ...su,
    },
    {
      name: 'delete a collection',
      method: 'DELETE',
      path: '/api/collections/watched',
      ...su,
    },
    ...readLog('collection delete'),
    {
      name: 'create a record',
      method: 'POST',
      path: NOTES,
      send: { id: NOTE, title: 'hello' },
      keep: RECORD_KEEP,
    },
    ...readLog('record create'),
    {
      name: 'create a record failing validation',
      method: 'POST',
      path: NOTES,
      send: { title: '' },
      keep: RECORD_KEEP,
    },
    ...readLog('record create validation error'),
    {
      name: 'create a record failing in its execute hook',
      method: 'POST',
      path: NOTES,
      send: { title: 'throw' },
      keep: RECORD_KEEP,
    },
    ...readLog('record create hook error'),
    {
      name: 'update a record',
      method: 'PATCH',
      path: `${NOTES}/${NOTE}`,
      send: { title: 'hello2' },
      keep: RECORD_KEEP,
    },
    ...readLog('record update'),
    {
      name: 'an update failing in its hook',
      method: 'PATCH',
      path: `${NOTES}/${NOTE}`,
      send: { title: 'throw' },
      keep: RECORD_KEEP,
    },
    ...readLog('record update error'),
    {
      name: 'delete a record',
      method: 'DELETE',
      path: `${NOTES}/${NOTE}`,
    },
    ...readLog('record delete'),
    {
      name: 'create a record to keep',
      method: 'POST',
      path: NOTES,
      send: { id: KEEP, title: 'keep' },
      keep: RECORD_KEEP,
    },
    { name: 'log cleared after keep', method: 'DELETE', path: '/lc/log' },
    {
      name: 'a delete failing in its execute hook',
      method: 'DELETE',
      path: `${NOTES}/${KEEP}`,
      keep: RECORD_KEEP,
    },
    ...readLog('record delete error'),
    {
      name: 'the kept record is there',
      method: 'GET',
      path: `${NOTES}/${KEEP}`,
      keep: RECORD_KEEP,
    },
    { name: 'onBootstrap still ran once', method: 'GET', path: '/lc/boot' },
    // onRecordEnrich (lifecycle-enrich.pb.js) on "items" (a hidden field); "holders" expand them.
    {
      name: 'create items',
      method: 'POST',
      path: '/api/collections',
      send: collection(
        'items',
        [text('title'), text('secret'), { name: 'hiddenField', type: 'text', hidden: true }],
        { id: ITEMS_ID },
      ),
      keep: COLLECTION_KEEP,
      ...su,
    },
    {
      name: 'create holders',
      method: 'POST',
      path: '/api/collections',
      send: collection('holders', [
        text('label'),
        { name: 'item', type: 'relation', collectionId: ITEMS_ID, maxSelect: 1 },
      ]),
      keep: COLLECTION_KEEP,
      ...su,
    },
    {
      name: 'enrich a create answer',
      method: 'POST',
      path: ITEMS,
      send: { id: ITEM_A, title: 'first', secret: 's1', hiddenField: 'h1' },
    },
    {
      name: 'enrich an update answer',
      method: 'PATCH',
      path: `${ITEMS}/${ITEM_A}`,
      send: { title: 'shown first' },
    },
    {
      name: 'create another item',
      method: 'POST',
      path: ITEMS,
      send: { id: ITEM_B, title: 'second', secret: 's2' },
    },
    { name: 'enrich a list', method: 'GET', path: `${ITEMS}?sort=title` },
    { name: 'enrich a view', method: 'GET', path: `${ITEMS}/${ITEM_B}` },
    {
      name: 'enrich an expanded relation in a create answer',
      method: 'POST',
      path: `${HOLDERS}?expand=item`,
      send: { id: HOLDER, label: 'h', item: ITEM_A },
      keep: HOLDER_KEEP,
    },
    {
      name: 'enrich an expanded relation',
      method: 'GET',
      path: `${HOLDERS}/${HOLDER}?expand=item`,
      keep: HOLDER_KEEP,
    },
    {
      name: 'enrich for a superuser',
      method: 'GET',
      path: `${ITEMS}/${ITEM_A}`,
      keep: ['id', 'title', 'secret', 'hiddenField', 'dropped', 'extra', 'second'],
      ...su,
    },
    { name: 'the stored record is not changed', method: 'GET', path: `/lc/item/${ITEM_A}` },
  ],
}
