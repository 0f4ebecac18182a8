/**
 * `npm run bench:versions -- --other=PATH`: creates and updates into a collection whose list rule
 * gives `editors` a junction table (`editors:each ?= @request.auth.id`), this checkout's build
 * against another checkout's (`PATH`, with its own `npm ci` and `dist/` built), each server over a
 * fresh data dir of its own. It answers issue 19's "no slower create/update than 0.9× today" as
 * worded: today's code is the other checkout, which has no junction (run at the issue's base).
 *
 * Prints, per pass: this build with the junction ÷ the other build over the same collection
 * (the issue's measure), and this build with the junction ÷ this build without the rule (the
 * `npm run bench` row, stricter: it also takes away what this build gained elsewhere).
 * `--mode=reads` instead measures reads of the plain collection on both builds: a view by id, a
 * list of 20 newest, and a list of 20 with a `~` filter (issue 32's "what the read budget costs
 * ordinary reads").
 * `--passes=N` [3], `--mode=create|update|both|reads` [both]; `BENCH_DURATION`, `BENCH_WARMUP`,
 * `BENCH_CONNECTIONS` as for `npm run bench`. Needs this checkout's `dist/` (`npm run build`).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { api, mapLimit, superuserToken } from './api.js'
import { cycle, measurePair, type LoadSpec, type Measurement } from './load.js'
import { createdIndex, postFields } from './seed.js'
import { createSuperuser, ROOT, startSvcbase, type ServerProcess } from './servers.js'

const { values: args } = parseArgs({
  options: {
    other: { type: 'string' },
    passes: { type: 'string', default: '3' },
    mode: { type: 'string', default: 'both' },
  },
})
const MODES = ['create', 'update', 'both', 'reads']
if (!args.other || !MODES.includes(args.mode)) {
  console.error(
    'usage: npm run bench:versions -- --other=PATH [--passes=N] [--mode=create|update|both|reads]',
  )
  process.exit(2)
}
const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const DURATION = env('BENCH_DURATION', 6)
const WARMUP = env('BENCH_WARMUP', 2)
const CONNECTIONS = env('BENCH_CONNECTIONS', 32)
const SU = { email: 'versions@example.com', password: 'versions-superuser-password' }
const USERS = 200
const UPDATED = 2000
const DESCRIPTION = 'Lorem ipsum dolor sit amet. '.repeat(18)

const COLLECTIONS = {
  plain: {},
  junction: { listRule: 'editors:each ?= @request.auth.id' },
}
type Kind = keyof typeof COLLECTIONS

interface Side {
  server: ServerProcess
  users: string[]
  /** Records to update, per collection. */
  records: Record<Kind, string[]>
}

