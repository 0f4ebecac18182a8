/**
 * The scenario table of PocketBase's benchmark, groups create, auth and search
 * (`test_create.go`, `test_auth.go`, `test_search.go`; reference §2.1–2.3, rows #1–#132): the same
 * names (upstream's scenario headers), request counts, concurrency, queries, rules and index SQL.
 * Pure data: `runner.ts` carries them out.
 */
import { SIZES, type Size } from './schema.js'

export type Group = 'create' | 'auth' | 'search'
export const GROUPS: readonly Group[] = ['create', 'auth', 'search']

/** What a scenario sends. */
export type Kind =
  | 'organizations'
  | 'permissions'
  | 'users'
  | 'posts'
  | 'auth-password'
  | 'auth-refresh'
  | 'get-one'
  | 'list'

export interface Scenario {
  /** The row number of the reference's result tables. */
  row: number
  group: Group
  /** Upstream's group header (without `## `). */
  section: string
  /** Upstream's scenario header (without `#### `). */
  name: string
  kind: Kind
  collection: string
  reqs: number
  conc: number
  /** The createRule (create) or listRule (search) set before the scenario. */
  rule?: string
  /** Search: the indexes set with the rule (absent = left as they are). */
  indexes?: string[]
  /** List: appended to `/api/collections/<col>/records`. */
  query?: string
  /** Sends the `Authorization` token of the group's random user. */
  auth: boolean
  /** S4: PATCHes of random records of the collection fired at once beside the list. */
  background?: number
  /** The posts collection's size, for posts scenarios. */
  size?: Size
}

/** Go's %q of the rules used here (no characters that JSON and Go quote differently). */
const q = (rule: string) => JSON.stringify(rule)

const POSTS_CREATE = { 10: '10k', 25: '25k', 50: '50k', 100: '100k' } as const
const POSTS_RULE = "@request.auth.id != '' && @request.body.public:isset = true"

function createRows(): Scenario[] {
  const out: Scenario[] = []
  const add = (
    section: string,
    kind: Kind,
    collection: string,
    reqs: number,
    conc: number,
    rules: [string, string],
    size?: Size,
  ) => {
    rules.forEach((rule, i) => {
      out.push({
        row: out.length + 1,
        group: 'create',
        section,
        name: `Creating ${reqs} ${collection} [reqs:${reqs}, conc:${conc}, rule:\`${q(rule)}\`]`,
        kind,
        collection,
        reqs,
        conc,
        rule,
        auth: kind === 'posts' && i === 1,
        ...(size ? { size } : {}),
      })
    })
  }
  add('Creating organizations (100)', 'organizations', 'organizations', 50, 10, [
    '',
    "@request.body.name != ''",
  ])
  add('Creating permissions (50)', 'permissions', 'permissions', 25, 5, [
    '',
    "@request.body.name != ''",
  ])
  add(
    'Creating users (500 - expected to be slow due to passwordHash generation)',
    'users',
    'users',
    250,
    50,
    ['', "@request.body.email != '' && @request.body.permissions:length > 0"],
  )
  for (const [k, size] of Object.entries(POSTS_CREATE)) {
    const reqs = Number(k) * 500
    add(
      'Creating posts (10k, 25k, 50k, 100k)',
      'posts',
      `posts${size}`,
      reqs,
      500,
      ['', POSTS_RULE],
      size,
    )
  }
  return out
}

function authRows(): Scenario[] {
  const pw = 'User auth with password (expected to be slow due to passwordHash verification)'
  const refresh = 'User auth refresh'
  const row = (
    row: number,
    section: string,
    kind: Kind,
    name: string,
    reqs: number,
    conc: number,
  ) => ({
    row,
    group: 'auth' as const,
    section,
    name: `${name} [reqs:${reqs}, conc:${conc}]`,
    kind,
    collection: 'users',
    reqs,
    conc,
    auth: kind === 'auth-refresh',
  })
  return [
    row(15, pw, 'auth-password', 'users auth with email/pass - high concurrency', 250, 250),
    row(16, pw, 'auth-password', 'users auth with email/pass - small concurrency', 250, 10),
    row(17, refresh, 'auth-refresh', 'users - auth refresh (high concurrency)', 1000, 1000),
    row(18, refresh, 'auth-refresh', 'users - auth refresh (medium concurrency)', 1000, 100),
  ]
}

