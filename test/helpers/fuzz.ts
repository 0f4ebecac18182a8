/**
 * The filter fuzz's generators: a seeded PRNG, the grammar's vocabulary over the `fz` collection
 * (test/helpers/filter-fuzz-server.ts seeds it), grammatical, malformed and sort corpora, and the
 * predicates the fuzz tests judge outcomes with. Set FUZZ_SEED to explore other corpora; the
 * default seed keeps every run deterministic.
 */
import {
  comparisonOperators,
  type FilterNode,
  type OperandNode,
} from '../../src/tools/filter/index.js'

export const SEED = Number(process.env.FUZZ_SEED ?? 20240501)

/** mulberry32: a small, fast, seedable PRNG. */
export function prng(seed: number) {
  let a = seed >>> 0
  const next = (): number => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  const int = (n: number): number => Math.floor(next() * n)
  const pick = <T>(items: readonly T[]): T => items[int(items.length)]!
  const chance = (p: number): boolean => next() < p
  return { next, int, pick, chance }
}
export type Rng = ReturnType<typeof prng>

// ---------------------------------------------------------------------------------------------
// The grammar's vocabulary over the `fz` collection
// ---------------------------------------------------------------------------------------------

const FIELDS = [
  'id',
  'title',
  'n',
  'flag',
  'd',
  'status',
  'tags',
  'tags:each',
  'tags:length',
  'meta',
  'meta.a',
  'meta.a.b',
  'meta.list.0',
  'meta.list.99999999999999999999',
  'meta.ü.x',
  'owner',
  'owner.id',
  'owner.name',
  'owner.email',
  'owner.verified',
  'owner.emailVisibility',
  'refs',
  'refs.id',
  'refs.name',
  'refs.score',
  'refs:each',
  'refs:length',
  'refs.parent.title',
  'refs.parent.refs.name',
  'refs.parent.owner.name',
  'fzref_via_parent.name',
  'fzref_via_parent.score',
  'fzref_via_parent.parent.title',
  'fzref_via_parent.id',
  'owner.fz_via_owner.title',
  'refs.fz_via_refs.title',
  'fzref_via_parent.fz_via_refs.owner.name',
  '@collection.fz:self.refs.name',
  'geo',
  'geo.lat',
  'geo.lon',
  'created',
  'updated',
  'title:lower',
  'owner.name:lower',
  'refs.name:lower',
  'secret',
  'owner.password',
  'owner.tokenKey',
] as const

const BAD_FIELDS = [
  'nope',
  'owner.nope',
  'title.x',
  'tags:bogus',
  'title:each',
  'title:length',
  'title:isset',
  'refs.parent.parent',
  'fzref_via_nope.x',
  'users_via_owner.name',
  'fz_via_owner.id',
  'title..x',
  'meta:each',
  '#x',
  '_',
  'null.x',
  'ß'.repeat(300),
] as const

const COLLECTION_FIELDS = [
  '@collection.fzref.name',
  '@collection.fzref:x.score',
  '@collection.fzref:y.parent.title',
  '@collection.users.email',
  '@collection.users.name',
  '@collection.fz.secret',
  '@collection.nope.x',
  '@collection.fzref:a:b.name',
  '@collection.fzref',
] as const

const REQUEST_FIELDS = [
  '@request.auth.id',
  '@request.auth.email',
  '@request.auth.name',
  '@request.auth.verified',
  '@request.auth.collectionName',
  '@request.query.q',
  '@request.query.q:lower',
  '@request.query.q:isset',
  '@request.query.q:each',
  '@request.query.missing',
  '@request.headers.x_token',
  '@request.method',
  '@request.context',
  '@request.body.title',
  '@request.body.title:isset',
  '@request.body.title:changed',
  '@request.body.tags:each',
  '@request.body.tags:length',
  '@request.body.owner.name',
  '@request.data.title',
  '@request.nope',
  '@request.body',
] as const

