/**
 * `:length` of a back-relation (issue 11 point 10): `posts_via_author:length` and
 * `posts_via_author.id:length` are the number of records pointing to the row, as in PocketBase,
 * in client filters, sorts and API rules. A client counts only the records it may list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer

const id = (name: string): string => name.padEnd(15, '0')

async function ok(method: string, path: string, body?: unknown, token: string | null = t.suToken) {
  const res = await t.api(method, path, { token, body })
  expect(res.status, `${method} ${path} ${JSON.stringify(res.body)}`).toBe(200)
  return res.body
}

/** The names of the listed authors, in order. */
async function authors(params: Record<string, string>, token: string | null = t.suToken) {
  const query = new URLSearchParams({ perPage: '500', sort: 'name', ...params })
  const body = await ok(
    'GET',
    `/api/collections/authors/records?${query.toString()}`,
    undefined,
    token,
  )
  return (body.items as { name: string }[]).map((i) => i.name)
}

beforeAll(async () => {
  t = await startServer()
  const a = await ok('POST', '/api/collections', {
    name: 'authors',
    type: 'base',
    listRule: '',
    viewRule: '',
    schema: [{ name: 'name', type: 'text' }],
  })
  await ok('POST', '/api/collections', {
    name: 'posts',
    type: 'base',
    // guests list published posts only
    listRule: 'published = true',
    schema: [
      { name: 'title', type: 'text' },
      { name: 'published', type: 'bool' },
      { name: 'author', type: 'relation', options: { collectionId: a.id, maxSelect: 1 } },
      { name: 'editors', type: 'relation', options: { collectionId: a.id, maxSelect: 5 } },
    ],
  })
  await ok('POST', '/api/collections', {
    name: 'drafts',
    type: 'base',
    listRule: null,
    schema: [{ name: 'author', type: 'relation', options: { collectionId: a.id, maxSelect: 1 } }],
  })
  for (const name of ['ann', 'ben', 'cat', 'dan']) {
    await ok('POST', '/api/collections/authors/records', { id: id(name), name })
  }
  // ann: 3 posts (2 published), ben: 1 (published), cat: 1 (unpublished), dan: none.
  const posts: [string, boolean, string, string[]][] = [
    ['a1', true, 'ann', ['ben', 'cat']],
    ['a2', true, 'ann', ['ben']],
    ['a3', false, 'ann', []],
    ['b1', true, 'ben', ['ben']],
    ['c1', false, 'cat', ['ben', 'dan']],
  ]
  for (const [title, published, author, editors] of posts) {
    await ok('POST', '/api/collections/posts/records', {
      title,
      published,
      author: id(author),
      editors: editors.map(id),
    })
  }
  await ok('POST', '/api/collections/drafts/records', { author: id('dan') })
})

afterAll(() => t.close())

describe('the number of back-related records', () => {
  const superuser: [string, string[]][] = [
    ['posts_via_author.id:length = 0', ['dan']],
    ['posts_via_author:length = 0', ['dan']],
    ['posts_via_author.id:length > 2', ['ann']],
    ['posts_via_author:length = 1', ['ben', 'cat']],
    ['posts_via_author:length >= 1 && posts_via_author:length < 3', ['ben', 'cat']],
    ['posts_via_author:length != 1', ['ann', 'dan']],
    ['posts_via_editors:length = 4', ['ben']],
    ['posts_via_editors.id:length = 1', ['cat', 'dan']],
    ['posts_via_editors:length = 0', ['ann']],
    ['posts_via_author:length = posts_via_editors:length', ['cat']],
    ['drafts_via_author:length = 1', ['dan']],
  ]
  it.each(superuser)('superuser: %s', async (filter, expected) => {
    expect(await authors({ filter })).toEqual(expected)
  })

  it('sorts by it', async () => {
    expect(await authors({ sort: '-posts_via_author:length,name' })).toEqual([
      'ann',
      'ben',
      'cat',
      'dan',
    ])
    expect(await authors({ sort: 'posts_via_editors.id:length,name' })).toEqual([
      'ann',
      'cat',
      'dan',
      'ben',
    ])
  })

  const guest: [string, string[]][] = [
    // cat's only post and one of ann's are not listable by a guest: not counted.
    ['posts_via_author.id:length = 0', ['cat', 'dan']],
    ['posts_via_author:length = 2', ['ann']],
    ['posts_via_author:length = 1', ['ben']],
    ['posts_via_editors:length = 3', ['ben']],
  ]
  it.each(guest)('guest (counts only listable posts): %s', async (filter, expected) => {
    expect(await authors({ filter }, null)).toEqual(expected)
  })

  it('a guest cannot count records of a collection only superusers list', async () => {
    const res = await t.api(
      'GET',
      `/api/collections/authors/records?filter=${encodeURIComponent('drafts_via_author:length = 0')}`,
    )
    expect(res.status).toBe(400)
    expect(res.body).toEqual({
      code: 400,
      status: 400,
      message:
        'Invalid filter: cannot filter by "drafts_via_author": only superusers can list "drafts".',
      data: {},
    })
  })

  it('works in API rules, which count every record', async () => {
    await ok('PATCH', '/api/collections/authors', { listRule: 'posts_via_author:length >= 1' })
    try {
      expect(await authors({}, null)).toEqual(['ann', 'ben', 'cat'])
    } finally {
      await ok('PATCH', '/api/collections/authors', { listRule: '' })
    }
  })

  const invalid: [string, string][] = [
    [
      'posts_via_author.title:length = 0',
      'Invalid filter: the :length modifier needs a select, relation or file field ("posts_via_author.title:length").',
    ],
    ['posts_via_author = 0', 'Invalid filter: unknown field "posts_via_author".'],
    ['posts_via_nope:length = 0', 'Invalid filter: unknown field "posts_via_nope".'],
  ]
  it.each(invalid)('%s is a 400', async (filter, message) => {
    const res = await t.api(
      'GET',
      `/api/collections/authors/records?filter=${encodeURIComponent(filter)}`,
      { token: t.suToken },
    )
    expect(res.status).toBe(400)
    expect(res.body).toEqual({ code: 400, status: 400, message, data: {} })
  })
})