/** S1–S28 (reference §2.3): name, reqs, conc, query, listRule, indexes ('author' / 'desc' / none). */
export const LIST_SCENARIOS: readonly [
  string,
  number,
  number,
  string,
  string,
  '' | 'author' | 'desc',
][] = [
  ['simpleA (many requests, no rules, no concurrency)', 1000, 1, '?perPage=20', '', ''],
  ['simpleB (many requests, no rules, high concurrency)', 1000, 1000, '?perPage=20', '', ''],
  [
    'simpleC (many requests, no rules, high concurrency, skipTotal)',
    1000,
    1000,
    '?perPage=20&skipTotal=1',
    '',
    '',
  ],
  [
    'mixed read and write (simpleA list with additional 300 concurrent random <col> updates running in the background)',
    1000,
    1000,
    '?perPage=20',
    '',
    '',
  ],
  ['expand author', 100, 10, '?perPage=20&expand=author', '', ''],
  [
    'expand author (limited fields)',
    100,
    10,
    '?perPage=20&expand=author&fields=id,collectionId,expand.author.id',
    '',
    '',
  ],
  ['expand author.permissions', 100, 10, '?perPage=20&expand=author.permissions', '', ''],
  [
    'expand author.permissions (limited fields)',
    100,
    10,
    '?perPage=20&expand=author.permissions&fields=id,collectionId,expand.author.id,expand.author.expand.permissions.id',
    '',
    '',
  ],
  ['simple auth rule', 100, 10, '?perPage=20', "@request.auth.id != ''", ''],
  ['author check (no index)', 100, 10, '?perPage=20', 'author = @request.auth.id', ''],
  ['author check (with index)', 100, 10, '?perPage=20', 'author = @request.auth.id', 'author'],
  [
    'author check (with index and skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    'author = @request.auth.id',
    'author',
  ],
  [
    'author.id (extra join) check (no index)',
    100,
    10,
    '?perPage=20',
    'author.id = @request.auth.id',
    '',
  ],
  [
    'author.id (extra join) check (with index)',
    100,
    10,
    '?perPage=20',
    'author.id = @request.auth.id',
    'author',
  ],
  [
    'author.id (extra join) check (with index and skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    'author.id = @request.auth.id',
    'author',
  ],
  ['loose large text search (no index)', 100, 10, '?perPage=20', "description ~ 'ipsum dolor'", ''],
  [
    'loose large text search (with index)',
    100,
    10,
    '?perPage=20',
    "description ~ 'ipsum dolor'",
    'desc',
  ],
  [
    'loose large text search (with index and skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    "description ~ 'ipsum dolor'",
    'desc',
  ],
  ['multiple select :each (no index, match-all)', 100, 10, '?perPage=20', "type:each != 'c'", ''],
  [
    'multiple select :each (no index, match-all, skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    "type:each != 'c'",
    '',
  ],
  [
    'multiple select :each (no index, at-least-one)',
    100,
    10,
    '?perPage=20',
    "type:each ?!= 'c'",
    '',
  ],
  [
    'multiple select :each (no index, at-least-one, skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    "type:each ?!= 'c'",
    '',
  ],
  [
    'nested single relations lookup (no indexes)',
    100,
    10,
    '?perPage=20',
    "author.organization.name != 'test'",
    '',
  ],
  [
    'nested single relations lookup (no indexes, skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    "author.organization.name != 'test'",
    '',
  ],
  [
    'nested multiple relations lookup (no indexes, match-all)',
    100,
    10,
    '?perPage=20',
    'author.permissions.active = true',
    '',
  ],
  [
    'nested multiple relations lookup (no indexes, match-all, skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    'author.permissions.active = true',
    '',
  ],
  [
    'nested multiple relations lookup (no indexes, at-least-one)',
    100,
    10,
    '?perPage=20',
    'author.permissions.active ?= true',
    '',
  ],
  [
    'nested multiple relations lookup (no indexes, at-least-one, skipTotal)',
    100,
    10,
    '?perPage=20&skipTotal=1',
    'author.permissions.active ?= true',
    '',
  ],
]

/** The index SQL of the search scenarios, exactly as upstream writes it. */
export function indexSql(kind: 'author' | 'desc', col: string): string {
  return kind === 'author'
    ? `create index \`idx_author_${col}\` on ${col} (author)`
    : `create index \`idx_descriptions_${col}\` on ${col} (description)`
}

function searchRows(): Scenario[] {
  const section = 'List records'
  const out: Scenario[] = []
  for (const [row, conc] of [
    [19, 100],
    [20, 1000],
  ] as const) {
    const level = conc === 100 ? 'medium' : 'high'
    const name = `getOne for auth refresh comparison (${level} concurrency)`
    out.push({
      row,
      group: 'search',
      section,
      name: `users - ${name} [reqs:1000, conc:${conc}, rule:\`""\`, query:\`/<userId>\`]`,
      kind: 'get-one',
      collection: 'users',
      reqs: 1000,
      conc,
      rule: '',
      auth: true,
    })
  }
  SIZES.forEach((size, k) => {
    const col = `posts${size}`
    LIST_SCENARIOS.forEach(([name, reqs, conc, query, rule, idx], s) => {
      const title = name.replace('<col>', col)
      out.push({
        row: 20 + 28 * k + s + 1,
        group: 'search',
        section,
        name: `${col} - ${title} [reqs:${reqs}, conc:${conc}, rule:\`${q(rule)}\`, query:\`${query}\`]`,
        kind: 'list',
        collection: col,
        reqs,
        conc,
        rule,
        indexes: idx === '' ? [] : [indexSql(idx, col)],
        query,
        auth: true,
        size,
        ...(s === 3 ? { background: 300 } : {}),
      })
    })
  })
  return out
}

/** Every scenario, rows #1–#132 in run order. */
export function allScenarios(): Scenario[] {
  return [...createRows(), ...authRows(), ...searchRows()]
}
