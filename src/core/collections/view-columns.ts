import { isKeyword, tokenizeSql, type SqlToken } from '../../tools/sql-tokens.js'

/** Words that end a SELECT's result-column list or its FROM clause at nesting depth 0. */
const clauseEnd = new Set([
  'FROM',
  'WHERE',
  'GROUP',
  'HAVING',
  'WINDOW',
  'ORDER',
  'LIMIT',
  'UNION',
  'INTERSECT',
  'EXCEPT',
])

/** Words of a join operator (`LEFT OUTER JOIN`, `CROSS JOIN`, …). */
const joinWords = new Set(['NATURAL', 'LEFT', 'RIGHT', 'FULL', 'OUTER', 'INNER', 'CROSS', 'JOIN'])

/** What PocketBase reads from a view's query to type its columns. */
export interface SelectShape {
  /** Each result column's expression as written, without its alias, in order. */
  expressions: string[]
  /** The main FROM clause's tables and views: lower-cased alias (or name) → name. */
  sources: Map<string, string>
}

const isOp = (t: SqlToken | undefined, op: string): boolean => t?.kind === 'op' && t.value === op
const isName = (t: SqlToken | undefined): t is SqlToken =>
  t !== undefined && (t.kind === 'word' || t.kind === 'quoted')

/** Splits tokens at depth-0 commas up to a depth-0 clause keyword; returns the next index. */
function splitList(tokens: SqlToken[], from: number): [SqlToken[][], number] {
  const items: SqlToken[][] = [[]]
  let depth = 0
  let i = from
  for (; i < tokens.length; i++) {
    const t = tokens[i]!
    if (depth === 0 && t.kind === 'word' && clauseEnd.has(t.value.toUpperCase())) break
    if (isOp(t, '(')) depth++
    if (isOp(t, ')')) depth--
    if (depth === 0 && isOp(t, ',')) items.push([])
    else items.at(-1)!.push(t)
  }
  return [items, i]
}

/** Reads `name [AS] alias` sources of a FROM clause (subqueries and ON/USING are skipped). */
function readSources(tokens: SqlToken[], from: number): Map<string, string> {
  const sources = new Map<string, string>()
  let depth = 0
  let expectSource = true
  for (let i = from; i < tokens.length; i++) {
    const t = tokens[i]!
    if (depth === 0 && t.kind === 'word' && clauseEnd.has(t.value.toUpperCase())) break
    if (isOp(t, '(')) depth++
    else if (isOp(t, ')')) depth--
    if (depth > 0 || isOp(t, ')')) {
      expectSource = false
      continue
    }
    if (isOp(t, ',') || (t.kind === 'word' && joinWords.has(t.value.toUpperCase()))) {
      expectSource = true
      continue
    }
    if (!expectSource || !isName(t)) continue
    expectSource = false
    // `schema.table` is not used by collections; take the last part.
    let name = t.value
    let j = i + 1
    if (isOp(tokens[j], '.') && isName(tokens[j + 1])) {
      name = tokens[j + 1]!.value
      j += 2
    }
    let alias = name
    if (isKeyword(tokens[j], 'AS') && isName(tokens[j + 1])) alias = tokens[j + 1]!.value
    else if (
      isName(tokens[j]) &&
      !['ON', 'USING'].includes(tokens[j]!.value.toUpperCase()) &&
      !joinWords.has(tokens[j]!.value.toUpperCase()) &&
      !clauseEnd.has(tokens[j]!.value.toUpperCase())
    )
      alias = tokens[j]!.value
    sources.set(alias.toLowerCase(), name)
  }
  return sources
}

/**
 * The result-column expressions of a query's main SELECT, as written and without their aliases
 * (`COUNT(*) AS n` → `COUNT(*)`), and its FROM sources; `names` are the column names the
 * engine reported. Null when the list cannot be read or does not match them. Used to type view
 * columns the engine cannot describe (casts, aggregates, columns of other views), as
 * PocketBase does.
 */
