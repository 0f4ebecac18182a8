import { describe, expect, it } from 'vitest'
import {
  FilterSyntaxError,
  parseFilter,
  parseSort,
  tokenize,
  type FilterNode,
  type OperandNode,
} from './index.js'

/** A compact rendering of the AST so expectations stay readable. */
function show(node: FilterNode): string {
  if (node.kind === 'comparison') {
    return `${operand(node.left)} ${node.operator} ${operand(node.right)}`
  }
  return `${node.kind}(${node.terms.map(show).join(', ')})`
}

function operand(node: OperandNode): string {
  switch (node.kind) {
    case 'identifier':
      return node.name
    case 'number':
      return `#${node.value}`
    case 'text':
      return JSON.stringify(node.value)
    case 'call':
      return `${node.name}(${node.args.map(operand).join(', ')})`
  }
}

function syntaxError(text: string): FilterSyntaxError {
  try {
    parseFilter(text)
  } catch (e) {
    if (e instanceof FilterSyntaxError) return e
    throw e
  }
  throw new Error(`expected a syntax error for ${text}`)
}

describe('parseFilter', () => {
  const valid: [string, string][] = [
    ['a = 1', 'a = #1'],
    ['a=1', 'a = #1'],
    ['a != -1.5', 'a != #-1.5'],
    ['a>-1', 'a > #-1'],
    ["title ~ 'abc'", 'title ~ "abc"'],
    ['title ~ "abc"', 'title ~ "abc"'],
    ["t = 'it\\'s'", `t = "it's"`],
    ['t = "say \\"hi\\""', 't = "say \\"hi\\""'],
    // NB: escapes as PocketBase 0.40 reads them: \\ \" \' \n \t \r; other backslashes stay.
    ["t = 'a\\\"b'", 't = "a\\"b"'],
    ['t = "back\\\\slash"', 't = "back\\\\slash"'],
    ['t = "x\\\\" || u = 1', 'or(t = "x\\\\", u = #1)'],
    ['t = "a\\b\\/\\u0041"', 't = "a\\\\b\\\\/\\\\u0041"'],
    ['t = "a\\nb\\tc\\rd"', 't = "a\\nb\\tc\\rd"'],
    ["t = ''", 't = ""'],
    ['@request.auth.id != ""', '@request.auth.id != ""'],
    ['#x = _y', '#x = _y'],
    ['rel.name:lower ?~ "x"', 'rel.name:lower ?~ "x"'],
    ['ünïcode = 1', 'ünïcode = #1'],
    ['a = 1 && b = 2', 'and(a = #1, b = #2)'],
    ['a = 1 || b = 2', 'or(a = #1, b = #2)'],
    ['a = 1 || b = 2 && c = 3', 'or(a = #1, and(b = #2, c = #3))'],
    ['a = 1 && b = 2 || c = 3', 'or(and(a = #1, b = #2), c = #3)'],
    ['(a = 1 || b = 2) && c = 3', 'and(or(a = #1, b = #2), c = #3)'],
    ['a = 1 && (b = 2 && c = 3)', 'and(a = #1, b = #2, c = #3)'],
    ['((((a = 1))))', 'a = #1'],
    ['a = 1 // comment\n&& b = 2 // end', 'and(a = #1, b = #2)'],
    ['\t a\r\n=\n1 ', 'a = #1'],
    ['f() = 1', 'f() = #1'],
    ['geoDistance(a.lon, a.lat, 1.5, -2,) < 25', 'geoDistance(a.lon, a.lat, #1.5, #-2) < #25'],
    ["strftime('%Y', created) = '2024'", 'strftime("%Y", created) = "2024"'],
    ['a(b(c())) = 1', 'a(b(c())) = #1'],
    ['x ?!~ 1 && x ?>= 2 && x ?<= 3 && x ?!= 4', 'and(x ?!~ #1, x ?>= #2, x ?<= #3, x ?!= #4)'],
  ]
  it.each(valid)('%s', (input, expected) => {
    expect(show(parseFilter(input))).toBe(expected)
  })

  const invalid: [string, string, string][] = [
    ['', 'empty', 'filter is empty'],
    ['  // only a comment', 'empty', 'filter is empty'],
    ['a', 'unexpected_token', 'expected an operator at position 1, found end of filter'],
    ['a =', 'unexpected_token', 'expected an operand at position 3, found end of filter'],
    ['a b', 'unexpected_token', 'expected an operator at position 2, found "b"'],
    ['a = 1 b = 2', 'unexpected_token', 'expected "&&" or "||" at position 6, found "b"'],
    ['(a = 1 b', 'unexpected_token', 'expected "&&", "||" or ")" at position 7, found "b"'],
    ['a == 1', 'invalid_operator', 'unknown operator "==" at position 2'],
    ['a = 1 & b = 2', 'invalid_operator', 'unknown join "&" at position 6, expected "&&" or "||"'],
    ['a = 1.', 'invalid_number', 'invalid number "1." at position 4'],
    ['a = .5', 'unexpected_character', 'unexpected character "." at position 4'],
    ['a = 1e5', 'invalid_number', 'invalid number "1e5" at position 4'],
    ['a = 1.2.3', 'invalid_number', 'invalid number "1.2.3" at position 4'],
    ['a = -', 'unexpected_character', 'unexpected character "-" at position 4'],
    ["a = 'abc", 'unterminated_text', 'unterminated text starting at position 4'],
    ["a = 'abc\\'", 'unterminated_text', 'unterminated text starting at position 4'],
    ['a = $', 'unexpected_character', 'unexpected character "$" at position 4'],
    ['a = 1 / 2', 'unexpected_character', 'unexpected character "/" at position 6'],
    ['a = 1)', 'unbalanced_parentheses', 'unmatched ")" at position 5'],
    ['(a = 1', 'unbalanced_parentheses', 'missing ")" for "(" at position 0'],
    ['()', 'unexpected_token', 'expected an operand at position 1, found ")"'],
    ['a = 1 &&', 'unexpected_token', 'expected an operand at position 8, found end of filter'],
    ['&& a = 1', 'unexpected_token', 'expected an operand at position 0, found "&&"'],
    ['f(a b) = 1', 'unexpected_token', 'expected "," or ")" at position 4, found "b"'],
    ['f(,) = 1', 'unexpected_token', 'expected an operand at position 2, found ","'],
    ['f(1 = 1', 'unexpected_token', 'expected "," or ")" at position 4, found "="'],
    ['f (1) = 1', 'unexpected_token', 'expected an operator at position 2, found "("'],
    ['a.b(1) = 1', 'unexpected_token', 'invalid function name "a.b" at position 0'],
    ['a(b(c(d()))) = 1', 'nesting_too_deep', 'function calls nested too deep at position 6'],
  ]
  it.each(invalid)('rejects %j', (input, code, message) => {
    const e = syntaxError(input)
    expect(e.code).toBe(code)
    expect(e.message).toContain(message)
  })

  it('counts at most 200 expressions', () => {
    const ok = Array.from({ length: 200 }, (_, i) => `a = ${i}`).join(' || ')
    expect(parseFilter(ok).kind).toBe('or')
    const e = syntaxError(`${ok} || b = 1`)
    expect(e.code).toBe('too_many_expressions')
    expect(e.message).toBe('too many expressions (max 200)')
  })

  it('accepts 3500 characters and rejects 3501', () => {
    const base = 'a = 1 || a = 1'
    const atLimit = base + ' '.repeat(3500 - base.length)
    expect(() => parseFilter(atLimit)).not.toThrow()
    const e = syntaxError(`${atLimit} `)
    expect(e.code).toBe('too_long')
    expect(e.message).toBe('filter is too long (3501 characters, max 3500)')
  })

  it('fails fast on hostile input', () => {
    const started = performance.now()
    expect(syntaxError('('.repeat(1_000_000)).code).toBe('too_long')
    const nested = '('.repeat(1700) + 'a = 1' + ')'.repeat(1700)
    expect(show(parseFilter(nested))).toBe('a = #1')
    expect(syntaxError('('.repeat(3500)).code).toBe('unexpected_token')
    expect(syntaxError("'".repeat(3499)).code).toBe('unterminated_text')
    expect(performance.now() - started).toBeLessThan(500)
  })

  it('returns frozen nodes', () => {
    const node = parseFilter('a = 1 && f(b) = "x"')
    expect(Object.isFrozen(node)).toBe(true)
    if (node.kind !== 'and') throw new Error('expected and')
    expect(Object.isFrozen(node.terms)).toBe(true)
    const first = node.terms[1]!
    if (first.kind !== 'comparison' || first.left.kind !== 'call') throw new Error('expected call')
    expect(Object.isFrozen(first.left.args)).toBe(true)
  })

  it('reports token positions', () => {
    expect(tokenize('a = "x"').map((t) => [t.type, t.start, t.end])).toEqual([
      ['identifier', 0, 1],
      ['operator', 2, 3],
      ['text', 4, 7],
      ['eof', 7, 7],
    ])
  })
})

