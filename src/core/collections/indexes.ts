import {
  indexColumn,
  indexFunctions,
  renderIndexExpr,
  type IndexBinaryOp,
  type IndexColumn,
  type IndexExpr,
  type IndexFunction,
  type IndexSpec,
} from '../../store/schema.js'
import { isKeyword, tokenizeSql, SqlTokenError, type SqlToken } from '../../tools/sql-tokens.js'
import type { Collection } from './model.js'

const word = /^\w+$/

/** A binary operator found at the parser's cursor. */
interface BinaryOpToken {
  op: IndexBinaryOp | 'IN'
  precedence: number
  /** How many tokens it spans (`IS NOT`, `NOT LIKE` and `NOT IN` take two). */
  tokens: number
  negate: boolean
}

const symbolOps: Readonly<Record<string, [IndexBinaryOp, number]>> = {
  '=': ['=', 4],
  '==': ['=', 4],
  '!=': ['!=', 4],
  '<>': ['!=', 4],
  '<': ['<', 5],
  '<=': ['<=', 5],
  '>': ['>', 5],
  '>=': ['>=', 5],
  '+': ['+', 6],
  '-': ['-', 6],
  '*': ['*', 7],
  '/': ['/', 7],
  '%': ['%', 7],
  '||': ['||', 8],
}

/** A parse failure with the message the API reports. */
class IndexSyntaxError extends Error {}

/**
 * Reads index statements: `CREATE [UNIQUE] INDEX [IF NOT EXISTS] name ON table (terms)
 * [WHERE condition]`. A term is a column or an expression (`lower(title)`), optionally with
 * `COLLATE NOCASE` and `ASC`/`DESC`; expressions use columns of the collection, literals,
 * comparison/logic/arithmetic operators and the functions of `indexFunctions`. Everything is
 * parsed into an `IndexSpec`, so the DDL is rebuilt from checked parts only.
 */
class IndexParser {
  private i = 0
  /** The table name the statement was written with. */
  table = ''

  constructor(
    private readonly tokens: SqlToken[],
    private readonly collection: Collection,
  ) {}

  private peek(offset = 0): SqlToken | undefined {
    return this.tokens[this.i + offset]
  }

  private next(): SqlToken {
    const t = this.tokens[this.i++]
    if (!t) throw new IndexSyntaxError('Unexpected end of the index expression.')
    return t
  }

  private keyword(k: string): boolean {
    if (!isKeyword(this.peek(), k)) return false
    this.i++
    return true
  }

  private expectKeyword(k: string): void {
    if (!this.keyword(k)) throw new IndexSyntaxError(`Expected ${k}${this.near()}.`)
  }

  private op(text: string): boolean {
    const t = this.peek()
    if (t?.kind !== 'op' || t.value !== text) return false
    this.i++
    return true
  }

  private expectOp(text: string): void {
    if (!this.op(text)) throw new IndexSyntaxError(`Expected "${text}"${this.near()}.`)
  }

  private near(): string {
    const t = this.peek()
    return t ? ` near "${t.text}"` : ' at the end'
  }

  private name(): string {
    const t = this.next()
    if (t.kind !== 'word' && t.kind !== 'quoted') throw new IndexSyntaxError('Invalid index name.')
    return t.value
  }

  statement(): IndexSpec {
    this.expectKeyword('CREATE')
    const unique = this.keyword('UNIQUE')
    this.expectKeyword('INDEX')
    if (this.keyword('IF')) {
      this.expectKeyword('NOT')
      this.expectKeyword('EXISTS')
    }
    const name = this.name()
    if (!word.test(name)) throw new IndexSyntaxError('Invalid index name.')
    this.expectKeyword('ON')
    // NB: the table is always the collection's own; the written name is not checked.
    this.table = this.name()
    this.expectOp('(')
    const columns: IndexColumn[] = []
    do columns.push(this.term())
    while (this.op(','))
    this.expectOp(')')
    const where = this.keyword('WHERE') ? this.expr(0) : undefined
    this.op(';')
    if (this.peek()) throw new IndexSyntaxError(`Unexpected "${this.peek()!.text}".`)
    return { name, unique, columns, ...(where ? { where } : {}) }
  }

  private term(): IndexColumn {
    const expr = this.expr(0)
    let nocase = false
    if (this.keyword('COLLATE')) {
      const c = this.next()
      if (c.value.toUpperCase() !== 'NOCASE') {
        throw new IndexSyntaxError(`Unsupported collation "${c.value}" (only NOCASE).`)
      }
      nocase = true
    }
    const desc = this.keyword('DESC')
    if (!desc) this.keyword('ASC')
    return { expr, ...(nocase ? { nocase } : {}), ...(desc ? { desc } : {}) }
  }