export function readSelect(query: string, names: readonly string[]): SelectShape | null {
  let tokens: SqlToken[]
  try {
    tokens = tokenizeSql(query)
  } catch {
    return null
  }
  let depth = 0
  let i = 0
  // The main SELECT is the first one outside parentheses (after any WITH clause).
  for (; i < tokens.length; i++) {
    const t = tokens[i]!
    if (isOp(t, '(')) depth++
    else if (isOp(t, ')')) depth--
    else if (depth === 0 && isKeyword(t, 'SELECT')) break
  }
  if (i >= tokens.length) return null
  i++
  if (isKeyword(tokens[i], 'DISTINCT') || isKeyword(tokens[i], 'ALL')) i++
  const [items, end] = splitList(tokens, i)
  if (items.length !== names.length) return null
  const expressions: string[] = []
  for (const [n, item] of items.entries()) {
    if (item.length === 0) return null
    let last = item.length
    const alias = item[last - 1]!
    const before = item[last - 2]
    const isAlias = isName(alias) && alias.value.toLowerCase() === names[n]!.toLowerCase()
    // `expr AS alias` or `expr alias`; in `t.name` the name is no alias.
    if (last >= 3 && isAlias && isKeyword(before, 'AS')) last -= 2
    else if (last >= 2 && isAlias && !isOp(before, '.')) last -= 1
    expressions.push(query.slice(item[0]!.start, item[last - 1]!.end))
  }
  const sources = isKeyword(tokens[end], 'FROM')
    ? readSources(tokens, end + 1)
    : new Map<string, string>()
  return { expressions, sources }
}

/**
 * A plain column reference (`name`, `alias.name`, quoted or not) as `[qualifier, name]`, or
 * null for any other expression.
 */
export function columnReference(expr: string): [string | null, string] | null {
  let tokens: SqlToken[]
  try {
    tokens = tokenizeSql(expr)
  } catch {
    return null
  }
  const [a, dot, b] = tokens
  if (tokens.length === 1 && isName(a)) return [null, a.value]
  if (tokens.length === 3 && isName(a) && isOp(dot, '.') && isName(b)) return [a.value, b.value]
  return null
}

/** The field type PocketBase gives a view column from its expression, or null to look further. */
export function typeOfExpression(expr: string): 'number' | 'text' | 'bool' | 'json' | null {
  const e = expr.trim()
  if (/^(count|total)\s*\(/i.test(e)) return 'number'
  const cast = /^cast\s*\(([\s\S]*)\s+as\s+(\w+)\s*\)$/i.exec(e)
  if (cast) {
    const t = cast[2]!.toLowerCase()
    if (['real', 'integer', 'int', 'decimal', 'numeric', 'float', 'double'].includes(t))
      return 'number'
    if (t === 'text') return 'text'
    if (t === 'bool' || t === 'boolean') return 'bool'
  }
  if (/^json_/i.test(e)) return 'json'
  return null
}

/**
 * True when PocketBase can read a view column's expression: one name or literal, a dotted
 * `alias.name`, or one parenthesised group or function call (`(views * 2)`, `COUNT(*)`,
 * `CAST(x AS TEXT)`). A bare expression such as `views * 2` is refused as "invalid identifier
 * parts", as PocketBase does.
 */
export function isReadableColumn(expr: string): boolean {
  let tokens: SqlToken[]
  try {
    tokens = tokenizeSql(expr)
  } catch {
    return true
  }
  if (tokens.length <= 1 || columnReference(expr)) return true
  const open = isOp(tokens[0], '(') ? 0 : isName(tokens[0]) && isOp(tokens[1], '(') ? 1 : -1
  if (open < 0) return false
  let depth = 0
  for (let i = open; i < tokens.length; i++) {
    if (isOp(tokens[i], '(')) depth++
    else if (isOp(tokens[i], ')') && --depth === 0) return i === tokens.length - 1
  }
  return false
}

/** True when a query holds more than one statement (a `;` before its end). */
export function hasManyStatements(query: string): boolean {
  try {
    const tokens = tokenizeSql(query.trim().replace(/;\s*$/, ''))
    return tokens.some((t) => isOp(t, ';'))
  } catch {
    return false
  }
}
