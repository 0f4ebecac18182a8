/** The collection editor's draft logic: the body sent, the data-loss list, indexes on renames. */
import { describe, expect, it } from 'vitest'
import type { CollectionModel } from 'pocketbase'
import { dataLoss, renameInIndexes, toBody, toDraft } from './model'

const stored = {
  id: 'c1',
  name: 'posts',
  type: 'base',
  system: false,
  created: 'x',
  updated: 'y',
  schema: [],
  indexes: ['CREATE UNIQUE INDEX `idx_posts_title` ON `posts` (`title`)'],
  fields: [
    { id: 'f1', name: 'title', type: 'text', system: false },
    { id: 'f2', name: 'tags', type: 'select', maxSelect: 3, values: ['a', 'b'], system: false },
    { id: 'f3', name: 'old', type: 'text', system: false },
    { id: 'f4', name: 'n', type: 'text', system: false },
  ],
}

describe('collection editor model', () => {
  it('sends renamed fields with their id, replaced ones without, removed ones not at all', () => {
    const d = toDraft(stored)
    d.fields[0]!.data.name = 'headline'
    d.fields[2]!.removed = true
    d.fields[3]!.data.type = 'number'
    const body = toBody(d, false, { name: 'posts' })
    expect(body.schema).toBeUndefined()
    expect(body.created).toBeUndefined()
    const fields = body.fields as Record<string, unknown>[]
    expect(fields.map((f) => [f.id, f.name, f.type])).toEqual([
      ['f1', 'headline', 'text'],
      ['f2', 'tags', 'select'],
      [undefined, 'n', 'number'],
    ])
    expect(body.indexes).toEqual(['CREATE UNIQUE INDEX `idx_posts_title` ON `posts` (`headline`)'])
  })

  it('lists exactly what a save loses', () => {
    const d = toDraft(stored)
    d.fields[1]!.data.maxSelect = 1
    d.fields[2]!.removed = true
    d.fields[3]!.data.type = 'number'
    d.fields[0]!.data.name = 'renamed'
    expect(dataLoss(d, stored as unknown as CollectionModel)).toEqual([
      'Field "tags" (select) goes from multiple values to one: only one value of each record is kept.',
      'Field "old" (text) is deleted with all its values.',
      'Field "n" changes type text → number: its values are deleted.',
    ])
    expect(dataLoss(toDraft(stored), stored as unknown as CollectionModel)).toEqual([])
  })

  it('renames columns in indexes after ON, never in the index name or string literals', () => {
    expect(
      renameInIndexes(
        [
          "CREATE UNIQUE INDEX idx_title ON posts (title) WHERE title != 'title'",
          'CREATE INDEX idx_x ON `posts` (subtitle, "title" DESC)',
        ],
        [['title', 'headline']],
        { name: 'posts' },
        'articles',
      ),
    ).toEqual([
      "CREATE UNIQUE INDEX idx_title ON articles (headline) WHERE headline != 'title'",
      'CREATE INDEX idx_x ON `articles` (subtitle, "headline" DESC)',
    ])
  })
})