  /** Precedence climbing; levels as in `indexExprPrecedence` (OR 1 … || 8). */
  private expr(min: number): IndexExpr {
    let left = this.unary(min)
    for (;;) {
      const op = this.binaryOp()
      if (!op || op.precedence < min) return left
      this.i += op.tokens
      if (op.op === 'IN') {
        this.expectOp('(')
        const values: IndexExpr[] = []
        do values.push(this.expr(0))
        while (this.op(','))
        this.expectOp(')')
        left = { kind: 'in', negate: op.negate, left, values }
      } else {
        left = { kind: 'binary', op: op.op, left, right: this.expr(op.precedence + 1) }
      }
    }
  }

  /** The binary operator at the cursor, without consuming it. */
  private binaryOp(): BinaryOpToken | null {
    const t = this.peek()
    if (t?.kind === 'op') {
      const m = symbolOps[t.value]
      return m ? { op: m[0], precedence: m[1], tokens: 1, negate: false } : null
    }
    if (t?.kind !== 'word') return null
    const next = this.peek(1)
    const at = (op: IndexBinaryOp | 'IN', precedence: number, tokens = 1, negate = false) => ({
      op,
      precedence,
      tokens,
      negate,
    })
    switch (t.value.toUpperCase()) {
      case 'OR':
        return at('OR', 1)
      case 'AND':
        return at('AND', 2)
      case 'IS':
        return isKeyword(next, 'NOT') ? at('IS NOT', 4, 2) : at('IS', 4)
      case 'LIKE':
        return at('LIKE', 4)
      case 'IN':
        return at('IN', 4)
      case 'NOT':
        if (isKeyword(next, 'LIKE')) return at('NOT LIKE', 4, 2)
        if (isKeyword(next, 'IN')) return at('IN', 4, 2, true)
        return null
      default:
        return null
    }
  }

  private unary(min: number): IndexExpr {
    if (min <= 3 && this.keyword('NOT')) return { kind: 'not', operand: this.expr(3) }
    if (this.op('-')) return { kind: 'negate', operand: this.unary(9) }
    if (this.op('+')) return this.unary(9)
    return this.primary()
  }

  private primary(): IndexExpr {
    const t = this.next()
    if (t.kind === 'op' && t.value === '(') {
      const e = this.expr(0)
      this.expectOp(')')
      return e
    }
    if (t.kind === 'string') return { kind: 'text', value: t.value }
    if (t.kind === 'number') {
      const n = Number(t.value)
      if (!Number.isFinite(n)) throw new IndexSyntaxError(`Invalid number "${t.text}".`)
      return { kind: 'number', value: n }
    }
    if (t.kind === 'word') {
      const k = t.value.toUpperCase()
      if (this.peek()?.kind === 'op' && this.peek()!.value === '(') return this.call(t.value)
      if (k === 'NULL') return { kind: 'null' }
      if (k === 'TRUE' || k === 'FALSE') return { kind: 'bool', value: k === 'TRUE' }
    }
    if (t.kind === 'word' || t.kind === 'quoted') return this.column(t.value)
    throw new IndexSyntaxError(`Unexpected "${t.text}".`)
  }

  private call(name: string): IndexExpr {
    const fn = name.toLowerCase() as IndexFunction
    if (!indexFunctions.includes(fn)) {
      throw new IndexSyntaxError(`Unsupported function "${name}" in an index.`)
    }
    this.expectOp('(')
    const args: IndexExpr[] = []
    if (!this.op(')')) {
      do args.push(this.expr(0))
      while (this.op(','))
      this.expectOp(')')
    }
    return { kind: 'call', fn, args }
  }

  private column(name: string): IndexExpr {
    if (!this.collection.fields.some((f) => f.name === name)) {
      throw new IndexSyntaxError(`Unknown index column "${name}".`)
    }
    return indexColumn(name)
  }
}

/** Parses a user index statement for `collection`; returns an error message on failure. */
export function parseIndex(text: string, collection: Collection): IndexSpec | string {
  try {
    return new IndexParser(tokenizeSql(text), collection).statement()
  } catch (err) {
    if (err instanceof IndexSyntaxError) return `Invalid index expression: ${err.message}`
    if (err instanceof SqlTokenError) return `Invalid index expression: ${err.message}.`
    throw err
  }
}

const backtick = (name: string): string => `\`${name.replaceAll('`', '``')}\``

