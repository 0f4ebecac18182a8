/**
 * SQLite's `strftime(format, time, modifier…)` on PostgreSQL. The format and modifiers are filter
 * literals (bound parameters on SQLite; read here to build the SQL, their text never spliced).
 * As on SQLite: a time value in another form, a format code or a modifier SQLite does not know
 * give NULL. Codes and modifiers SQLite knows but that have no exact equivalent here (`%J`,
 * months and years, `unixepoch`…) throw, which the filter compiler reports as a 400.
 */
import { join, param, raw, sql, type Sql } from '../sql.js'

/**
 * The time values `strftime` reads on PostgreSQL: `now` and SQLite's date forms (`YYYY-MM-DD`,
 * then optionally ` HH:MM[:SS[.fff]]` or with `T`, then optionally `Z` or `±HH:MM`), fields in
 * range. Any other value (a name, a number, '') gives NULL, as SQLite's strftime does, instead
 * of a cast error. Bound as a parameter; non-capturing groups only, so `substring` returns the
 * whole match.
 */
export const STRFTIME_TIME =
  '^(?:[nN][oO][wW]|\\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\\d|3[01])' +
  '(?:[ T](?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d+)?)?)?' +
  '(?:[zZ]|[+-](?:[01]\\d|2[0-3]):[0-5]\\d)?)$'

const T = raw('"t"')
const toChar = (pattern: string): Sql => sql`to_char(${T}, ${param(pattern)})`
const padded = (expr: Sql, width: number, fill: string): Sql =>
  sql`lpad(CAST(${expr} AS TEXT), ${raw(String(width))}, ${raw(`'${fill}'`)})`
const int = (expr: Sql): Sql => sql`CAST(${expr} AS INTEGER)`
/** Day of the year from 0 and day of the week (0: Sunday). */
const yday = sql`(${int(toChar('DDD'))} - 1)`
const dow = int(sql`extract(dow from ${T})`)

/** SQLite's codes with their expression over the UTC timestamp `"t"`. */
const codes: Readonly<Record<string, () => Sql>> = {
  d: () => toChar('DD'),
  e: () => padded(toChar('FMDD'), 2, ' '),
  f: () => toChar('SS.MS'),
  F: () => toChar('YYYY-MM-DD'),
  g: () => toChar('IY'),
  G: () => toChar('IYYY'),
  H: () => toChar('HH24'),
  I: () => toChar('HH12'),
  j: () => toChar('DDD'),
  k: () => padded(toChar('FMHH24'), 2, ' '),
  l: () => padded(toChar('FMHH12'), 2, ' '),
  m: () => toChar('MM'),
  M: () => toChar('MI'),
  p: () => toChar('AM'),
  P: () => toChar('am'),
  R: () => toChar('HH24:MI'),
  s: () => sql`CAST(CAST(floor(extract(epoch from ${T})) AS BIGINT) AS TEXT)`,
  S: () => toChar('SS'),
  T: () => toChar('HH24:MI:SS'),
  u: () => toChar('ID'),
  U: () => padded(sql`(${yday} + 7 - ${dow}) / 7`, 2, '0'),
  V: () => toChar('IW'),
  w: () => sql`CAST(${dow} AS TEXT)`,
  W: () => padded(sql`(${yday} + 7 - ((${dow} + 6) % 7)) / 7`, 2, '0'),
  Y: () => toChar('YYYY'),
}

/** Codes SQLite knows that have no equivalent here. */
const unsupportedCodes = new Set(['J'])

/** The pieces of the formatted text over `"t"`, or null when SQLite gives NULL (unknown code). */
export function formatPieces(format: string): Sql[] | null {
  const pieces: Sql[] = []
  let literal = ''
  const flush = () => {
    if (literal !== '') pieces.push(sql`CAST(${param(literal)} AS TEXT)`)
    literal = ''
  }
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!
    if (c !== '%') {
      literal += c
      continue
    }
    const code = format[++i] ?? ''
    if (code === '%') {
      literal += '%'
      continue
    }
    if (unsupportedCodes.has(code)) {
      throw new Error(`strftime code %${code} is not supported on PostgreSQL`)
    }
    const make = codes[code]
    if (!make) return null
    flush()
    pieces.push(make())
  }
  flush()
  return pieces
}

const UNITS: Readonly<Record<string, string>> = {
  day: 'day',
  hour: 'hour',
  minute: 'minute',
  second: 'second',
}

/**
 * One modifier applied to the timestamp `"t"`: the new timestamp, null when SQLite refuses the
 * modifier (strftime is NULL then). Throws for the ones SQLite knows that are not built here.
 */
export function applyModifier(modifier: string): Sql | null {
  const m = modifier.toLowerCase()
  // NB: the modifier's text is bound whole; SQL reads its parts.
  const text = param(modifier)
  if (/^start of (day|month|year)$/.test(m))
    return sql`date_trunc(lower(substring(${text} from 10)), ${T})`
  if (/^weekday +[0-6]$/.test(m)) {
    const n = sql`CAST(substring(${text} from '[0-6]$') AS INTEGER)`
    return sql`${T} + ((${n} - ${dow} + 7) % 7) * interval '1 day'`
  }
  const shift = /^([+-]?\d+(?:\.\d*)?) +(day|hour|minute|second|month|year)s?$/.exec(m)
  if (shift && UNITS[shift[2]!]) {
    const unit = raw(`interval '1 ${UNITS[shift[2]!]!}'`)
    const n = sql`substring(${text} from '^[+-]?[0-9]+(?:[.][0-9]*)?')`
    return sql`${T} + CAST(${n} AS DOUBLE PRECISION) * ${unit}`
  }
  // NB: months and years overflow days as SQLite counts them; offsets and time zones differ.
  const known =
    shift !== null ||
    /^[+-]?\d{2}:\d{2}|^[+-]?\d{4}-\d{2}-\d{2}/.test(m) ||
    /^(localtime|utc|auto|julianday|unixepoch|subsec|subsecond|ceiling|floor)$/.test(m)
  if (known) throw new Error('strftime modifiers are not supported on PostgreSQL')
  return null
}

/** `expr` over the timestamp `"t"` bound once to `time`. */
function over(time: Sql, expr: Sql): Sql {
  return sql`(SELECT ${expr} FROM (SELECT ${time} AS "t" OFFSET 0) AS "_t")`
}

/** SQLite's strftime of `value` (any SQL value) with a literal format and literal modifiers. */
export function postgresStrftime(format: string, value: Sql, modifiers: readonly string[]): Sql {
  const text = sql`substring(CAST(${value} AS TEXT) from ${param(STRFTIME_TIME)})`
  let time = sql`CAST(${text} AS TIMESTAMPTZ) AT TIME ZONE 'UTC'`
  // NB: NULL as SQLite gives, the format and modifiers still bound (never dropped unseen).
  const none = sql`(CASE WHEN FALSE THEN ${join(
    [value, ...[format, ...modifiers].map((v) => param(v))].map((v) => sql`CAST(${v} AS TEXT)`),
    ' || ',
  )} END)`
  for (const modifier of modifiers) {
    const next = applyModifier(modifier)
    if (!next) return none
    time = over(time, next)
  }
  const pieces = formatPieces(format)
  if (!pieces) return none
  const formatted = pieces.length === 0 ? raw("''") : join(pieces, ' || ')
  return over(time, sql`CASE WHEN ${T} IS NULL THEN NULL ELSE ${formatted} END`)
}
