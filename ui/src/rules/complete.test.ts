import { describe, expect, it } from 'vitest'
import type { CollectionModel } from 'pocketbase'
import { complete, type CompletionContext } from './complete'

function collection(
  id: string,
  type: 'base' | 'auth',
  fields: { name: string; type: string; collectionId?: string; maxSelect?: number }[],
): CollectionModel {
  return {
    id,
    name: id,
    type,
    fields: [
      { name: 'id', type: 'text' },
      ...fields,
      { name: 'created', type: 'autodate' },
      { name: 'updated', type: 'autodate' },
    ],
  } as unknown as CollectionModel
}

const users = collection('users', 'auth', [
  { name: 'email', type: 'email' },
  { name: 'name', type: 'text' },
  { name: 'team', type: 'relation', collectionId: 'teams', maxSelect: 1 },
])
const teams = collection('teams', 'base', [{ name: 'title', type: 'text' }])
const posts = collection('posts', 'base', [
  { name: 'title', type: 'text' },
  { name: 'author', type: 'relation', collectionId: 'users', maxSelect: 1 },
  { name: 'tags', type: 'select', maxSelect: 3 },
])
const comments = collection('comments', 'base', [
  { name: 'post', type: 'relation', collectionId: 'posts', maxSelect: 1 },
  { name: 'body', type: 'text' },
])
const all = [comments, posts, teams, users]

const rule: CompletionContext = { collection: posts, collections: all, mode: 'rule' }
const filterCtx: CompletionContext = { ...rule, mode: 'filter' }

/** The labels offered with the cursor at the `|` of `text`. */
function labels(text: string, ctx = rule): string[] {
  const cursor = text.indexOf('|')
  return complete(text.replace('|', ''), cursor, ctx).options.map((o) => o.label)
}

function range(text: string, ctx = rule): [number, number] {
  const cursor = text.indexOf('|')
  const r = complete(text.replace('|', ''), cursor, ctx)
  return [r.from, r.to]
}

describe('complete', () => {
  it('offers the fields of the collection for a partial name', () => {
    expect(labels('ti|')).toEqual(['title'])
    expect(range('x = 1 && ti|')).toEqual([9, 11])
  })

  it('offers fields, @ names, macros and functions on an empty start', () => {
    const l = labels('|')
    expect(l).toEqual(
      expect.arrayContaining(['title', 'author', '@request', '@collection', '@now']),
    )
    expect(l).toContain('geoDistance(')
  })

  it('follows a relation with a dot', () => {
    expect(labels('author.|')).toEqual(expect.arrayContaining(['email', 'name', 'team']))
    expect(labels('author.na|')).toEqual(['name'])
    expect(range('author.na|')).toEqual([7, 9])
  })

  it('follows relations several levels deep', () => {
    expect(labels('author.team.ti|')).toEqual(['title'])
  })

  it('offers back-relations as <collection>_via_<field>', () => {
    expect(labels('comm|')).toEqual(['comments_via_post'])
    expect(labels('comments_via_post.bo|')).toEqual(['body'])
  })

  it('offers nothing after a plain (non-relation) field', () => {
    expect(labels('title.|')).toEqual([])
  })

  it('offers the @request keys', () => {
    expect(labels('@request.|')).toEqual(['auth', 'body', 'query', 'headers', 'method', 'context'])
    expect(labels('@req|')).toEqual(['@request'])
  })

  it('offers the fields of the auth collections under @request.auth', () => {
    const l = labels('@request.auth.|')
    expect(l).toEqual(expect.arrayContaining(['id', 'email', 'name', 'collectionName']))
    expect(labels('@request.auth.team.t|')).toEqual(['title'])
  })

  it('offers the collection fields under @request.body', () => {
    expect(labels('@request.body.ti|')).toEqual(['title'])
  })

  it('offers header names under @request.headers and nothing under @request.query', () => {
    expect(labels('@request.headers.user|')).toEqual(['user_agent'])
    expect(labels('@request.query.|')).toEqual([])
  })

  it('offers collection names and their fields under @collection', () => {
    expect(labels('@collection.te|')).toEqual(['teams'])
    expect(labels('@collection.teams.ti|')).toEqual(['title'])
    expect(labels('@collection.users:u.em|')).toEqual(['email'])
  })

  it('offers modifiers after a colon, :isset and :changed only on @request.body', () => {
    expect(labels('tags:|')).toEqual(['length', 'each', 'lower'])
    expect(labels('tags:le|')).toEqual(['length'])
    expect(labels('@request.body.title:|')).toEqual(
      expect.arrayContaining(['isset', 'changed', 'length']),
    )
    expect(range('tags:le|')).toEqual([5, 7])
  })

  it('offers the date macros', () => {
    expect(labels('created > @to|')).toEqual(['@tomorrow', '@todayStart', '@todayEnd'])
    expect(labels('@month|')).toEqual(['@monthStart', '@monthEnd'])
  })

  it('offers operators after an operand, and completes a partial operator', () => {
    expect(labels('title |')).toEqual(expect.arrayContaining(['=', '!=', '~', '?=', '&&']))
    expect(labels('title ?|')).toContain('?!=')
    expect(range('title ?|')).toEqual([6, 7])
    expect(labels("title = 'x' |")).toContain('&&')
  })

  it('offers operands, not operators, right after an operator', () => {
    const l = labels('title = |')
    expect(l).toContain('author')
    expect(l).not.toContain('=')
  })

  it('offers nothing inside a string', () => {
    expect(labels("title = 'ti|")).toEqual([])
    expect(labels('title = "a\\"b|')).toEqual([])
  })

  it('has no @request in filter mode', () => {
    expect(labels('@re|', filterCtx)).toEqual([])
    expect(labels('@request.auth.|', filterCtx)).toEqual([])
    expect(labels('|', filterCtx)).not.toContain('@request')
    expect(labels('@|', filterCtx)).toContain('@collection')
  })

  it('clamps the cursor and copes with unknown names', () => {
    expect(complete('ti', 99, rule).options.map((o) => o.label)).toEqual(['title'])
    expect(labels('nope.|')).toEqual([])
    expect(labels('@collection.nope.|')).toEqual([])
  })

  it('describes relation fields with their target', () => {
    const r = complete('auth', 4, rule)
    expect(r.options).toEqual([{ label: 'author', detail: 'relation → users' }])
  })
})
