/** Records CRUD and list parameters on a plain collection (ids chosen by the corpus). */
import type { Group, Step } from '../harness.js'

const fields = [
  { name: 'title', type: 'text', required: true },
  { name: 'views', type: 'number' },
  { name: 'published', type: 'bool' },
  { name: 'created', type: 'autodate', onCreate: true, onUpdate: false },
  { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
]
const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
const ids = ['rec000000000001', 'rec000000000002', 'rec000000000003', 'rec000000000004']

const steps: Step[] = [
  {
    name: 'collection create',
    method: 'POST',
    path: '/api/collections',
    as: 'su',
    body: { name: 'posts', type: 'base', fields, ...open },
  },
  ...ids.map((id, i): Step => ({
    name: `create ${i + 1}`,
    method: 'POST',
    path: '/api/collections/posts/records',
    body: { id, title: `post ${i + 1}`, views: i * 10, published: i % 2 === 0 },
  })),
  {
    name: 'create without title',
    method: 'POST',
    path: '/api/collections/posts/records',
    body: { views: 1 },
  },
  {
    name: 'create duplicate id',
    method: 'POST',
    path: '/api/collections/posts/records',
    body: { id: ids[0], title: 'x' },
  },
  {
    name: 'create short id',
    method: 'POST',
    path: '/api/collections/posts/records',
    body: { id: 'abc', title: 'x' },
  },
  { name: 'view', method: 'GET', path: `/api/collections/posts/records/${ids[0]}` },
  { name: 'view missing', method: 'GET', path: '/api/collections/posts/records/nope00000000000' },
  { name: 'list default', method: 'GET', path: '/api/collections/posts/records?sort=id' },
  {
    name: 'list perPage 2',
    method: 'GET',
    path: '/api/collections/posts/records?sort=id&perPage=2',
  },
  {
    name: 'list page 2',
    method: 'GET',
    path: '/api/collections/posts/records?sort=id&perPage=2&page=2',
  },
  {
    name: 'list skipTotal',
    method: 'GET',
    path: '/api/collections/posts/records?sort=id&skipTotal=1',
  },
  { name: 'list sort -views', method: 'GET', path: '/api/collections/posts/records?sort=-views' },
  {
    name: 'list fields',
    method: 'GET',
    path: '/api/collections/posts/records?sort=id&fields=id,title',
  },
  {
    name: 'list filter',
    method: 'GET',
    path: `/api/collections/posts/records?sort=id&filter=${encodeURIComponent('views > 5')}`,
  },
  {
    name: 'list bad filter',
    method: 'GET',
    path: `/api/collections/posts/records?filter=${encodeURIComponent('views >')}`,
  },
  {
    name: 'list expand nope',
    method: 'GET',
    path: '/api/collections/posts/records?sort=id&expand=nope',
  },
  {
    name: 'update',
    method: 'PATCH',
    path: `/api/collections/posts/records/${ids[1]}`,
    body: { title: 'changed', 'views+': 5 },
  },
  {
    name: 'update missing',
    method: 'PATCH',
    path: '/api/collections/posts/records/nope00000000000',
    body: { title: 'x' },
  },
  { name: 'delete', method: 'DELETE', path: `/api/collections/posts/records/${ids[3]}` },
  { name: 'delete again', method: 'DELETE', path: `/api/collections/posts/records/${ids[3]}` },
  { name: 'unknown collection', method: 'GET', path: '/api/collections/nope/records' },
  { name: 'unknown route', method: 'GET', path: '/api/nope' },
]

export const records: Group = { name: 'records', steps }
