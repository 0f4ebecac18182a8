/**
 * List filters, sorts and parameters answered as PocketBase 0.40.4 answers them (each expectation
 * checked against it): a client's relation paths carry the joined collections' listRules the way
 * PocketBase applies them, `:length` of a back-relation path is the `:length` of its field (a
 * modifier that does not apply to a field is ignored), escapes in quoted text, `~` with a number,
 * a JSON document compared as `json_extract(doc, '$')`, repeated and malformed query parameters,
 * page numbers up to int64. On SQLite and on PostgreSQL (SVC_TEST_PG_URL, from the global setup).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

const pid = (n: number) => `pst00000000000${n}`
const rules = (listRule: string) => ({ listRule, viewRule: listRule })

async function setUp(t: TestServer): Promise<void> {
  const make = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', '/api/collections', { token: t.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body.id as string
  }
  const insert = async (coll: string, body: Record<string, unknown>) => {
    const res = await t.api('POST', `/api/collections/${coll}/records`, { token: t.suToken, body })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const people = await make({
    name: 'people',
    fields: [{ name: 'name', type: 'text' }],
    ...rules('name != "Bob"'),
  })
  const tags = await make({
    name: 'tags',
    fields: [{ name: 'name', type: 'text' }],
    ...rules('name != "t2"'),
  })
  const posts = await make({
    name: 'posts',
    fields: [
      { name: 'title', type: 'text' },
      { name: 'views', type: 'number' },
      { name: 'meta', type: 'json' },
      { name: 'cats', type: 'select', values: ['a', 'b', 'c'], maxSelect: 3 },
      { name: 'author', type: 'relation', collectionId: people, maxSelect: 1 },
      { name: 'tags', type: 'relation', collectionId: tags, maxSelect: 5 },
    ],
    ...rules(''),
  })
  await make({
    name: 'comments',
    fields: [
      { name: 'msg', type: 'text' },
      { name: 'post', type: 'relation', collectionId: posts, maxSelect: 1 },
    ],
    ...rules('msg != "c2"'),
  })
  for (const [i, name] of ['Alice', 'Bob', 'Carol', 'Dave'].entries()) {
    await insert('people', { id: `ppl00000000000${i + 1}`, name })
  }
  for (let i = 1; i <= 4; i++) await insert('tags', { id: `tag00000000000${i}`, name: `t${i}` })
  const rows: [string, number, unknown, number, number[], string[]][] = [
    ['p1', 0, 'just a string', 1, [1], ['a']],
    ['p2', 1, true, 2, [2], ['a', 'b']],
    ['p3', 2, { a: 1 }, 3, [3], []],
    ['p4', 3, null, 4, [1, 2], []],
    ['p5', 21, null, 0, [], []],
    ['back\\slash', 5, null, 0, [], []],
  ]
  for (const [i, [title, views, meta, author, tagIds, cats]] of rows.entries()) {
    await insert('posts', {
      id: pid(i + 1),
      title,
      views,
      meta,
      cats,
      author: author ? `ppl00000000000${author}` : '',
      tags: tagIds.map((n) => `tag00000000000${n}`),
    })
  }
  for (const [i, [msg, post]] of (
    [
      ['c1', 1],
      ['c2', 2],
      ['c3', 3],
      ['c4', 1],
      ['c5', 4],
    ] as const
  ).entries()) {
    await insert('comments', { id: `cmt00000000000${i + 1}`, msg, post: pid(post) })
  }
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`lists as PocketBase answers them, on ${engine}`, () => {
    let t: TestServer
    beforeAll(async () => {
      t = await startOn(engine === 'postgres')
      await setUp(t)
    })
    afterAll(() => t?.close())

    /** The ids listed for `query` (the first five posts unless it says otherwise). */
    async function ids(query: string, token: string | null = null): Promise<string[] | number> {
      const res = await t.api('GET', `/api/collections/posts/records?perPage=50&${query}`, {
        token,
      })
      if (res.status !== 200) return res.status
      return (res.body.items as { id: string }[]).map((i) => i.id)
    }
    const filter = (f: string, token: string | null = null) =>
      ids(`sort=id&filter=${encodeURIComponent(`(${f}) && id != "${pid(6)}"`)}`, token)
    const posts = (...n: number[]) => n.map(pid)

    it.each([
      // Bob (listRule) and tag t2 are hidden from a guest: a post linked to them drops out.
      ['author.name != "Alice"', posts(3, 4, 5)],
      ['author.name = "Bob"', []],
      ['author.name != "Alice" || title = "p2"', posts(3, 4, 5)],
      // …but a single relation's id is the post's own column.
      ['author.id = "ppl000000000002"', posts(2)],
      ['tags.name = "t1"', posts(1)],
      ['tags.name != "t2"', posts(1, 3, 5)],
      ['tags.name ?!= "t2"', posts(1, 3, 4, 5)],
      ['tags.id ?= "tag000000000002"', []],
      ['comments_via_post.msg ?= "c2"', []],
      ['comments_via_post.msg != "c1"', posts(3, 4, 5)],
      // `id:length` is the id (`:length` does not apply to text): an empty back-relation is ''.
      ['comments_via_post.id:length = 0', []],
      ['comments_via_post.id:length >= 1', posts(1, 3, 4)],
    ])('a guest filtering by %s', async (f, expected) => {
      expect(await filter(f)).toEqual(expected)
    })

    it('a guest sorting by a relation path: posts linked to hidden records drop out', async () => {
      const only5 = `filter=${encodeURIComponent(`id != "${pid(6)}"`)}`
      expect(await ids(`sort=author.name&${only5}`)).toEqual(posts(5, 1, 3, 4))
      expect(await ids(`sort=-author.name&${only5}`)).toEqual(posts(4, 3, 1, 5))
      expect(await ids(`sort=tags.name&${only5}`)).toEqual(posts(5, 1, 4, 3))
      const res = await t.api('GET', `/api/collections/posts/records?sort=author.name&${only5}`)
      expect(res.body.totalItems).toBe(4)
    })

    it.each([
      // A modifier that does not apply to the field is ignored.
      ['title:length = "p1"', posts(1)],
      ['title:isset = "p1"', posts(1)],
      ['title:changed = "p1"', posts(1)],
      ['title:each = "p1"', posts(1)],
      ['views:length = 1', posts(2)],
      ['meta:length = true', posts(2)],
      ['tags:length = 2', posts(4)],
      // A count is no column: the text "2" is not the number 2.
      ['tags:length = "2"', []],
      ['cats:length = "2"', []],
      ['cats:length = 2', posts(2)],
      // `~` with a number is a `%…%` pattern of its text.
      ['views ~ 1', posts(2, 5)],
      ['views !~ 1', posts(1, 3, 4)],
      // The whole JSON document reads as json_extract(doc, '$').
      ['meta = "just a string"', posts(1)],
      ['meta = true', posts(2)],
      ['meta = 1', posts(2)],
      ['meta ~ "a"', posts(1, 3)],
      ['meta = \'{"a":1}\'', posts(3)],
      // A modifier after a JSON path is read as part of its last key (`aisset`): NULL.
      ['meta.a = 1', posts(3)],
      ['meta.a:isset = 1', []],
      ['meta.a:length = null', posts(1, 2, 3, 4, 5)],
    ])('a superuser filtering by %s', async (f, expected) => {
      expect(await filter(f, t.suToken)).toEqual(expected)
    })

    it('reads backslash escapes in quoted text as PocketBase does', async () => {
      const find = (f: string) => ids(`filter=${encodeURIComponent(f)}`)
      expect(await find('title = "back\\\\slash"')).toEqual([pid(6)])
      expect(await find('title = "back\\slash"')).toEqual([pid(6)])
      expect(await find("title = 'back\\\\slash' || title = 'p\\1'")).toEqual([pid(6)])
    })

    it.each([
      [
        'comments_via_post:length = 0',
        'Invalid filter: the back-relation "comments_via_post" must be followed by a field ("comments_via_post.id").',
      ],
      ['   ', 'Invalid filter: filter is empty.'],
    ])('refuses %j with a 400', async (f, message) => {
      const res = await t.api(
        'GET',
        `/api/collections/posts/records?filter=${encodeURIComponent(f)}`,
        { token: t.suToken },
      )
      expect(res.body).toEqual({ code: 400, status: 400, message, data: {} })
    })

    it('refuses a sort of spaces only with a 400', async () => {
      const res = await t.api('GET', '/api/collections/posts/records?sort=%20%20')
      expect([res.status, res.body.message]).toEqual([400, 'Invalid sort: sort is empty.'])
    })

    it('takes the first of a repeated parameter and ignores one that does not decode', async () => {
      const res = await t.api(
        'GET',
        '/api/collections/posts/records?perPage=2&perPage=3&sort=-id&sort=id&filter=%ZZ',
      )
      expect(res.status).toBe(200)
      expect(res.body.perPage).toBe(2)
      expect(res.body.totalItems).toBe(6)
      expect(res.body.items.map((i: { id: string }) => i.id)).toEqual([pid(6), pid(5)])
    })

    it('reads any int64 page; one past int64 rows wraps to the start', async () => {
      const res = await t.api(
        'GET',
        '/api/collections/posts/records?sort=id&page=9223372036854775807',
      )
      expect(res.status).toBe(200)
      expect(res.body.page).toBe(2 ** 63) // 9223372036854775807 read as a double
      expect(res.body.items).toHaveLength(6)
      const far = await t.api('GET', '/api/collections/posts/records?page=100000000000')
      expect([far.status, far.body.items]).toEqual([200, []])
    })
  })
}
