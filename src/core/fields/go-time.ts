/**
 * Submitted dates read as PocketBase reads them: Go's `time.Parse` with PocketBase's layout
 * (`2006-01-02 15:04:05.000Z`), then the layouts of spf13/cast's `ToTime` (RFC 3339, RFC 1123,
 * `2006-01-02`, ANSIC, …), in the same order and with the same strictness (two-digit months and
 * days, four-digit years, real calendar days, nothing before or after). Text that no layout reads
 * is no date; so are numbers (PocketBase reads `1700000000` as text, which no layout takes).
 */

import { formatDate } from '../../tools/dates.js'

type Chunk =
  | { kind: 'lit'; text: string }
  | {
      kind:
        | 'year4'
        | 'year2'
        | 'month2'
        | 'monthName'
        | 'weekday'
        | 'longWeekday'
        | 'day2'
        | 'dayUnder'
        | 'hour24'
        | 'hour12'
        | 'minute'
        | 'second'
        | 'pm'
        | 'tzNum'
        | 'tzNumColon'
        | 'tzIso'
        | 'tzIsoColon'
        | 'tzName'
        | 'frac9'
    }
  | { kind: 'frac0'; digits: number }

/** Go layout elements, longest first where one is the prefix of another. */
const ELEMENTS: ReadonlyArray<[string, Chunk]> = [
  ['2006', { kind: 'year4' }],
  ['Monday', { kind: 'longWeekday' }],
  ['Mon', { kind: 'weekday' }],
  ['Jan', { kind: 'monthName' }],
  ['Z07:00', { kind: 'tzIsoColon' }],
  ['Z0700', { kind: 'tzIso' }],
  ['-07:00', { kind: 'tzNumColon' }],
  ['-0700', { kind: 'tzNum' }],
  ['MST', { kind: 'tzName' }],
  ['.999999999', { kind: 'frac9' }],
  ['.000000000', { kind: 'frac0', digits: 9 }],
  ['.000000', { kind: 'frac0', digits: 6 }],
  ['.000', { kind: 'frac0', digits: 3 }],
  ['01', { kind: 'month2' }],
  ['02', { kind: 'day2' }],
  ['_2', { kind: 'dayUnder' }],
  ['06', { kind: 'year2' }],
  ['15', { kind: 'hour24' }],
  ['04', { kind: 'minute' }],
  ['05', { kind: 'second' }],
  ['PM', { kind: 'pm' }],
  ['3', { kind: 'hour12' }],
]

/** A layout split into its elements and literal text. */
function compile(layout: string): Chunk[] {
  const out: Chunk[] = []
  let rest = layout
  while (rest !== '') {
    const hit = ELEMENTS.find(([e]) => rest.startsWith(e))
    if (hit) {
      out.push(hit[1])
      rest = rest.slice(hit[0].length)
      continue
    }
    const last = out[out.length - 1]
    if (last?.kind === 'lit') last.text += rest[0]
    else out.push({ kind: 'lit', text: rest[0]! })
    rest = rest.slice(1)
  }
  return out
}

/**
 * PocketBase's own layout, then cast's list. `named` marks layouts whose zone is a name (or none):
 * cast reads their wall clock as UTC.
 */
const LAYOUTS: ReadonlyArray<{ chunks: Chunk[]; named: boolean }> = [
  ['2006-01-02 15:04:05.000Z', true],
  ['2006-01-02T15:04:05Z07:00', false],
  ['2006-01-02T15:04:05', true],
  ['Mon, 02 Jan 2006 15:04:05 -0700', false],
  ['Mon, 02 Jan 2006 15:04:05 MST', true],
  ['02 Jan 06 15:04 -0700', false],
  ['02 Jan 06 15:04 MST', true],
  ['Monday, 02-Jan-06 15:04:05 MST', true],
  ['Mon Jan _2 15:04:05 2006', true],
  ['Mon Jan _2 15:04:05 MST 2006', true],
  ['Mon Jan 02 15:04:05 -0700 2006', false],
  ['2006-01-02 15:04:05.999999999 -0700 MST', false],
  ['2006-01-02', true],
  ['02 Jan 2006', true],
  ['2006-01-02T15:04:05-0700', false],
  ['2006-01-02 15:04:05 -07:00', false],
  ['2006-01-02 15:04:05 -0700', false],
  ['2006-01-02 15:04:05Z07:00', false],
  ['2006-01-02 15:04:05Z0700', false],
  ['2006-01-02 15:04:05', true],
  ['3:04PM', true],
  ['Jan _2 15:04:05', true],
  ['Jan _2 15:04:05.000', true],
  ['Jan _2 15:04:05.000000', true],
  ['Jan _2 15:04:05.000000000', true],
].map(([layout, named]) => ({ chunks: compile(layout as string), named: named as boolean }))

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec']
const DAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday']

