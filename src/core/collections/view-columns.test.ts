import { describe, expect, it } from 'vitest'
import { columnReference, readSelect, typeOfExpression } from './view-columns.js'

describe('readSelect', () => {
  it.each([
    {
      query: 'SELECT id, title FROM posts',
      names: ['id', 'title'],
      expressions: ['id', 'title'],
      sources: [['posts', 'posts']],
    },
    {
      query:
        'SELECT p.id, COUNT(c.id) AS total, "x" kind, CAST(p.published AS BOOL) AS is_public FROM posts p LEFT JOIN comments AS c ON c.post = p.id GROUP BY p.id',
      names: ['id', 'total', 'kind', 'is_public'],
      expressions: ['p.id', 'COUNT(c.id)', '"x"', 'CAST(p.published AS BOOL)'],
      sources: [
        ['p', 'posts'],
        ['c', 'comments'],
      ],
    },
    {
      // The main SELECT follows the CTE; commas inside calls and subqueries do not split.
      query:
        "WITH t AS (SELECT id, a FROM x) SELECT DISTINCT t.id, coalesce(t.a, 'b, c') AS a, (SELECT 1, 2) AS s FROM t, y WHERE t.id != ''",
      names: ['id', 'a', 's'],
      expressions: ['t.id', "coalesce(t.a, 'b, c')", '(SELECT 1, 2)'],
      sources: [
        ['t', 't'],
        ['y', 'y'],
      ],
    },
    {
      // Without an alias the engine names the column after the expression: nothing is cut.
      query: 'SELECT id, CASE WHEN n > 1 THEN 1 ELSE 0 END FROM t',
      names: ['id', 'CASE WHEN n > 1 THEN 1 ELSE 0 END'],
      expressions: ['id', 'CASE WHEN n > 1 THEN 1 ELSE 0 END'],
      sources: [['t', 't']],
    },
  ])('$query', ({ query, names, expressions, sources }) => {
    const shape = readSelect(query, names)
    expect(shape?.expressions).toEqual(expressions)
    expect([...(shape?.sources ?? [])]).toEqual(sources)
  })

  it('gives up when the list does not match the described columns (t.*)', () => {
    expect(readSelect('SELECT t.* FROM t', ['id', 'a'])).toBeNull()
    expect(readSelect("SELECT 'open", ['x'])).toBeNull()
  })
})

describe('typeOfExpression (PocketBase view column types)', () => {
  it.each([
    ['COUNT(*)', 'number'],
    ['total(x)', 'number'],
    ['CAST(x AS INTEGER)', 'number'],
    ['cast(a + b as real)', 'number'],
    ['CAST(x AS TEXT)', 'text'],
    ['CAST(x AS BOOL)', 'bool'],
    ['CAST(x AS boolean)', 'bool'],
    ["json_object('a', 1)", 'json'],
    ['x', null],
    ["'abc'", null],
  ])('%s → %s', (expr, type) => {
    expect(typeOfExpression(expr)).toBe(type)
  })

  it('reads plain column references', () => {
    expect(columnReference('title')).toEqual([null, 'title'])
    expect(columnReference('p."title"')).toEqual(['p', 'title'])
    expect(columnReference('lower(title)')).toBeNull()
  })
})
