import { describe, expect, it } from 'vitest'
import { excerpt, parseFields, PickerError, pickFields } from './picker.js'

const record = {
  id: 'r1',
  title: 'Hello',
  body: '<p>Hello <b>big</b> world</p>',
  views: 3,
  tags: ['a', 'b'],
  meta: { lang: 'en', score: 9, nested: { deep: 1, other: 2 } },
  expand: {
    author: { id: 'u1', name: 'Ann', email: 'ann@example.com' },
    comments: [
      { id: 'c1', text: 'one', likes: 1 },
      { id: 'c2', text: 'two', likes: 2 },
    ],
  },
}

interface Case {
  name: string
  data: unknown
  fields: string
  expected: unknown
}

const cases: Case[] = [
  {
    name: 'top-level keys',
    data: record,
    fields: 'id,title',
    expected: { id: 'r1', title: 'Hello' },
  },
  {
    name: 'spaces around commas and empty entries are ignored',
    data: record,
    fields: ' id ,  views ,, ',
    expected: { id: 'r1', views: 3 },
  },
  {
    name: 'unknown keys are ignored',
    data: record,
    fields: 'id,nope,meta.nope',
    expected: { id: 'r1', meta: {} },
  },
  {
    name: 'dot paths into nested objects',
    data: record,
    fields: 'meta.lang,meta.nested.deep,expand.author.name',
    expected: { meta: { lang: 'en', nested: { deep: 1 } }, expand: { author: { name: 'Ann' } } },
  },
  {
    name: 'dot paths into arrays of objects',
    data: record,
    fields: 'expand.comments.text',
    expected: { expand: { comments: [{ text: 'one' }, { text: 'two' }] } },
  },
  {
    name: 'arrays of scalars and mixed arrays keep their non-objects',
    data: { list: [1, { a: 1, b: 2 }, 'x', null], tags: ['a'] },
    fields: 'list.a,tags.x',
    expected: { list: [1, { a: 1 }, 'x', null], tags: ['a'] },
  },
  {
    name: 'a dot path into a scalar keeps the scalar',
    data: record,
    fields: 'title.length,views.x',
    expected: { title: 'Hello', views: 3 },
  },
  {
    name: 'star keeps every key of the root',
    data: { a: 1, b: { c: 2 } },
    fields: '*',
    expected: { a: 1, b: { c: 2 } },
  },
  {
    name: 'star combined with a nested path narrows only that key',
    data: record,
    fields: '*,expand.author.name',
    expected: { ...record, expand: { author: { name: 'Ann' } } },
  },
  {
    name: 'star at a nested level',
    data: record,
    fields: 'id,expand.author.*',
    expected: { id: 'r1', expand: { author: record.expand.author } },
  },
  {
    name: 'star on an array level applies per item',
    data: record,
    fields: 'expand.comments.*',
    expected: { expand: { comments: record.expand.comments } },
  },
  {
    name: 'a listed key wins over nested paths under it',
    data: record,
    fields: 'meta.lang,meta',
    expected: { meta: record.meta },
  },
  {
    name: 'the later of two equal entries wins',
    data: { body: '<i>abcdef</i>' },
    fields: 'body:excerpt(2),body',
    expected: { body: '<i>abcdef</i>' },
  },
  {
    name: 'excerpt modifier on a top-level key',
    data: record,
    fields: 'id,body:excerpt(9,true)',
    expected: { id: 'r1', body: 'Hello big...' },
  },
  {
    name: 'excerpt modifier at the end of a dot path, per array item',
    data: { posts: [{ html: '<h1>Title</h1><p>Text</p>' }, { html: 'plain' }] },
    fields: 'posts.html:excerpt(100)',
    expected: { posts: [{ html: 'Title Text' }, { html: 'plain' }] },
  },
  {
    name: 'excerpt leaves non-strings untouched',
    data: { n: 1234567, b: true, o: { x: '<b>y</b>' }, z: null },
    fields: 'n:excerpt(2,true),b:excerpt(1),o:excerpt(1),z:excerpt(1)',
    expected: { n: 1234567, b: true, o: { x: '<b>y</b>' }, z: null },
  },
  {
    name: 'star with a modifier modifies every key not listed otherwise',
    data: { a: '<p>aaaa</p>', b: 'bbbb', c: 5, d: 'dddd' },
    fields: '*:excerpt(2,true),d',
    expected: { a: 'aa...', b: 'bb...', c: 5, d: 'dddd' },
  },
  {
    name: 'list results are picked per item and keep their wrapper',
    data: {
      items: [record, { id: 'r2', title: 'Two' }],
      page: 1,
      perPage: 2,
      totalItems: 9,
      totalPages: 5,
    },
    fields: 'id',
    expected: {
      items: [{ id: 'r1' }, { id: 'r2' }],
      page: 1,
      perPage: 2,
      totalItems: 9,
      totalPages: 5,
    },
  },
  {
    name: 'skipTotal list results (-1 totals) are list results too',
    data: { items: [record], page: 1, perPage: 30, totalItems: -1, totalPages: -1 },
    fields: 'title',
    expected: { items: [{ title: 'Hello' }], page: 1, perPage: 30, totalItems: -1, totalPages: -1 },
  },
  {
    name: 'an object with items but not the list shape is picked as a whole',
    data: { items: [{ id: 'x', y: 1 }], page: 1, other: true },
    fields: 'items.id',
    expected: { items: [{ id: 'x' }] },
  },
  {
    name: 'auth responses are picked as a whole, so record paths drop the token',
    data: { token: 't', record: { id: 'u1', email: 'e' }, meta: { isNew: false } },
    fields: 'record.id',
    expected: { record: { id: 'u1' } },
  },
  {
    name: 'auth responses with token and star',
    data: { token: 't', record: { id: 'u1', email: 'e' }, meta: { isNew: false } },
    fields: 'token,record.email',
    expected: { token: 't', record: { email: 'e' } },
  },
  {
    name: 'a top-level array is picked per element',
    data: [
      { id: 1, x: 1 },
      { id: 2, x: 2 },
    ],
    fields: 'id',
    expected: [{ id: 1 }, { id: 2 }],
  },
  {
    name: 'top-level scalars are returned as they are',
    data: 'text',
    fields: 'id',
    expected: 'text',
  },
  {
    name: 'toJSON is resolved as JSON.stringify would',
    data: { when: new Date('2024-01-02T03:04:05.000Z'), model: { toJSON: () => ({ a: 1, b: 2 }) } },
    fields: 'when.x,model.a',
    expected: { when: '2024-01-02T03:04:05.000Z', model: { a: 1 } },
  },
]

