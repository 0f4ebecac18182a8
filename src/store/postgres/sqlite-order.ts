/**
 * SQLite's comparisons and conversions on PostgreSQL, for values of different kinds (SQLite is
 * the reference engine). On SQLite a value is NULL, a number or a text (bools are 1/0); numbers
 * sort before text; a number or bool column reads text that looks like a number as that number
 * (NUMERIC affinity), a text column reads a number as its text (TEXT affinity). Each operand
 * becomes its class (`r`: 1 number, 2 text, NULL), its number (`n`) and its text (`t`); raw
 * inputs are bound once in a derived row, so no expression is written twice.
 */
import type { SqliteComparison, SqliteValue } from '../dialect.js'
import { join, param, raw, sql, type Sql } from '../sql.js'

/** Text SQLite's NUMERIC affinity reads as a number (surrounding spaces allowed). */
export const NUMBER_TEXT = '^\\s*[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?\\s*$'
/** The leading number SQLite's `CAST(x AS NUMERIC)` reads (none: 0). */
export const NUMBER_PREFIX = '^\\s*[+-]?(?:[0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)(?:[eE][+-]?[0-9]+)?'

const name = (n: string): Sql => raw(`"${n}"`)

/**
 * `body` over `inputs` evaluated once: `(SELECT body FROM (SELECT input AS name, …) AS alias)`.
 * NB: `OFFSET 0` keeps the planner from pulling the inputs up into every reference to them.
 */
function bind(alias: string, inputs: readonly [string, Sql][], body: Sql): Sql {
  const columns = join(inputs.map(([n, expr]) => sql`${expr} AS ${name(n)}`))
  return sql`(SELECT ${body} FROM (SELECT ${columns} OFFSET 0) AS ${name(alias)})`
}

/** A double's text as SQLite writes a REAL: `5.0`, `0.25`, `1.0e+22` (shortest exact digits). */
export function realText(x: Sql): Sql {
  const f = name('f')
  return bind(
    '_f',
    [['f', x]],
    sql`CASE WHEN ${f} = trunc(${f}) AND abs(${f}) < 1e17 THEN CAST(CAST(${f} AS BIGINT) AS TEXT) || '.0' ELSE regexp_replace(CAST(${f} AS TEXT), '^(-?[0-9]+)e', '\\1.0e') END`,
  )
}

/** A number column's text: whole values are SQLite integers (`7`), others REALs. */
function numericText(x: Sql): Sql {
  const f = name('g')
  return bind(
    '_g',
    [['g', x]],
    sql`CASE WHEN ${f} = trunc(${f}) AND abs(${f}) < 9e18 THEN CAST(CAST(${f} AS BIGINT) AS TEXT) ELSE ${realText(f)} END`,
  )
}

/**
 * The raw inputs of a JSON value: its JSON type and its text (`#>>`) at its path, the whole
 * document for an empty path (read as SQLite's `json_extract(doc, '$')` reads it).
 */
function jsonInputs(value: SqliteValue, p: string): [string, Sql][] {
  const { doc, path } = value.json ?? { doc: value.sql, path: [] }
  const at = param(path.map(String))
  return [
    [`${p}y`, sql`json_typeof(${doc} #> ${at}::text[])`],
    [`${p}x`, sql`(${doc} #>> ${at}::text[])`],
  ]
}

/** The text of a JSON value (over its bound inputs) as SQLite reads it. */
function jsonText(y: Sql, x: Sql): Sql {
  const number = sql`CAST(${x} AS DOUBLE PRECISION)`
  // NB: json_extract gives a JSON integer as an integer (when it fits), others as REALs.
  return sql`CASE ${y} WHEN 'number' THEN (CASE WHEN ${x} ~ '^-?[0-9]{1,18}$' THEN ${x} ELSE ${realText(number)} END) WHEN 'boolean' THEN (CASE WHEN ${x} = 'true' THEN '1' ELSE '0' END) WHEN 'string' THEN ${x} WHEN 'object' THEN ${x} WHEN 'array' THEN ${x} END`
}