/** Renders an index back in the canonical text stored on the collection. */
export function formatIndex(index: IndexSpec, table: string): string {
  const cols = index.columns
    .map((c) => {
      const term = renderIndexExpr(c.expr, backtick)
      const body = c.expr.kind === 'column' || c.expr.kind === 'call' ? term : `(${term})`
      return `${body}${c.nocase ? ' COLLATE NOCASE' : ''}${c.desc ? ' DESC' : ''}`
    })
    .join(', ')
  const where = index.where ? ` WHERE ${renderIndexExpr(index.where, backtick)}` : ''
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${backtick(index.name)} ON ${backtick(table)} (${cols})${where}`
}

const sameExpr = (a: IndexExpr | undefined, b: IndexExpr | undefined): boolean =>
  JSON.stringify(a) === JSON.stringify(b)

/**
 * True when a user index already enforces what an implicit unique index on `implicit`'s single
 * column would: unique over that same column alone, with the same collation, and either no
 * condition or the same one.
 */
function covers(user: IndexSpec, implicit: IndexSpec): boolean {
  const [u] = user.columns
  const [i] = implicit.columns
  return (
    user.unique &&
    user.columns.length === 1 &&
    u !== undefined &&
    i !== undefined &&
    sameExpr(u.expr, i.expr) &&
    // NB: a NOCASE unique index enforces more than a case-sensitive one, so it covers it.
    (Boolean(u.nocase) || !i.nocase) &&
    (user.where === undefined || sameExpr(user.where, implicit.where))
  )
}

/** The name of the implicit index on `created` of a collection (see {@link desiredIndexes}). */
export const createdIndexName = (collectionId: string): string => `__sort_${collectionId}_created`

/** True when a user index is exactly a plain ascending index on `created` alone, with no condition. */
function servesCreated(user: IndexSpec): boolean {
  const [u] = user.columns
  return (
    user.columns.length === 1 &&
    user.where === undefined &&
    u !== undefined &&
    !u.nocase &&
    !u.desc &&
    sameExpr(u.expr, indexColumn('created'))
  )
}

/**
 * Every index the collection's table should have: field `unique` flags, auth ones, user ones,
 * and one on `created`. An implicit unique index is left out when a user index already enforces
 * it (PocketBase's own auth collections declare `idx_email_…` and `idx_tokenKey_…` themselves).
 *
 * The index on `created` serves the default sort of a list (`-created`, then the row id, in
 * `records/list.ts`): without it every page of a list sorted the whole table (a full scan and a
 * temporary B-tree per request). Read backwards it gives `created DESC, rowid DESC` on SQLite
 * (entries are ordered by key, then row id); PostgreSQL reads it backwards under an incremental
 * sort on `_rowid_`. It is left out when a user index on `created` alone already serves the sort.
 */
export function desiredIndexes(collection: Collection): IndexSpec[] {
  if (collection.type === 'view') return []
  const user: IndexSpec[] = []
  for (const text of collection.indexes) {
    const spec = parseIndex(text, collection)
    if (typeof spec !== 'string') user.push(spec)
  }
  const out: IndexSpec[] = []
  for (const f of collection.fields) {
    if (f.name === 'id') continue
    if (f.unique || (collection.type === 'auth' && (f.name === 'email' || f.name === 'tokenKey'))) {
      const textual = ['text', 'email', 'url', 'select', 'relation', 'file'].includes(f.type)
      const implicit: IndexSpec = {
        name: `__u_${collection.id}_${f.name}`,
        unique: true,
        // NB: the email compares as written, as PocketBase's own `idx_email_…` (no NOCASE): a
        // user index with COLLATE NOCASE makes it case-insensitive (`core/auth/lookup.ts`).
        columns: [{ expr: indexColumn(f.name) }],
        ...(textual
          ? {
              where: {
                kind: 'binary',
                op: '!=',
                left: indexColumn(f.name),
                right: { kind: 'text', value: '' },
              },
            }
          : {}),
      }
      if (!user.some((u) => covers(u, implicit))) out.push(implicit)
    }
  }
  if (collection.fields.some((f) => f.name === 'created') && !user.some(servesCreated)) {
    out.push({
      name: createdIndexName(collection.id),
      unique: false,
      columns: [{ expr: indexColumn('created') }],
    })
  }
  return [...out, ...user]
}

/** The table an index statement names, or undefined when it does not parse. */
export function indexTable(text: string, collection: Collection): string | undefined {
  try {
    const parser = new IndexParser(tokenizeSql(text), collection)
    parser.statement()
    return parser.table
  } catch {
    return undefined
  }
}

/**
 * Rewrites the collection's index statements in the canonical form (table name set to the
 * collection's, identifiers quoted); statements that do not parse are left for validation.
 */
export function normalizeIndexes(collection: Collection): void {
  collection.indexes = collection.indexes.map((text) => {
    const spec = parseIndex(text, collection)
    return typeof spec === 'string' ? text : formatIndex(spec, collection.name)
  })
}