describe('pickFields', () => {
  it.each(cases)('$name', ({ data, fields, expected }) => {
    expect(pickFields(data, fields)).toStrictEqual(expected)
  })

  it('returns the data itself for an empty or blank expression', () => {
    expect(pickFields(record, '')).toBe(record)
    expect(pickFields(record, '  , ,')).toBe(record)
  })

  it('never mutates its input', () => {
    const data = structuredClone(record)
    pickFields(data, 'id,expand.comments.id,body:excerpt(3)')
    expect(data).toStrictEqual(record)
  })

  it('keeps an own "__proto__" key as a key', () => {
    const data: unknown = JSON.parse('{"__proto__":{"polluted":true},"a":1}')
    const out = pickFields(data, '__proto__,a') as Record<string, unknown>
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true},"a":1}')
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('walks data nested 100 000 deep without recursion', () => {
    let arrays: unknown = 'leaf'
    let objects: unknown = { keep: 1, drop: 2 }
    for (let i = 0; i < 100_000; i++) {
      arrays = [arrays]
      objects = { a: objects, drop: i }
    }
    const data = { id: 'r1', meta: arrays, doc: objects }
    const path = `doc${'.a'.repeat(100_000)}.keep`
    const out = pickFields(data, `id,meta.0.0.x,${path}`) as typeof data
    let m: unknown = out.meta
    for (let i = 0; i < 100_000; i++) m = (m as unknown[])[0]
    expect(m).toBe('leaf')
    let d = out.doc as Record<string, unknown>
    for (let i = 0; i < 100_000; i++) {
      expect(Object.keys(d)).toEqual(['a'])
      d = d.a as Record<string, unknown>
    }
    expect(d).toStrictEqual({ keep: 1 })
  })

  it('accepts a tree parsed once and reuses it', () => {
    const tree = parseFields('id,title:excerpt(2)')
    expect(pickFields({ id: 1, title: 'abc', x: 0 }, tree)).toStrictEqual({ id: 1, title: 'ab' })
    expect(pickFields({ id: 2, title: 'xyz' }, tree)).toStrictEqual({ id: 2, title: 'xy' })
  })

  it('picks 1000 list items quickly', () => {
    const items = Array.from({ length: 1000 }, (_, i) => ({ ...record, id: `r${i}` }))
    const list = { items, page: 1, perPage: 1000, totalItems: 1000, totalPages: 1 }
    const start = performance.now()
    const out = pickFields(list, 'id,body:excerpt(5,true),expand.comments.id') as typeof list
    expect(performance.now() - start).toBeLessThan(500)
    expect(out.items[999]).toStrictEqual({
      id: 'r999',
      body: 'Hello...',
      expand: { comments: [{ id: 'c1' }, { id: 'c2' }] },
    })
  })
})