const isDigit = (s: string, i: number): boolean => s[i] !== undefined && s[i] >= '0' && s[i] <= '9'

/** Go's `getnum`: one or two digits (exactly two when `fixed`). */
function getnum(s: string, fixed: boolean): [number, string] | null {
  if (!isDigit(s, 0)) return null
  if (!isDigit(s, 1)) return fixed ? null : [Number(s[0]), s.slice(1)]
  return [Number(s.slice(0, 2)), s.slice(2)]
}

/** Go's `parseTimeZone`: the length of a zone name at the start of `s`, or 0. */
function zoneNameLength(s: string): number {
  if (s.startsWith('ChST') || s.startsWith('MeST')) return 4
  if (s.startsWith('GMT')) {
    const m = /^[+-](\d+)/.exec(s.slice(3))
    return 3 + (m && Number(m[1]) <= 23 ? m[0].length : 0)
  }
  let upper = 0
  while (upper < 6 && upper < s.length && s[upper]! >= 'A' && s[upper]! <= 'Z') upper++
  if (upper === 3) return 3
  if (upper === 4 && (s[3] === 'T' || s.startsWith('WITA'))) return 4
  if (upper === 5 && s[4] === 'T') return 5
  return 0
}

/** Fractional seconds after a `.` or `,`: nanoseconds from at most nine digits. */
function nanos(digits: string): number {
  return Number(digits.slice(0, 9).padEnd(9, '0'))
}

interface Parts {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  nano: number
  /** Seconds east of UTC, when the value has a numeric zone. */
  offset: number
  pm: boolean | null
}

/** Go's `skip`: a layout space matches one or more spaces. */
function skipLiteral(value: string, literal: string): string | null {
  let v = value
  let l = literal
  while (l !== '') {
    if (l[0] === ' ') {
      if (v !== '' && v[0] !== ' ') return null
      l = l.trimStart()
      v = v.replace(/^ +/, '')
      continue
    }
    if (v[0] !== l[0]) return null
    l = l.slice(1)
    v = v.slice(1)
  }
  return v
}