/** The text of a number or bool (over its bound value `v`) as SQLite writes it. */
function scalarText(kind: SqliteValue['kind'], v: Sql): Sql {
  switch (kind) {
    case 'integer':
      return sql`CAST(CAST(${v} AS BIGINT) AS TEXT)`
    case 'numeric':
      return numericText(v)
    case 'bool':
      return sql`(CASE WHEN ${v} THEN '1' WHEN NOT ${v} THEN '0' END)`
    case 'text':
      return v
    default:
      return realText(v)
  }
}

/** The text SQLite reads a value as. */
export function sqliteText(value: SqliteValue): Sql {
  if (value.kind === 'json')
    return bind('_j', jsonInputs(value, ''), jsonText(name('y'), name('x')))
  if (value.kind === 'text') return sql`CAST(${value.sql} AS TEXT)`
  if (value.kind === 'bool') return scalarText('bool', value.sql)
  return scalarText(value.kind, sql`CAST(${value.sql} AS DOUBLE PRECISION)`)
}

/** A value read as SQLite's `CAST(x AS NUMERIC)` reads it. */
export function sqliteNumber(value: SqliteValue): Sql {
  if (value.kind === 'integer' || value.kind === 'real' || value.kind === 'numeric') {
    return sql`CAST(${value.sql} AS DOUBLE PRECISION)`
  }
  if (value.kind === 'bool')
    return sql`(CASE WHEN ${value.sql} THEN 1.0 WHEN NOT ${value.sql} THEN 0.0 END)`
  const x = name('x')
  const lead = sql`CAST(substring(${x} from ${param(NUMBER_PREFIX)}) AS DOUBLE PRECISION)`
  if (value.kind === 'json') {
    const y = name('y')
    const number = sql`CAST(${x} AS DOUBLE PRECISION)`
    const bool = sql` WHEN 'boolean' THEN (CASE WHEN ${x} = 'true' THEN 1.0 ELSE 0.0 END) WHEN 'null' THEN NULL`
    return bind(
      '_n',
      jsonInputs(value, ''),
      sql`CASE WHEN ${y} IS NULL THEN NULL ELSE (CASE ${y} WHEN 'number' THEN ${number}${bool} ELSE COALESCE(${lead}, 0) END) END`,
    )
  }
  return bind(
    '_n',
    [['x', sqliteText(value)]],
    sql`CASE WHEN ${x} IS NULL THEN NULL ELSE COALESCE(${lead}, 0) END`,
  )
}

/** One operand: its bound inputs and, over them, its class, number and text. */
interface Side {
  inputs: [string, Sql][]
  isNull: Sql
  r: Sql
  n: Sql
  t: Sql
  /** The class when known without reading the value (1: number, 2: text). */
  fixed?: 1 | 2
  /** Its text under TEXT affinity. */
  text: Sql
}

function side(value: SqliteValue, p: string): Side {
  const v = name(`${p}v`)
  const isNull = sql`${v} IS NULL`
  switch (value.kind) {
    case 'json': {
      const inputs = jsonInputs(value, p)
      const [y, x] = [name(`${p}y`), name(`${p}x`)]
      const text = jsonText(y, x)
      return {
        inputs,
        isNull: sql`COALESCE(${y}, 'null') = 'null'`,
        r: sql`(CASE ${y} WHEN 'number' THEN 1 WHEN 'boolean' THEN 1 WHEN 'string' THEN 2 WHEN 'object' THEN 2 WHEN 'array' THEN 2 END)`,
        n: sql`(CASE ${y} WHEN 'number' THEN CAST(${x} AS DOUBLE PRECISION) WHEN 'boolean' THEN (CASE WHEN ${x} = 'true' THEN 1.0 ELSE 0.0 END) END)`,
        t: sql`(CASE WHEN ${y} IN ('string', 'object', 'array') THEN ${x} END)`,
        text,
      }
    }
    case 'text':
      return {
        inputs: [[`${p}v`, sql`CAST(${value.sql} AS TEXT)`]],
        isNull,
        r: sql`(CASE WHEN ${isNull} THEN NULL ELSE 2 END)`,
        n: raw('0'),
        t: v,
        fixed: 2,
        text: v,
      }
    case 'bool':
      return {
        inputs: [[`${p}v`, value.sql]],
        isNull,
        r: sql`(CASE WHEN ${isNull} THEN NULL ELSE 1 END)`,
        n: sql`(CASE WHEN ${v} THEN 1.0 WHEN NOT ${v} THEN 0.0 END)`,
        t: raw("''"),
        fixed: 1,
        text: scalarText('bool', v),
      }
    default:
      return {
        inputs: [[`${p}v`, sql`CAST(${value.sql} AS DOUBLE PRECISION)`]],
        isNull,
        r: sql`(CASE WHEN ${isNull} THEN NULL ELSE 1 END)`,
        n: v,
        t: raw("''"),
        fixed: 1,
        text: scalarText(value.kind, v),
      }
  }
}