const MACROS = [
  '@now',
  '@yesterday',
  '@tomorrow',
  '@todayStart',
  '@todayEnd',
  '@monthStart',
  '@monthEnd',
  '@yearStart',
  '@yearEnd',
  '@second',
  '@minute',
  '@hour',
  '@day',
  '@month',
  '@weekday',
  '@year',
  '@bogus',
  '@random',
  '@rowid',
] as const

const OPERATORS = comparisonOperators

/** Hostile text; each piece of length ≥ 3 holds something SQL never contains here (`;`, `--`, …). */
const NASTY = [
  "'; DROP TABLE fz; --",
  '" OR 1=1 --',
  "Robert'); DROP TABLE students;--",
  "1' OR '1'='1' --",
  ') OR (1=1); --',
  '*/ SELECT * FROM _superusers; /*',
  "x' UNION SELECT password FROM users --",
  'a\\b',
  '\\%',
  '100%',
  '%',
  '_',
  '__',
  'a_b%c',
  '%\\_%',
  'ünïcødé ✓',
  '😀 emoji',
  '\u0001\u0002',
  '\n\t',
  '${{x}};',
  '@request.auth.id',
  '@collection.users.id',
  '\\"',
  "\\'",
  "it's",
  'say "hi"',
  '',
  ' ',
  'alpha',
  'x',
  'a',
]

const SEEDED_NUMBERS = ['0', '1', '-1', '7', '42', '3.5', '-0.25', '100']

export function numberLiteral(r: Rng): string {
  switch (r.int(5)) {
    case 0:
      return r.pick(SEEDED_NUMBERS)
    case 1:
      return String(r.int(2000) - 1000)
    case 2:
      return `${r.chance(0.5) ? '-' : ''}${r.int(100000)}.${String(r.int(1000)).padStart(3, '0')}`
    case 3:
      return '9'.repeat(1 + r.int(25))
    default: {
      // NB: 12742 is the Earth diameter in geoDistance's SQL: skip it, it is legitimately there.
      const n = String(100 + r.int(900000))
      return n === '12742' ? '12743' : n
    }
  }
}

const RANDOM_CHARS = 'abcXYZ019 \'"\\%_;@#-ü✓().,=&|/*'

function randomText(r: Rng): string {
  const length = r.int(14)
  let s = ''
  for (let i = 0; i < length; i++) s += r.pick([...RANDOM_CHARS])
  // NB: a random text of 3+ characters carries a character SQL never holds here
  return s.length >= 3 ? `${s};` : s
}

export function textValue(r: Rng): string {
  const roll = r.next()
  if (roll < 0.5) {
    const base = r.pick(NASTY)
    return r.chance(0.3) ? `${base};${r.int(1000)}` : base
  }
  if (roll < 0.85) return randomText(r)
  return r.pick(['alpha', 'beta', 'x', 'y', 'a', 'b', 'Ann', 'r1;', 'fz;'])
}

/** A text literal in either quote style; a trailing backslash would escape the closing quote. */
export function textLiteral(r: Rng, value = textValue(r)): string {
  const q = r.chance(0.5) ? "'" : '"'
  const safe = value.endsWith('\\') ? `${value}z` : value
  return `${q}${safe.replaceAll(q, `\\${q}`)}${q}`
}