const log = (line: string) => console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`)

/** The two `editors` of the n-th request. */
function editors(users: readonly string[], n: number): string[] {
  return [users[(n * 7) % users.length]!, users[(n * 13 + 1) % users.length]!]
}

function body(users: readonly string[], n: number) {
  const author = users[n % users.length]!
  return { title: `Post ${n}`, description: DESCRIPTION, author, editors: editors(users, n) }
}

async function prepare(name: string, root: string, tmp: string, mode: string): Promise<Side> {
  const dir = join(tmp, name)
  createSuperuser(dir, SU.email, SU.password, [], root)
  const server = await startSvcbase(dir, { root })
  const token = await superuserToken(server.url, SU)
  for (const [kind, rules] of Object.entries(COLLECTIONS))
    await api(
      server.url,
      'POST',
      '/api/collections',
      {
        name: `v_${kind}`,
        type: 'base',
        schema: postFields(),
        indexes: [createdIndex(`v_${kind}`)],
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '',
        ...rules,
      },
      token,
    )
  const users = await mapLimit(
    Array.from({ length: USERS }, (_, i) => i),
    8,
    async (i) => {
      const password = 'versions-user-password'
      const u = await api<{ id: string }>(server.url, 'POST', '/api/collections/users/records', {
        email: `u${i}@versions.test`,
        password,
        passwordConfirm: password,
      })
      return u.id
    },
  )
  const records = { plain: [] as string[], junction: [] as string[] }
  if (mode !== 'create')
    for (const kind of Object.keys(COLLECTIONS) as Kind[])
      records[kind] = await mapLimit(
        Array.from({ length: UPDATED }, (_, i) => i),
        16,
        async (i) =>
          (
            await api<{ id: string }>(
              server.url,
              'POST',
              `/api/collections/v_${kind}/records`,
              body(users, i),
            )
          ).id,
      )
  log(
    `${name}: ${server.url} (${root}), ${USERS} users${mode !== 'create' ? `, ${UPDATED} records per collection` : ''}`,
  )
  return { server, users, records }
}

function load(side: Side, kind: Kind, mode: 'create' | 'update'): LoadSpec {
  let n = 0
  const records = mode === 'update' ? cycle(side.records[kind]) : null
  return {
    connections: CONNECTIONS,
    next: () => {
      n++
      return !records
        ? {
            method: 'POST',
            path: `/api/collections/v_${kind}/records`,
            body: JSON.stringify(body(side.users, n)),
          }
        : {
            method: 'PATCH',
            path: `/api/collections/v_${kind}/records/${records()}`,
            body: JSON.stringify({ editors: editors(side.users, n) }),
          }
    },
  }
}

/** The read scenarios of `--mode=reads`, over the plain collection's records. */
const READS = {
  view: (ids: () => string) => ({
    method: 'GET' as const,
    path: `/api/collections/v_plain/records/${ids()}`,
  }),
  'list 20': () => ({
    method: 'GET' as const,
    path: '/api/collections/v_plain/records?perPage=20&sort=-created&skipTotal=1',
  }),
  'list 20, filter': () => ({
    method: 'GET' as const,
    path: `/api/collections/v_plain/records?perPage=20&skipTotal=1&filter=${encodeURIComponent('title ~ "Post 1"')}`,
  }),
} as const

function readLoad(side: Side, name: keyof typeof READS): LoadSpec {
  const ids = cycle(side.records.plain)
  return { connections: CONNECTIONS, next: () => READS[name](ids) }
}

const fmt = (a: Measurement, b: Measurement) =>
  `${Math.round(a.reqPerSec)} ÷ ${Math.round(b.reqPerSec)} = ${(a.reqPerSec / b.reqPerSec).toFixed(2)}${a.errors + b.errors ? ` (${a.errors + b.errors} failed)` : ''}`

const tmp = mkdtempSync(join(tmpdir(), 'svcbase-versions-'))
const mode = args.mode
const sides: Side[] = []
try {
  const self = await prepare('this', ROOT, tmp, mode)
  sides.push(self)
  const other = await prepare('other', resolve(args.other), tmp, mode)
  sides.push(other)
  if (mode === 'reads') {
    for (let pass = 1; pass <= Number(args.passes); pass++)
      for (const name of Object.keys(READS) as (keyof typeof READS)[]) {
        const pair = await measurePair(
          { url: self.server.url, spec: readLoad(self, name) },
          { url: other.server.url, spec: readLoad(other, name) },
          DURATION,
          WARMUP,
        )
        log(`pass ${pass} ${name}: this ÷ other ${fmt(pair.a, pair.b)}`)
      }
  }
  const modes =
    mode === 'reads'
      ? []
      : mode === 'both'
        ? (['create', 'update'] as const)
        : [mode as 'create' | 'update']
  for (let pass = 1; pass <= Number(args.passes); pass++)
    for (const m of modes) {
      const target = (side: Side, kind: Kind) => ({
        url: side.server.url,
        spec: load(side, kind, m),
      })
      const issue = await measurePair(
        target(self, 'junction'),
        target(other, 'junction'),
        DURATION,
        WARMUP,
      )
      const row = await measurePair(
        target(self, 'junction'),
        target(self, 'plain'),
        DURATION,
        WARMUP,
      )
      log(
        `pass ${pass} ${m}: this with the junction ÷ other (issue's measure) ${fmt(issue.a, issue.b)}; ÷ this without (bench row) ${fmt(row.a, row.b)}`,
      )
    }
} finally {
  for (const s of sides) await s.server.stop()
  rmSync(tmp, { recursive: true, force: true })
}
