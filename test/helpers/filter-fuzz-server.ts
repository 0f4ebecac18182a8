/**
 * The server the filter fuzz runs against: a `fz` collection (own columns of every kind, a
 * relation to users, a multi relation to `fzref` and back, a hidden field) with ten records, the
 * request infos of a superuser and of a guest, and the helpers that run a filter in-process as
 * both and judge the outcome. Call useFilterFuzz() once in a describe block: it registers the
 * hooks that start and seed the server, close it, and clear the failures before each test.
 */
import { afterAll, beforeAll, beforeEach, expect } from 'vitest'
import type { Collection } from '../../src/core/collections/model.js'
import { ApiError } from '../../src/core/errors.js'
import type { ListResult } from '../../src/core/records/service.js'
import type { RequestInfo } from '../../src/core/request-info.js'
import { SEED, mentionsHidden, mentionsSuperuserOnly, type Outcome, type Who } from './fuzz.js'
import { ident, sql } from '../../src/store/sql.js'
import { startOn } from './engines.js'
import { SU_EMAIL, SU_PASSWORD, startServer, type TestServer } from './server.js'

export interface FilterFuzz {
  /** The running server (set once the hooks have run). */
  readonly t: TestServer
  /** The `fz` collection (set once the hooks have run). */
  readonly fz: Collection
  infos: Record<Who, RequestInfo>
  /** The ids of the seeded `fz` records. */
  seeded: Set<string>
  /** In-process outcomes by filter and caller, to compare with the HTTP answers. */
  outcomes: Map<string, Record<Who, Outcome>>
  /** What went wrong in the current test (cleared before each test). */
  failures: string[]
  /** The filters that took over 250 ms in-process. */
  timings: { filter: string; ms: number }[]
  fail: (what: string, filter: string, detail: unknown) => void
  /** Lists `fz` in-process as `who`, checking a successful page. */
  listAs: (who: Who, query: Record<string, string>) => Promise<Outcome>
  /** Runs one filter as both callers and applies the status laws. */
  judge: (filter: string, kind: 'grammatical' | 'malformed') => Promise<Record<Who, Outcome>>
}

/** A bcrypt hash of `password123` with a fixed salt. */
const FIXED_HASH = '$2a$10$abcdefghijklmnopqrstuu0SYq8twpcthS10uxQ26rv0s3Obj8Ufu'

/** The id of the seeded record `i` of a kind (`fzuser`, `fzref`, `fzrec`): 15 characters. */
export const fuzzId = (kind: string, i: number): string =>
  `${kind}${String(i + 1).padStart(15 - kind.length, '0')}`

/**
 * Starts and seeds the filter fuzz server for the enclosing describe block: on the engine of the
 * run (the PostgreSQL pass's or SQLite), or on `opts.pg`'s (true: the test PostgreSQL). Every
 * record has a fixed id (`fuzzId`), and the superuser's request info a fixed auth id, so two
 * servers answer the same filters with the same ids.
 */