function functionCall(r: Rng): string {
  switch (r.int(8)) {
    case 0:
      return `geoDistance(geo.lon, geo.lat, ${numberLiteral(r)}, ${numberLiteral(r)})`
    case 1: {
      const args = Array.from({ length: 4 }, () => numberLiteral(r))
      return `geoDistance(${args.join(',')},)`
    }
    case 2: {
      const format = textLiteral(r, r.pick(['%Y', '%Y-%m', '%s', '%d; --', '%%']))
      const time = r.pick(['created', 'd', 'refs.parent.created', 'owner.name', '@request.query.q'])
      return `strftime(${format}, ${time})`
    }
    case 3: {
      const modifier = textLiteral(r, r.pick(['start of month', '+1 day', "'; DROP", 'weekday 0']))
      return `strftime('%Y-%m-%d', d, ${modifier})`
    }
    case 4:
      return `strftime(${textLiteral(r)})`
    case 5:
      return r.pick([
        'geoDistance(1, 2, 3)',
        'strftime(title)',
        'nope(1)',
        'strftime("%Y", strftime("%Y"))',
      ])
    case 6:
      return r.pick([
        'geoDistance(geo.lon, geo.lat, owner.name, @request.query.q)',
        `geoDistance(refs.score, fzref_via_parent.score, geo.lat, ${numberLiteral(r)})`,
      ])
    default:
      return r.pick(['a(b(c(d())))', 'f()', `strftime(${textLiteral(r)}, ${textLiteral(r)})`])
  }
}

function operand(r: Rng): string {
  const roll = r.next()
  if (roll < 0.4) return r.pick(FIELDS)
  if (roll < 0.43) return r.pick(BAD_FIELDS)
  if (roll < 0.58) return textLiteral(r)
  if (roll < 0.7) return numberLiteral(r)
  if (roll < 0.76) return r.pick(MACROS)
  if (roll < 0.81) return r.pick(['null', 'true', 'false'])
  if (roll < 0.87) return r.pick(REQUEST_FIELDS)
  if (roll < 0.9) return r.pick(COLLECTION_FIELDS)
  return functionCall(r)
}

const space = (r: Rng): string =>
  r.chance(0.75) ? ' ' : r.pick(['', '  ', '\t', '\n', ' // comment; DROP TABLE fz\n'])

function comparison(r: Rng): string {
  return `${operand(r)}${space(r)}${r.pick(OPERATORS)}${space(r)}${operand(r)}`
}

/** A grammatical filter of at most `budget.n` comparisons. */
function expression(r: Rng, depth: number, budget: { n: number }): string {
  if (depth >= 3 || budget.n <= 1 || r.chance(0.35)) {
    budget.n--
    return comparison(r)
  }
  if (r.chance(0.2)) return `(${space(r)}${expression(r, depth + 1, budget)}${space(r)})`
  const left = expression(r, depth + 1, budget)
  const right = expression(r, depth + 1, budget)
  return `${left}${space(r)}${r.pick(['&&', '||'])}${space(r)}${right}`
}

const grammatical = (r: Rng): string => expression(r, 0, { n: 1 + r.int(5) })

const SOUP = [
  ...FIELDS.slice(0, 12),
  ...OPERATORS,
  '==',
  '=>',
  '!',
  '?',
  '<>',
  '~~',
  '&&',
  '||',
  '&',
  '|',
  '&&&',
  '(',
  ')',
  ',',
  "'",
  '"',
  "'unterminated",
  '"x\\"',
  '1.',
  '.5',
  '1e5',
  '--1',
  '0x1F',
  '$',
  '`',
  ';',
  '\\',
  '/',
  '*',
  '[',
  ']',
  '{',
  '}',
  '\u0000',
  '\u202e',
  '😀',
  'AND',
  'OR',
  'NOT',
  'SELECT',
  'DROP TABLE fz',
  '@now',
  '@request.auth.id',
  '@collection.fzref.name',
  'geoDistance(',
  'strftime(',
  '//',
  '\n',
]

function soup(r: Rng): string {
  const n = 1 + r.int(15)
  const parts: string[] = []
  for (let i = 0; i < n; i++) parts.push(r.chance(0.3) ? operand(r) : r.pick(SOUP))
  return parts.join(r.pick(['', ' ', ' ', '\t']))
}

function truncated(r: Rng): string {
  const f = grammatical(r)
  return f.slice(0, r.int(f.length))
}

