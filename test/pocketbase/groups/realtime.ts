/**
 * Realtime: SSE connections of a guest, two members and the superuser; subscriptions by
 * collection, by record, with options; the events each sees for creates, updates and deletes
 * under the collections' rules; and the errors of the subscribe request.
 */
import type { Group, Step } from '../harness.js'

const open = { listRule: '', viewRule: '', createRule: '', updateRule: '', deleteRule: '' }
const own = 'owner = @request.auth.id'
const members = ['mem000000000001', 'mem000000000002']
const P1 = 'pst000000000001'
const P2 = 'pst000000000002'
const N1 = 'not000000000001'
const N2 = 'not000000000002'

const su = (
  name: string,
  method: Step['method'],
  path: string,
  body?: unknown,
  save?: Step['save'],
): Step => ({
  name,
  method,
  path,
  as: 'su',
  ...(body === undefined ? {} : { body }),
  ...(save ? { save } : {}),
})
const subscribe = (name: string, client: string, as: string | undefined, subs: unknown): Step => ({
  name,
  method: 'POST',
  path: '/api/realtime',
  ...(as ? { as } : {}),
  body: { clientId: `{{${client}}}`, subscriptions: subs },
})
const readAll = (label: string): Step[] =>
  ['g', 'a', 'b', 's'].map((c) => ({
    name: `${label}: events of ${c}`,
    method: 'GET' as const,
    path: '',
    stream: { read: c },
  }))