describe('parseSort', () => {
  const valid: [string, string[]][] = [
    ['', []],
    ['  ', []],
    ['created', ['created ASC']],
    ['-created,+title, name ', ['created DESC', 'title ASC', 'name ASC']],
    ['@random,-@rowid', ['@random ASC', '@rowid DESC']],
    ['rel.name:lower', ['rel.name:lower ASC']],
  ]
  it.each(valid)('%j', (input, expected) => {
    expect(parseSort(input).map((s) => `${s.field} ${s.direction}`)).toEqual(expected)
  })

  const invalid: [string, string][] = [
    ['a,,b', 'empty sort field at position 2'],
    ['-', 'empty sort field at position 0'],
    ['a b', 'invalid sort field "a b" at position 0'],
    ['a,1x', 'invalid sort field "1x" at position 2'],
    ['a,b,c,d,e,f,g,h,i', 'too many sort fields (9, max 8)'],
    [`${'a'.repeat(256)}`, 'sort field at position 0 is too long (max 255 characters)'],
    ['a,'.repeat(100_000), 'sort is too long (200000 characters)'],
  ]
  it.each(invalid)('rejects %j', (input, message) => {
    expect(() => parseSort(input)).toThrow(message)
  })

  it('accepts 8 fields of 255 characters', () => {
    const items = Array.from({ length: 8 }, () => 'a'.repeat(255))
    expect(parseSort(items.join(','))).toHaveLength(8)
  })
})