/** SQLite's NUMERIC affinity applied: text that looks like a number becomes that number. */
function numericAffinity(s: Side): Side {
  if (s.fixed === 1) return s
  const looks = sql`${s.t} ~ ${param(NUMBER_TEXT)}`
  return {
    ...s,
    r: sql`(CASE WHEN ${looks} THEN 1 ELSE ${s.r} END)`,
    n: sql`(CASE WHEN ${looks} THEN CAST(${s.t} AS DOUBLE PRECISION) ELSE ${s.n} END)`,
    fixed: undefined,
  }
}

/** SQLite's TEXT affinity applied: a number becomes its text. */
function textAffinity(s: Side): Side {
  if (s.fixed === 2) return s
  return {
    ...s,
    r: sql`(CASE WHEN ${s.isNull} THEN NULL ELSE 2 END)`,
    n: raw('0'),
    t: s.text,
    fixed: s.fixed === 1 ? 2 : undefined,
  }
}

/** `left op right` decided as SQLite decides it, its affinities applied first. */
export function compareAsSqlite(left: SqliteValue, op: SqliteComparison, right: SqliteValue): Sql {
  let l = side(left, 'l')
  let r = side(right, 'r')
  if (left.affinity === 'numeric' && right.affinity !== 'numeric') r = numericAffinity(r)
  else if (right.affinity === 'numeric' && left.affinity !== 'numeric') l = numericAffinity(l)
  else if (left.affinity === 'text' && right.affinity === null) r = textAffinity(r)
  else if (right.affinity === 'text' && left.affinity === null) l = textAffinity(l)
  const is = op === 'IS' || op === 'IS NOT'
  const operator = raw(is ? '=' : op)
  let valued: Sql
  if (l.fixed !== undefined && l.fixed === r.fixed) {
    valued = l.fixed === 1 ? sql`${l.n} ${operator} ${r.n}` : sql`${l.t} ${operator} ${r.t}`
  } else if (l.fixed !== undefined && r.fixed !== undefined) {
    valued = raw(holds(l.fixed, is ? '=' : op, r.fixed) ? 'TRUE' : 'FALSE')
  } else {
    const row = (s: Side) => sql`ROW(${s.r}, COALESCE(${s.n}, 0), COALESCE(${s.t}, ''))`
    valued = sql`${row(l)} ${operator} ${row(r)}`
  }
  const eitherNull = sql`${l.isNull} OR ${r.isNull}`
  const body = is
    ? sql`CASE WHEN ${eitherNull} THEN ${l.isNull} AND ${r.isNull} ELSE ${valued} END`
    : sql`CASE WHEN ${eitherNull} THEN NULL ELSE ${valued} END`
  const decided = bind('_c', [...l.inputs, ...r.inputs], body)
  return op === 'IS NOT' ? sql`(NOT ${decided})` : decided
}

function holds(a: number, op: string, b: number): boolean {
  switch (op) {
    case '<':
      return a < b
    case '<=':
      return a <= b
    case '>':
      return a > b
    case '>=':
      return a >= b
    default:
      return a === b
  }
}

/** ORDER BY keys ordering a JSON value as SQLite does: class, number, text. */
export function jsonSortKeys(value: SqliteValue): Sql[] {
  const s = side(value, '')
  return [s.r, s.n, s.t].map((key) => bind('_k', s.inputs, key))
}