/** Reads `value` with one layout; null when it does not fit. */
function parseWith(chunks: Chunk[], input: string): Parts | null {
  const p: Parts = {
    year: 0,
    month: 1,
    day: 1,
    hour: 0,
    minute: 0,
    second: 0,
    nano: 0,
    offset: 0,
    pm: null,
  }
  let v = input
  for (let i = 0; i < chunks.length; i++) {
    const c = chunks[i]!
    let n: [number, string] | null
    switch (c.kind) {
      case 'lit': {
        const rest = skipLiteral(v, c.text)
        if (rest === null) return null
        v = rest
        continue
      }
      case 'year4':
        if (!/^\d{4}/.test(v)) return null
        p.year = Number(v.slice(0, 4))
        v = v.slice(4)
        continue
      case 'year2':
        if (!/^\d{2}/.test(v)) return null
        p.year = Number(v.slice(0, 2))
        p.year += p.year >= 69 ? 1900 : 2000
        v = v.slice(2)
        continue
      case 'monthName': {
        const m = MONTHS.indexOf(v.slice(0, 3).toLowerCase())
        if (m < 0) return null
        p.month = m + 1
        v = v.slice(3)
        continue
      }
      case 'weekday':
      case 'longWeekday': {
        const lower = v.toLowerCase()
        const name = DAYS.find((d) => lower.startsWith(c.kind === 'weekday' ? d.slice(0, 3) : d))
        if (!name) return null
        v = v.slice(c.kind === 'weekday' ? 3 : name.length)
        continue
      }
      case 'month2':
        if (!(n = getnum(v, true)) || n[0] < 1 || n[0] > 12) return null
        ;[p.month, v] = n
        continue
      case 'day2':
      case 'dayUnder':
        if (c.kind === 'dayUnder' && v[0] === ' ') v = v.slice(1)
        if (!(n = getnum(v, c.kind === 'day2'))) return null
        ;[p.day, v] = n
        continue
      case 'hour24':
      case 'hour12':
        if (!(n = getnum(v, false)) || n[0] > (c.kind === 'hour24' ? 23 : 12)) return null
        ;[p.hour, v] = n
        continue
      case 'minute':
        if (!(n = getnum(v, true)) || n[0] > 59) return null
        ;[p.minute, v] = n
        continue
      case 'second': {
        if (!(n = getnum(v, true)) || n[0] > 59) return null
        ;[p.second, v] = n
        // A fraction the layout does not name is read anyway.
        const next = chunks[i + 1]
        const m = /^[.,](\d+)/.exec(v)
        if (m && next?.kind !== 'frac0' && next?.kind !== 'frac9') {
          p.nano = nanos(m[1]!)
          v = v.slice(m[0].length)
        }
        continue
      }
      case 'frac0': {
        const m = new RegExp(`^[.,](\\d{${c.digits}})`).exec(v)
        if (!m) return null
        p.nano = nanos(m[1]!)
        v = v.slice(m[0].length)
        continue
      }
      case 'frac9': {
        const m = /^[.,](\d+)/.exec(v)
        if (m) {
          p.nano = nanos(m[1]!)
          v = v.slice(m[0].length)
        }
        continue
      }
      case 'pm':
        if (v.startsWith('PM')) p.pm = true
        else if (v.startsWith('AM')) p.pm = false
        else return null
        v = v.slice(2)
        continue
      case 'tzIso':
      case 'tzIsoColon':
      case 'tzNum':
      case 'tzNumColon': {
        if (v[0] === 'Z' && (c.kind === 'tzIso' || c.kind === 'tzIsoColon')) {
          v = v.slice(1)
          continue
        }
        const colon = c.kind === 'tzIsoColon' || c.kind === 'tzNumColon'
        const m = (colon ? /^([+-])(\d{2}):(\d{2})/ : /^([+-])(\d{2})(\d{2})/).exec(v)
        if (!m || Number(m[2]) > 24 || Number(m[3]) > 60) return null
        p.offset = (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 3600 + Number(m[3]) * 60)
        v = v.slice(m[0].length)
        continue
      }
      case 'tzName': {
        const length = v.startsWith('UTC') ? 3 : zoneNameLength(v)
        if (length === 0) return null
        v = v.slice(length)
        continue
      }
    }
  }
  if (v !== '') return null
  if (p.pm === true && p.hour < 12) p.hour += 12
  else if (p.pm === false && p.hour === 12) p.hour = 0
  const leap = p.year % 4 === 0 && (p.year % 100 !== 0 || p.year % 400 === 0)
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][p.month - 1]!
  return p.day >= 1 && p.day <= days ? p : null
}

/** Go's zero time (0001-01-01 00:00:00 UTC) in milliseconds since the epoch: no date. */
const GO_ZERO_MS = -62135596800000

/**
 * A submitted date in the canonical layout (`2024-01-02 03:04:05.000Z`, milliseconds truncated),
 * or `''` when PocketBase would read no date from it.
 */
export function parseGoDate(value: string): string {
  if (value === '') return ''
  for (const { chunks, named } of LAYOUTS) {
    const p = parseWith(chunks, value)
    if (!p) continue
    const d = new Date(0)
    d.setUTCFullYear(p.year, p.month - 1, p.day)
    d.setUTCHours(p.hour, p.minute, p.second, Math.floor(p.nano / 1e6))
    const ms = d.getTime() - (named ? 0 : p.offset * 1000)
    if (ms === GO_ZERO_MS && p.nano % 1e6 === 0) return ''
    return formatDate(new Date(ms))
  }
  return ''
}