describe('parseFields', () => {
  it('builds a tree of keys, nested paths, stars and modifiers', () => {
    const tree = parseFields('a, b.c ,*,d:excerpt(200, true)')
    expect([...tree.keys.keys()]).toStrictEqual(['a', 'b', 'd'])
    expect(tree.star).toStrictEqual({ modifier: null })
    expect(tree.keys.get('b')?.whole).toBe(false)
    expect(tree.keys.get('b')?.sub.keys.get('c')?.whole).toBe(true)
    expect(tree.keys.get('d')?.modifier?.name).toBe('excerpt')
  })

  it('does not split on commas inside modifier arguments', () => {
    const tree = parseFields('x:excerpt(3,true),y')
    expect([...tree.keys.keys()]).toStrictEqual(['x', 'y'])
  })

  const errors: { fields: string; code: string; message: string }[] = [
    {
      fields: 'a:upper',
      code: 'unknown_modifier',
      message:
        'Unknown modifier "upper" in "a:upper": the only modifier is excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt',
      code: 'invalid_modifier_args',
      message:
        'Missing maxChars argument in "a:excerpt": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt()',
      code: 'invalid_modifier_args',
      message:
        'Missing maxChars argument in "a:excerpt()": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt(1,true,3)',
      code: 'invalid_modifier_args',
      message:
        'Too many arguments in "a:excerpt(1,true,3)": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt(0)',
      code: 'invalid_modifier_args',
      message:
        'Argument maxChars must be a positive integer, got "0" in "a:excerpt(0)": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt(-5)',
      code: 'invalid_modifier_args',
      message:
        'Argument maxChars must be a positive integer, got "-5" in "a:excerpt(-5)": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt(ten)',
      code: 'invalid_modifier_args',
      message:
        'Argument maxChars must be a positive integer, got "ten" in "a:excerpt(ten)": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt(10,yes)',
      code: 'invalid_modifier_args',
      message:
        'Argument withEllipsis must be a boolean, got "yes" in "a:excerpt(10,yes)": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'a:excerpt(10,)',
      code: 'invalid_modifier_args',
      message:
        'Argument withEllipsis must be a boolean, got "" in "a:excerpt(10,)": expected excerpt(maxChars, withEllipsis?).',
    },
    {
      fields: 'id,a:excerpt(10',
      code: 'unbalanced_parenthesis',
      message: 'Unbalanced parenthesis in "a:excerpt(10".',
    },
    {
      fields: 'a:excerpt)10(',
      code: 'unbalanced_parenthesis',
      message: 'Unbalanced parenthesis in "a:excerpt)10(".',
    },
    {
      fields: 'a:excerpt(10))',
      code: 'invalid_modifier',
      message: 'Invalid modifier "excerpt(10))" in "a:excerpt(10))": expected name(args).',
    },
    {
      fields: 'a:',
      code: 'invalid_modifier',
      message: 'Invalid modifier "" in "a:": expected name(args).',
    },
    {
      fields: 'a:excerpt(10) x',
      code: 'invalid_modifier',
      message: 'Invalid modifier "excerpt(10) x" in "a:excerpt(10) x": expected name(args).',
    },
    {
      fields: ':excerpt(10)',
      code: 'missing_field_name',
      message: 'Missing field name before ":" in ":excerpt(10)".',
    },
  ]

  it.each(errors)('rejects $fields', ({ fields, code, message }) => {
    let caught: unknown
    try {
      parseFields(fields)
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(PickerError)
    expect(caught).toMatchObject({ name: 'PickerError', code, message })
    expect(() => pickFields({ a: 1 }, fields)).toThrow(PickerError)
  })

  it('accepts the boolean spellings of Go ParseBool', () => {
    for (const t of ['1', 't', 'T', 'TRUE', 'true', 'True']) {
      expect(pickFields({ a: 'abcdef' }, `a:excerpt(2,${t})`)).toStrictEqual({ a: 'ab...' })
    }
    for (const f of ['0', 'f', 'F', 'FALSE', 'false', 'False']) {
      expect(pickFields({ a: 'abcdef' }, `a:excerpt(2, ${f} )`)).toStrictEqual({ a: 'ab' })
    }
  })
})

describe('excerpt', () => {
  const table: { name: string; html: string; max: number; ellipsis?: boolean; out: string }[] = [
    { name: 'plain text', html: 'just text', max: 100, out: 'just text' },
    { name: 'empty', html: '', max: 5, ellipsis: true, out: '' },
    { name: 'strips tags', html: '<p>a <b>bold</b> <i>move</i></p>', max: 100, out: 'a bold move' },
    { name: 'inline tags do not break words', html: 'un<b>bro</b>ken', max: 100, out: 'unbroken' },
    {
      name: 'block tags separate words',
      html: '<p>one</p><p>two</p>three<div>four</div>',
      max: 100,
      out: 'one two three four',
    },
    {
      name: 'br and li separate words',
      html: 'a<br>b<br/>c<ul><li>d</li><li>e</li></ul>',
      max: 100,
      out: 'a b c d e',
    },
    {
      name: 'drops script, style and template content',
      html: '<style>p{color:red}</style><p>x</p><script>if (a < b) { alert("</p>") }</script><template><p>t</p></template>y',
      max: 100,
      out: 'x y',
    },
    {
      name: 'drops form controls, svg and nested excluded elements',
      html: 'a<form><div><form>in</form>still</div></form>b<svg><g><text>s</text></g></svg>c<img src=x alt="pic">d',
      max: 100,
      out: 'a b c d',
    },
    {
      name: 'drops head and its title',
      html: '<html><head><title>T</title><meta charset="utf-8"></head><body>B</body></html>',
      max: 100,
      out: 'B',
    },
    {
      name: 'drops comments and doctype',
      html: '<!DOCTYPE html><!-- <p>hidden</p> -->shown',
      max: 100,
      out: 'shown',
    },
    {
      name: 'quoted attributes may hold >',
      html: "<a title=\"1 > 0\" href='x>y'>link</a> it's",
      max: 100,
      out: "link it's",
    },
    { name: 'collapses whitespace', html: '  a \n\t b\r\n\r\n   c  ', max: 100, out: 'a b c' },
    {
      name: 'decodes basic entities after tag removal',
      html: '&lt;b&gt;x&lt;/b&gt; &amp; &quot;q&quot; &#39;s&#39; &#x41;&#66; &copy; &unknown; &#0;',
      max: 100,
      out: '<b>x</b> & "q" \'s\' AB \u00a9 &unknown; \ufffd',
    },
    { name: 'a stray < is text', html: '1 < 2 and 3 <4', max: 100, out: '1 < 2 and 3 <4' },
    { name: 'cuts to maxChars', html: '<p>Hello world</p>', max: 5, out: 'Hello' },
    {
      name: 'appends ... when cut',
      html: '<p>Hello world</p>',
      max: 5,
      ellipsis: true,
      out: 'Hello...',
    },
    { name: 'no ... when not cut', html: '<p>Hello</p>', max: 5, ellipsis: true, out: 'Hello' },
    {
      name: 'no ... when only markup was longer',
      html: '<p class="long">Hello</p>',
      max: 6,
      ellipsis: true,
      out: 'Hello',
    },
    {
      name: 'trims the cut at a space',
      html: 'Hello world',
      max: 6,
      ellipsis: true,
      out: 'Hello...',
    },
    {
      name: 'counts code points, not UTF-16 units',
      html: '😀😁😂🤣',
      max: 2,
      ellipsis: true,
      out: '😀😁...',
    },
    { name: 'multi-byte letters', html: '<b>żółć</b> gęślą', max: 4, out: 'żółć' },
  ]

  it.each(table)('$name', ({ html, max, ellipsis, out }) => {
    expect(excerpt(html, max, ellipsis)).toBe(out)
  })
})