const steps: Step[] = [
  su(
    'members create',
    'POST',
    '/api/collections',
    {
      name: 'members',
      type: 'auth',
      ...open,
      listRule: 'id = @request.auth.id',
      viewRule: 'id = @request.auth.id',
      fields: [{ name: 'name', type: 'text' }],
    },
    { membersId: 'id' },
  ),
  su('posts create', 'POST', '/api/collections', {
    name: 'posts',
    ...open,
    fields: [
      { name: 'title', type: 'text' },
      { name: 'n', type: 'number' },
    ],
  }),
  su('notes create', 'POST', '/api/collections', {
    name: 'notes',
    listRule: own,
    viewRule: own,
    createRule: '',
    updateRule: own,
    deleteRule: own,
    fields: [
      { name: 'title', type: 'text' },
      { name: 'owner', type: 'relation', collectionId: '{{membersId}}', maxSelect: 1 },
    ],
  }),
  su('secret create', 'POST', '/api/collections', {
    name: 'secret',
    fields: [{ name: 'code', type: 'text' }],
  }),
  ...members.map((id, i) =>
    su(`member ${i + 1}`, 'POST', '/api/collections/members/records', {
      id,
      email: `m${i + 1}@example.com`,
      password: 'password123',
      passwordConfirm: 'password123',
      name: `m${i + 1}`,
    }),
  ),
  ...members.map((_id, i): Step => ({
    name: `member ${i + 1} sign in`,
    method: 'POST',
    path: '/api/collections/members/auth-with-password',
    body: { identity: `m${i + 1}@example.com`, password: 'password123' },
    save: { [i === 0 ? 'alice' : 'bob']: 'token' },
  })),
  { name: 'guest connects', method: 'GET', path: '/api/realtime', stream: { open: 'g' } },
  { name: 'alice connects', method: 'GET', path: '/api/realtime', stream: { open: 'a' } },
  { name: 'bob connects', method: 'GET', path: '/api/realtime', stream: { open: 'b' } },
  { name: 'su connects', method: 'GET', path: '/api/realtime', stream: { open: 's' } },
  subscribe('guest subscribes', 'g', undefined, ['posts', 'notes', 'secret']),
  subscribe('alice subscribes', 'a', 'alice', ['posts', 'notes', `notes/${N2}`]),
  subscribe('bob subscribes', 'b', 'bob', [
    `posts/${P1}`,
    'notes',
    `posts?options=${encodeURIComponent(JSON.stringify({ query: { fields: 'id,title' } }))}`,
  ]),
  subscribe('su subscribes', 's', 'su', ['posts', 'notes', 'secret', 'members']),
  ...readAll('after subscribing'),
  su('create post 1', 'POST', '/api/collections/posts/records', { id: P1, title: 'one', n: 1 }),
  su('create post 2', 'POST', '/api/collections/posts/records', { id: P2, title: 'two', n: 2 }),
  ...readAll('post creates'),
  su('update post 1', 'PATCH', `/api/collections/posts/records/${P1}`, { title: 'one!' }),
  su('update post 2', 'PATCH', `/api/collections/posts/records/${P2}`, { 'n+': 5 }),
  ...readAll('post updates'),
  {
    name: 'alice creates note 1',
    method: 'POST',
    path: '/api/collections/notes/records',
    as: 'alice',
    body: { id: N1, title: 'alice note', owner: members[0] },
  },
  {
    name: 'bob creates note 2',
    method: 'POST',
    path: '/api/collections/notes/records',
    as: 'bob',
    body: { id: N2, title: 'bob note', owner: members[1] },
  },
  ...readAll('note creates'),
  {
    name: 'alice updates note 1',
    method: 'PATCH',
    path: `/api/collections/notes/records/${N1}`,
    as: 'alice',
    body: { title: 'alice note!' },
  },
  su('su hands note 2 to alice', 'PATCH', `/api/collections/notes/records/${N2}`, {
    owner: members[0],
  }),
  ...readAll('note updates'),
  su('secret row', 'POST', '/api/collections/secret/records', { id: 'sec000000000001', code: 'x' }),
  su('member update', 'PATCH', `/api/collections/members/records/${members[1]}`, { name: 'bobby' }),
  ...readAll('secret and member'),
  su('delete post 2', 'DELETE', `/api/collections/posts/records/${P2}`),
  su('delete note 1', 'DELETE', `/api/collections/notes/records/${N1}`),
  ...readAll('deletes'),
  subscribe('bob unsubscribes all', 'b', 'bob', []),
  su('update post 1 again', 'PATCH', `/api/collections/posts/records/${P1}`, { n: 9 }),
  ...readAll('after unsubscribe'),
  subscribe('guest subscribes with expand', 'g', undefined, [
    `posts?options=${encodeURIComponent(JSON.stringify({ query: { expand: 'nope' } }))}`,
  ]),
  su('update post 1 third', 'PATCH', `/api/collections/posts/records/${P1}`, { n: 10 }),
  ...readAll('with expand'),
  // Errors of the subscribe request.
  subscribe('unknown client', 'g', undefined, ['posts']),
  {
    name: 'no client id',
    method: 'POST',
    path: '/api/realtime',
    body: { subscriptions: ['posts'] },
  },
  {
    name: 'client id wrong type',
    method: 'POST',
    path: '/api/realtime',
    body: { clientId: 12, subscriptions: ['posts'] },
  },
  {
    name: 'subscriptions wrong type',
    method: 'POST',
    path: '/api/realtime',
    body: { clientId: '{{g}}', subscriptions: 'posts' },
  },
  subscribe('alice on the guest connection', 'g', 'alice', ['posts']),
  subscribe('guest on alice connection', 'a', undefined, ['posts']),
  subscribe('unknown collection', 'g', undefined, ['nope']),
  subscribe('long topic', 'g', undefined, ['x'.repeat(3000)]),
  { name: 'realtime post no body', method: 'POST', path: '/api/realtime' },
  { name: 'close guest', method: 'GET', path: '', stream: { close: 'g' } },
  { name: 'close alice', method: 'GET', path: '', stream: { close: 'a' } },
  { name: 'close bob', method: 'GET', path: '', stream: { close: 'b' } },
  { name: 'close su', method: 'GET', path: '', stream: { close: 's' } },
]

export const realtime: Group = { name: 'realtime', steps }
