/**
 * Index DDL for PostgreSQL from an `IndexSpec`: the same expression language as SQLite's, with
 * the differences rendered here (a `nocase` term is `lower(term)`, `ifnull` is `coalesce`,
 * `json_extract(col, '$.a.b')` is `(col #>> '{a,b}')`, `IS` is null-safe equality, `LIKE` is
 * case-insensitive as on SQLite).
 */
import { indexExprPrecedence, type IndexExpr, type IndexSpec } from '../schema.js'
import { quoteDoubled } from '../sql.js'

const q = quoteDoubled

/** A string literal for DDL that takes no parameters (COMMENT): an E'' string, escaped. */
export function pgLiteral(text: string): string {
  if (text.includes('\0')) throw new Error('a SQL literal cannot hold a NUL character')
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`
}

/** A SQLite JSON path (`$.a[0]."b c"`) as the text array of `#>>`; throws on other shapes. */
export function jsonPathArray(path: string): string[] {
  const out: string[] = []
  let rest = path
  if (!rest.startsWith('$')) throw new Error(`unsupported JSON path ${JSON.stringify(path)}`)
  rest = rest.slice(1)
  while (rest !== '') {
    const m =
      /^\.([A-Za-z_][A-Za-z0-9_]*)/.exec(rest) ??
      /^\."([^"]*)"/.exec(rest) ??
      /^\[(\d+)\]/.exec(rest)
    if (!m) throw new Error(`unsupported JSON path ${JSON.stringify(path)}`)
    out.push(m[1]!)
    rest = rest.slice(m[0].length)
  }
  return out
}

/** An element of a `'{…}'` array literal, quoted when needed. */
function arrayElement(s: string): string {
  return /^[A-Za-z0-9_]+$/.test(s) ? s : `"${s.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`
}

const textLiteral = (value: string): string => `'${value.replaceAll("'", "''")}'`

/**
 * Renders an index expression as PostgreSQL text (identifiers quoted, literals escaped). A
 * column named in `jsonColumns` is indexed by its text (`CAST(col AS TEXT)`, what SQLite
 * compares): PostgreSQL's `JSON` type has no ordering; `json_extract` reads the JSON itself.
 */
export function renderPgIndexExpr(e: IndexExpr, jsonColumns?: ReadonlySet<string>): string {
  const render = (x: IndexExpr): string => renderPgIndexExpr(x, jsonColumns)
  const wrap = (x: IndexExpr, min: number): string =>
    indexExprPrecedence(x) < min ? `(${render(x)})` : render(x)
  switch (e.kind) {
    case 'column':
      return jsonColumns?.has(e.name) ? `CAST(${q(e.name)} AS TEXT)` : q(e.name)
    case 'text':
      return textLiteral(e.value)
    case 'number':
      return String(e.value)
    case 'null':
      return 'NULL'
    case 'bool':
      return e.value ? 'TRUE' : 'FALSE'
    case 'not':
      return `NOT ${wrap(e.operand, 3)}`
    case 'negate':
      return `-${wrap(e.operand, 9)}`
    case 'binary': {
      const p = indexExprPrecedence(e)
      const op =
        e.op === 'IS'
          ? 'IS NOT DISTINCT FROM'
          : e.op === 'IS NOT'
            ? 'IS DISTINCT FROM'
            : e.op === 'LIKE'
              ? 'ILIKE'
              : e.op === 'NOT LIKE'
                ? 'NOT ILIKE'
                : e.op
      return `${wrap(e.left, p)} ${op} ${wrap(e.right, p + 1)}`
    }
    case 'in':
      return `${wrap(e.left, 5)} ${e.negate ? 'NOT IN' : 'IN'} (${e.values.map(render).join(', ')})`
    case 'call': {
      if (e.fn === 'json_extract') {
        const [target, path] = e.args
        if (!target || !path || path.kind !== 'text' || e.args.length !== 2) {
          throw new Error('json_extract in an index needs a column and a literal path')
        }
        const elements = jsonPathArray(path.value).map(arrayElement).join(',')
        const json = target.kind === 'column' ? q(target.name) : wrap(target, 10)
        return `(${json} #>> ${textLiteral(`{${elements}}`)})`
      }
      const fn = e.fn === 'ifnull' ? 'coalesce' : e.fn
      return `${fn}(${e.args.map(render).join(', ')})`
    }
  }
}

/**
 * The `CREATE INDEX` statement of `index` on `table`. Without `jsonColumns` it is the index's
 * normalised definition (kept in its comment and compared to find changed indexes); with them,
 * the statement to run (those columns indexed by their text).
 */
export function pgIndexSql(
  table: string,
  index: IndexSpec,
  jsonColumns?: ReadonlySet<string>,
): string {
  const cols = index.columns
    .map((c) => {
      let term = renderPgIndexExpr(c.expr, jsonColumns)
      if (c.nocase) term = `lower(${term})`
      // An index element is a column, a function call, or a parenthesised expression.
      const bare =
        (c.expr.kind === 'column' && !jsonColumns?.has(c.expr.name)) ||
        (c.expr.kind === 'call' && !term.startsWith('('))
      const body = bare || c.nocase ? term : `(${term})`
      // NULLs ordered as SQLite orders them (smallest), as the Dialect's sorts do, so a sort on
      // the column (`created DESC NULLS LAST`, `… ASC NULLS FIRST`) can walk the index.
      return `${body}${c.desc ? ' DESC NULLS LAST' : ' NULLS FIRST'}`
    })
    .join(', ')
  const where = index.where ? ` WHERE ${renderPgIndexExpr(index.where, jsonColumns)}` : ''
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ${q(table)} (${cols})${where}`
}

/** The index name a definition made by {@link pgIndexSql} starts with. */
export function indexNameOf(definition: string): string | null {
  const m = /^CREATE (?:UNIQUE )?INDEX "((?:[^"]|"")+)"/.exec(definition)
  return m ? m[1]!.replaceAll('""', '"') : null
}
