/**
 * The filter parser: tokens → a frozen `FilterNode` tree. Groups are handled with an explicit
 * stack, so hostile nesting costs linear time and no call stack.
 */
import {
  callNode,
  comparisonNode,
  identifierNode,
  logicalNode,
  numberNode,
  textNode,
  type ComparisonOperator,
  type FilterNode,
  type OperandNode,
} from './ast.js'
import { FilterSyntaxError, quote } from './errors.js'
import { tokenize, type Token } from './lexer.js'

/** The longest filter accepted, in characters. */
export const MAX_FILTER_LENGTH = 3500
/** The most comparison expressions one filter may hold. */
export const MAX_FILTER_EXPRESSIONS = 200
/** How deep function calls may nest: `a(b(c()))` is the deepest accepted. */
export const MAX_CALL_DEPTH = 3

interface Frame {
  /** Position of the `(` that opened the group; -1 for the whole filter. */
  open: number
  or: FilterNode[]
  and: FilterNode[]
}

/**
 * Parses filter text. Throws `FilterSyntaxError` on empty or too long input (checked before any
 * lexing), more than 200 comparisons, or any syntax error.
 */
export function parseFilter(text: string): FilterNode {
  if (text.length > MAX_FILTER_LENGTH) {
    throw new FilterSyntaxError(
      'too_long',
      `filter is too long (${text.length} characters, max ${MAX_FILTER_LENGTH})`,
    )
  }
  return new Parser(tokenize(text)).parse()
}

class Parser {
  private pos = 0
  private count = 0

  constructor(private readonly tokens: Token[]) {}

  parse(): FilterNode {
    if (this.peek().type === 'eof') throw new FilterSyntaxError('empty', 'filter is empty')
    const stack: Frame[] = [{ open: -1, or: [], and: [] }]
    for (;;) {
      // expecting a term: open groups, then one comparison
      while (this.peek().type === 'lparen') {
        stack.push({ open: this.next().start, or: [], and: [] })
      }
      let top = stack[stack.length - 1]!
      top.and.push(this.comparison())
      // after a term: close groups, then a join or the end
      for (;;) {
        const t = this.next()
        if (t.type === 'rparen') {
          if (stack.length === 1) {
            throw new FilterSyntaxError(
              'unbalanced_parentheses',
              `unmatched ")" at position ${t.start}`,
              t.start,
            )
          }
          stack.pop()
          const node = close(top)
          top = stack[stack.length - 1]!
          top.and.push(node)
          continue
        }
        if (t.type === 'join') {
          if (t.value === '||') {
            top.or.push(logicalNode('and', top.and))
            top.and = []
          }
          break
        }
        if (t.type === 'eof') {
          if (stack.length > 1) {
            throw new FilterSyntaxError(
              'unbalanced_parentheses',
              `missing ")" for "(" at position ${top.open}`,
              top.open,
            )
          }
          return close(top)
        }
        const expected = stack.length > 1 ? '"&&", "||" or ")"' : '"&&" or "||"'
        throw this.unexpected(t, expected)
      }
    }
  }

  private comparison(): FilterNode {
    const left = this.operand(0)
    const opToken = this.next()
    if (opToken.type !== 'operator') throw this.unexpected(opToken, 'an operator')
    const right = this.operand(0)
    if (++this.count > MAX_FILTER_EXPRESSIONS) {
      throw new FilterSyntaxError(
        'too_many_expressions',
        `too many expressions (max ${MAX_FILTER_EXPRESSIONS})`,
        left.position,
      )
    }
    return comparisonNode(left, opToken.value as ComparisonOperator, right, left.position)
  }

  private operand(depth: number): OperandNode {
    const t = this.next()
    switch (t.type) {
      case 'number':
        return numberNode(t.value, t.start)
      case 'text':
        return textNode(t.value, t.start)
      case 'identifier': {
        const after = this.peek()
        if (after.type !== 'lparen' || after.start !== t.end)
          return identifierNode(t.value, t.start)
        return this.call(t, depth + 1)
      }
      default:
        throw this.unexpected(t, 'an operand')
    }
  }

  /** `name(arg, …)` with an optional trailing comma; `name` was just read. */
  private call(name: Token, depth: number): OperandNode {
    if (depth > MAX_CALL_DEPTH) {
      throw new FilterSyntaxError(
        'nesting_too_deep',
        `function calls nested too deep at position ${name.start} (max ${MAX_CALL_DEPTH - 1} levels of nesting)`,
        name.start,
      )
    }
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name.value)) {
      throw new FilterSyntaxError(
        'unexpected_token',
        `invalid function name ${quote(name.value)} at position ${name.start}`,
        name.start,
      )
    }
    this.next() // the "("
    const args: OperandNode[] = []
    while (this.peek().type !== 'rparen') {
      args.push(this.operand(depth))
      const sep = this.peek()
      if (sep.type === 'comma') this.next()
      else if (sep.type !== 'rparen') throw this.unexpected(sep, '"," or ")"')
    }
    this.next() // the ")"
    return callNode(name.value, args, name.start)
  }

  private peek(): Token {
    return this.tokens[this.pos]!
  }

  private next(): Token {
    const t = this.tokens[this.pos]!
    if (t.type !== 'eof') this.pos++
    return t
  }

  private unexpected(t: Token, expected: string): FilterSyntaxError {
    const found = t.type === 'eof' ? 'end of filter' : quote(t.value)
    return new FilterSyntaxError(
      'unexpected_token',
      `expected ${expected} at position ${t.start}, found ${found}`,
      t.start,
    )
  }
}

function close(frame: Frame): FilterNode {
  frame.or.push(logicalNode('and', frame.and))
  return logicalNode('or', frame.or)
}