export function useFilterFuzz(opts: { pg?: boolean } = {}): FilterFuzz {
  let t: TestServer
  let fz: Collection
  const infos = {} as Record<Who, RequestInfo>
  const seeded = new Set<string>()
  /** In-process outcomes by filter and caller, to compare with the HTTP answers. */
  const outcomes = new Map<string, Record<Who, Outcome>>()
  const failures: string[] = []
  const timings: { filter: string; ms: number }[] = []

  const fail = (what: string, filter: string, detail: unknown): void => {
    if (failures.length < 200) {
      failures.push(
        `${what} [seed ${SEED}] ${JSON.stringify(filter.slice(0, 300))}: ${JSON.stringify(detail)}`,
      )
    }
  }

  async function listAs(who: Who, query: Record<string, string>): Promise<Outcome> {
    const started = performance.now()
    try {
      const res = await t.server.app.records.list(fz, { perPage: '500', ...query }, infos[who])
      check(res, who, query.filter ?? query.sort ?? '')
      return { ok: true, ids: res.items.map((i) => String(i.id)) }
    } catch (e) {
      if (e instanceof ApiError) return { ok: false, status: e.status, message: e.message }
      const err = e instanceof Error ? `${e.name}: ${e.message}` : String(e)
      fail('unexpected fault', query.filter ?? query.sort ?? '', err)
      return { ok: false, status: 500, message: err }
    } finally {
      const ms = performance.now() - started
      if (ms > 250) timings.push({ filter: query.filter ?? query.sort ?? '', ms })
    }
  }

  /** Checks a successful page, recording what is wrong with it. */
  function check(res: ListResult, who: Who, f: string): void {
    if (!Array.isArray(res.items)) fail('items is not an array', f, res)
    if (res.totalItems !== res.items.length)
      fail('totalItems differs from the page', f, res.totalItems)
    for (const item of res.items) {
      if (!seeded.has(String(item.id))) fail('unknown record listed', f, item.id)
      if (item.collectionName !== 'fz') fail('wrong collectionName', f, item.collectionName)
      if (who === 'guest' && 'secret' in item) fail('hidden field returned to a guest', f, item)
    }
  }

  /** Runs one filter as both callers and applies the status laws. */
  async function judge(
    filter: string,
    kind: 'grammatical' | 'malformed',
  ): Promise<Record<Who, Outcome>> {
    const su = await listAs('su', { filter })
    const guest = await listAs('guest', { filter })
    for (const [who, o] of [
      ['su', su],
      ['guest', guest],
    ] as const) {
      if (!o.ok && o.status !== 400 && o.status !== 403)
        fail(`${who}: status ${o.status}`, filter, o.message)
      if (!o.ok && (typeof o.message !== 'string' || o.message === ''))
        fail('empty message', filter, o)
    }
    if (!su.ok && su.status === 403) fail('403 for a superuser', filter, su.message)
    const guestForbidden = !guest.ok && guest.status === 403
    if (guestForbidden !== mentionsSuperuserOnly(filter)) {
      fail('guest 403 iff the text names @request./@collection.', filter, guest)
    }
    if (!su.ok && guest.ok) fail('a filter the superuser cannot run works for a guest', filter, su)
    if (
      kind === 'grammatical' &&
      su.ok &&
      !guest.ok &&
      !guestForbidden &&
      !mentionsHidden(filter)
    ) {
      fail('a valid filter without hidden fields fails for a guest', filter, guest)
    }
    // fz is public, so over its own columns a guest sees exactly what a superuser sees
    const ownColumnsOnly = !/owner|refs|fzref|@|secret/.test(filter)
    if (su.ok && guest.ok && ownColumnsOnly) {
      if ([...su.ids].sort().join() !== [...guest.ids].sort().join()) {
        fail('guest and superuser differ on own columns', filter, { su: su.ids, guest: guest.ids })
      }
    }
    const both = { su, guest }
    outcomes.set(filter, both)
    return both
  }

  beforeAll(async () => {
    t = opts.pg === undefined ? await startServer() : await startOn(opts.pg)
    const su = t.suToken
    const post = async (path: string, body: Record<string, unknown>, method = 'POST') => {
      const res = await t.api(method, path, { token: su, body })
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200)
      return res.body
    }
    const fzref = await post('/api/collections', {
      name: 'fzref',
      type: 'base',
      listRule: "name != 'hidden'",
      schema: [
        { name: 'name', type: 'text' },
        { name: 'score', type: 'number' },
      ],
    })
    const fzc = await post('/api/collections', {
      name: 'fz',
      type: 'base',
      listRule: '',
      // Never true, as no rule at all for non-superusers; its any-of comparisons give tags and
      // refs their junction tables, so `?` filters on them take the junction rewrite.
      deleteRule: "(tags:each ?= 'zz' || refs.id ?= 'zz') && id = ''",
      schema: [
        { name: 'title', type: 'text' },
        { name: 'n', type: 'number' },
        { name: 'flag', type: 'bool' },
        { name: 'd', type: 'date' },
        { name: 'status', type: 'select', options: { values: ['x', 'y', 'z'], maxSelect: 1 } },
        { name: 'tags', type: 'select', options: { values: ['a', 'b', 'c'], maxSelect: 3 } },
        { name: 'meta', type: 'json' },
        {
          name: 'owner',
          type: 'relation',
          options: { collectionId: '_pb_users_auth_', maxSelect: 1 },
        },
        { name: 'refs', type: 'relation', options: { collectionId: fzref.id, maxSelect: 5 } },
        { name: 'secret', type: 'text', hidden: true },
        { name: 'geo', type: 'geoPoint' },
      ],
    })
    await post(
      '/api/collections/fzref',
      {
        schema: [
          ...fzref.schema,
          { name: 'parent', type: 'relation', options: { collectionId: fzc.id, maxSelect: 1 } },
        ],
      },
      'PATCH',
    )
    const users: string[] = []
    for (const [i, [name, visible]] of (
      [
        ['ann', true],
        ['ben', false],
      ] as const
    ).entries()) {
      const u = await post('/api/collections/users/records', {
        id: fuzzId('fzuser', i),
        email: `${name}@fuzz.test`,
        password: 'password123',
        passwordConfirm: 'password123',
        emailVisibility: visible,
        name: name === 'ann' ? 'Ann' : "Ben'; --",
      })
      users.push(u.id)
    }
    const refs: string[] = []
    const names = ['alpha', 'beta', 'hidden', "o'brien", '100%', 'a_b']
    for (const [i, name] of names.entries()) {
      const ref = await post('/api/collections/fzref/records', {
        id: fuzzId('fzref', i),
        name,
        score: i * 10 - 15,
      })
      refs.push(ref.id)
    }
    const titles = [
      'alpha',
      'Beta',
      "it's",
      '100%',
      'a_b',
      "'; DROP TABLE fz; --",
      'ünï',
      '',
      'x',
      'aXb',
    ]
    for (const [i, title] of titles.entries()) {
      const rec = await post('/api/collections/fz/records', {
        id: fuzzId('fzrec', i),
        title,
        n: [0, 1, -1, 7, 42, 3.5, -0.25, 100, 0, 9][i],
        flag: i % 2 === 0,
        d: i % 3 === 0 ? '' : `20${10 + i}-0${1 + (i % 9)}-15 10:00:00.000Z`,
        status: ['x', 'y', 'z', ''][i % 4],
        tags: [[], ['a'], ['a', 'b'], ['c'], ['a', 'b', 'c']][i % 5],
        meta: i % 3 === 0 ? null : { a: { b: i }, list: [i, `v${i}`], ü: { x: 'y' } },
        owner: i % 3 === 2 ? '' : users[i % 2],
        refs: refs.slice(i % 6, (i % 6) + (i % 4)),
        secret: `s${i}`,
        geo: { lon: i * 3, lat: i * 2 },
      })
      seeded.add(rec.id)
      if (i < 6)
        await post(`/api/collections/fzref/records/${refs[i]!}`, { parent: rec.id }, 'PATCH')
    }
    // NB: the secrets the server draws at random (password hashes, token keys), fixed, so
    // filters naming them answer the same on every server.
    const usersCollection = t.server.app.collections.get('users')
    for (const [i, id] of users.entries()) {
      await t.server.app
        .dbFor(usersCollection)
        .run(
          sql`UPDATE ${ident('users')} SET ${ident('password')} = ${FIXED_HASH}, ${ident('tokenKey')} = ${`fuzzTokenKey${i}`} WHERE ${ident('id')} = ${id}`,
        )
    }
    fz = t.server.app.collections.get('fz')
    const login = await t.api('POST', '/api/collections/_superusers/auth-with-password', {
      body: { identity: SU_EMAIL, password: SU_PASSWORD },
    })
    const superusers = t.server.app.collections.get('_superusers')
    const suRecord = await t.server.app.records.findById(superusers, login.body.record.id)
    const base = {
      query: { q: 'alpha' },
      body: {},
      headers: { x_token: 'tok;en' },
      method: 'GET',
      context: 'default',
      ip: '127.0.0.1',
    } as const
    infos.su = {
      ...base,
      query: { ...base.query },
      headers: { ...base.headers },
      // NB: a fixed id, so `@request.auth.id` is the same value on every server.
      auth: { record: { ...suRecord!, id: fuzzId('fzsu', 0) }, collection: superusers },
    }
    infos.guest = { ...base, query: { ...base.query }, headers: { ...base.headers }, auth: null }
  })
  afterAll(() => t.close())
  beforeEach(() => {
    failures.length = 0
  })

  return {
    get t() {
      return t
    },
    get fz() {
      return fz
    },
    infos,
    seeded,
    outcomes,
    failures,
    timings,
    fail,
    listAs,
    judge,
  }
}