function mutated(r: Rng): string {
  const f = grammatical(r)
  const at = r.int(f.length + 1)
  const c = r.pick([...'()\'"\\&|=!<>~?,.:@#$;-_ x1'])
  switch (r.int(3)) {
    case 0:
      return f.slice(0, at) + c + f.slice(at)
    case 1:
      return f.slice(0, at) + f.slice(at + 1)
    default:
      return f.slice(0, at) + c + f.slice(at + 1)
  }
}

function unbalanced(r: Rng): string {
  const f = grammatical(r)
  const n = 1 + r.int(20)
  return r.chance(0.5) ? `${'('.repeat(n)}${f}` : `${f}${')'.repeat(n)}`
}

const SORTS = [
  'refs.fz_via_refs.title',
  'owner.fz_via_owner.n',
  'title',
  '-n',
  '+created',
  '@random',
  '-@rowid',
  'owner.name',
  '-refs.score',
  'fzref_via_parent.name',
  'meta.a',
  'secret',
  'tags:length',
  'nope',
  '@request.auth.id',
  '@collection.fzref.name',
  'title:lower',
  'geo.lat',
  "'x'",
  'a b',
  '',
  ',',
  '-',
]

function randomSort(r: Rng): string {
  const n = 1 + r.int(10)
  const items: string[] = []
  for (let i = 0; i < n; i++) items.push(r.pick(SORTS))
  return items.join(r.pick([',', ', ', ',,']))
}

// ---------------------------------------------------------------------------------------------
// Running filters and judging the outcome
// ---------------------------------------------------------------------------------------------

export type Outcome = { ok: true; ids: string[] } | { ok: false; status: number; message: string }
export type Who = 'su' | 'guest'

export const mentionsSuperuserOnly = (f: string): boolean =>
  f.includes('@request.') || f.includes('@collection.')
export const mentionsHidden = (f: string): boolean => /secret|password|tokenKey/.test(f)
/** Time macros and `strftime` read the clock: results may differ between two calls. */
export const clockFree = (f: string): boolean =>
  !/@(now|yesterday|tomorrow|today|month|year|second|minute|hour|day|weekday)/.test(f) &&
  !f.includes('strftime')

/** Every text and number literal of a parsed filter, function arguments included. */
export function literals(node: FilterNode): {
  text: string[]
  numbers: { raw: string; value: number }[]
} {
  const text: string[] = []
  const numbers: { raw: string; value: number }[] = []
  const visit = (op: OperandNode): void => {
    if (op.kind === 'text') text.push(op.value)
    else if (op.kind === 'number') numbers.push({ raw: op.raw, value: op.value })
    else if (op.kind === 'call') op.args.forEach(visit)
  }
  const walk = (n: FilterNode): void => {
    if (n.kind === 'comparison') {
      visit(n.left)
      visit(n.right)
    } else n.terms.forEach(walk)
  }
  walk(node)
  return { text, numbers }
}

/**
 * The corpora of the filter fuzz, drawn in this order from one PRNG seeded with SEED: 4 000
 * grammatical filters, 2 400 malformed ones (soup, truncated, mutated, unbalanced in turn) and
 * 300 sorts. Every caller gets the same corpora.
 */
export function fuzzCorpora(): {
  grammaticalCorpus: string[]
  malformedCorpus: string[]
  sortCorpus: string[]
} {
  const r = prng(SEED)
  const grammaticalCorpus = Array.from({ length: 4000 }, () => grammatical(r))
  const malformedCorpus = Array.from({ length: 2400 }, (_, i) => {
    switch (i % 4) {
      case 0:
        return soup(r)
      case 1:
        return truncated(r)
      case 2:
        return mutated(r)
      default:
        return unbalanced(r)
    }
  })
  const sortCorpus = Array.from({ length: 300 }, () => randomSort(r))
  return { grammaticalCorpus, malformedCorpus, sortCorpus }
}
