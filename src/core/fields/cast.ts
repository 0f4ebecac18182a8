/**
 * Casts of submitted values as PocketBase makes them (spf13/cast's `ToString`, `ToFloat64`,
 * `ToBool` under Go's `strconv`), for JSON bodies and multipart-inferred values alike: a value
 * that does not read as the field's type becomes the zero value (`""`, `0`, `false`), never an
 * error, so that an app moving over stores exactly what PocketBase stored. A list where a scalar
 * is expected (repeated multipart keys) is no scalar either.
 */

/** The digits of a finite number without an exponent, as Go's `FormatFloat(f, 'f', -1, 64)`. */
export function formatGoFloat(n: number): string {
  if (Object.is(n, -0)) return '0'
  const s = String(n)
  const e = s.indexOf('e')
  if (e < 0) return s
  const negative = s.startsWith('-')
  const mantissa = s.slice(negative ? 1 : 0, e)
  const exp = Number(s.slice(e + 1))
  const point = mantissa.indexOf('.')
  const digits = mantissa.replace('.', '')
  // The position of the decimal point in `digits` once the exponent is applied.
  const at = (point < 0 ? mantissa.length : point) + exp
  const out =
    at <= 0
      ? `0.${'0'.repeat(-at)}${digits}`
      : at >= digits.length
        ? digits + '0'.repeat(at - digits.length)
        : `${digits.slice(0, at)}.${digits.slice(at)}`
  return negative ? `-${out}` : out
}

/**
 * Casts to a string (cast.ToString): text as is, numbers in Go's plain notation (`1e21` →
 * `"1000000000000000000000"`), booleans as words; `null`, lists and objects become `''`.
 */
export function toText(raw: unknown): string {
  switch (typeof raw) {
    case 'string':
      return raw
    case 'number':
      return Number.isFinite(raw) ? formatGoFloat(raw) : raw > 0 ? '+Inf' : raw < 0 ? '-Inf' : 'NaN'
    case 'bigint':
    case 'boolean':
      return String(raw)
    default:
      return ''
  }
}

/** Go's `strconv.ParseBool` words; anything else (`"yes"`, `"on"`, `"tRue"`) is no boolean. */
const TRUE_WORDS = new Set(['1', 't', 'T', 'TRUE', 'true', 'True'])

/**
 * Casts to a boolean (cast.ToBool): `true`, a non-zero number or one of `"1"`, `"t"`, `"T"`,
 * `"true"`, `"True"`, `"TRUE"`; everything else is false.
 */
export function toBool(raw: unknown): boolean {
  switch (typeof raw) {
    case 'boolean':
      return raw
    case 'number':
      return raw !== 0
    case 'bigint':
      return raw !== 0n
    case 'string':
      return TRUE_WORDS.has(raw)
    default:
      return false
  }
}

const DECIMAL =
  /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/
const HEX =
  /^([+-]?)0[xX]_?((?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?)(?:\.((?:[0-9a-fA-F](?:_?[0-9a-fA-F])*)?))?[pP]([+-]?\d(?:_?\d)*)$/
const SPECIAL = /^(?:[+-]?(?:inf|infinity)|nan)$/i

/** A hexadecimal float (`0x1.8p3`) as Go reads it, or NaN when it is none. */
function parseHexFloat(s: string): number {
  const m = HEX.exec(s)
  if (!m) return Number.NaN
  const whole = (m[2] ?? '').replaceAll('_', '')
  const frac = (m[3] ?? '').replaceAll('_', '')
  if (whole === '' && frac === '') return Number.NaN
  const mantissa = Number(BigInt(`0x${whole}${frac}`))
  const value = mantissa * 2 ** (Number(m[4]!.replaceAll('_', '')) - 4 * frac.length)
  return m[1] === '-' ? -value : value
}

/**
 * Go's `strconv.ParseFloat`: decimal or hexadecimal (with a `p` exponent) notation, `_` between
 * digits, `inf`/`infinity`/`nan` in any case; no surrounding spaces. A value out of range, like
 * anything else that does not parse, is null.
 */
export function parseGoFloat(s: string): number | null {
  if (SPECIAL.test(s)) {
    const lower = s.toLowerCase()
    return lower === 'nan' ? Number.NaN : lower.startsWith('-') ? -Infinity : Infinity
  }
  let n: number
  if (DECIMAL.test(s)) n = Number(s.replaceAll('_', ''))
  else {
    n = parseHexFloat(s)
    if (Number.isNaN(n)) return null
  }
  return Number.isFinite(n) ? n : null
}

/**
 * Casts to a number (cast.ToFloat64): numbers as they are, booleans 1/0, text through
 * {@link parseGoFloat} (`" 12 "`, `"12abc"`, `"0x10"` are 0); anything else is 0. `"Infinity"` and
 * `"NaN"` are kept so that validation reports them.
 */
export function toNumber(raw: unknown): number {
  switch (typeof raw) {
    case 'number':
      return raw
    case 'bigint':
      return Number(raw)
    case 'boolean':
      return raw ? 1 : 0
    case 'string':
      return parseGoFloat(raw) ?? 0
    default:
      return 0
  }
}

/** The length in Unicode code points (Go runes), not UTF-16 units. */
export function runeLength(s: string): number {
  let n = 0
  for (const _ of s) n++
  return n
}

/** The UTF-8 byte length of a string. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}

/** Parses JSON text, returning `fallback` when it is not valid JSON. */
export function parseJson(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text) as unknown
  } catch {
    return fallback
  }
}
