/**
 * Expand chains: random `expand` parameters (valid, unknown or too deep: ignored; over the budget) with
 * simple filters, as a superuser and as a guest, checked against a reference expansion.
 * Set FUZZ_SEED to explore other graphs and chains (test/helpers/fuzz.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SEED, prng, type Who } from './helpers/fuzz.js'
import { startServer, type TestServer } from './helpers/server.js'

/** The most expanded records in one response (src/core/records/expand.ts). */
const EXPAND_BUDGET = 10_000

interface GraphRecord {
  id: string
  [key: string]: unknown
}
/** A skeleton of an expanded record: its id and its own expansions. */
interface Skeleton {
  id: string
  expand?: Record<string, Skeleton | Skeleton[]>
}
type Link = { target: string; field: string; back: boolean; single: boolean }

describe('expand fuzz', () => {
  let t: TestServer
  const data: Record<string, GraphRecord[]> = { gn: [], gt: [], gp: [], gs: [] }
  const rng = prng(SEED + 10)
  const failures: string[] = []
  const fail = (what: string, query: string, detail: unknown): void => {
    if (failures.length < 100)
      failures.push(`${what} [seed ${SEED}] ${query}: ${JSON.stringify(detail).slice(0, 400)}`)
  }

  /** The relations of each collection, by expand key (back-relations included). */
  const LINKS: Record<string, Record<string, Link>> = {
    gn: {
      next: { target: 'gn', field: 'next', back: false, single: true },
      links: { target: 'gn', field: 'links', back: false, single: false },
      secret: { target: 'gs', field: 'secret', back: false, single: true },
      gn_via_next: { target: 'gn', field: 'next', back: true, single: false },
      gn_via_links: { target: 'gn', field: 'links', back: true, single: false },
      gt_via_node: { target: 'gt', field: 'node', back: true, single: false },
      'gt(node)': { target: 'gt', field: 'node', back: true, single: false },
      gp_via_node: { target: 'gp', field: 'node', back: true, single: true },
    },
    gt: { node: { target: 'gn', field: 'node', back: false, single: true } },
    gp: { node: { target: 'gn', field: 'node', back: false, single: true } },
    gs: {},
  }
  const visible = (collection: string, r: GraphRecord, who: Who): boolean =>
    who === 'su' || (collection === 'gn' ? r.hide === false : collection !== 'gs')

  function related(link: Link, r: GraphRecord, who: Who): GraphRecord[] {
    const pool = data[link.target]!.filter((x) => visible(link.target, x, who))
    if (!link.back) {
      const v = r[link.field]
      const ids = Array.isArray(v) ? (v as string[]) : typeof v === 'string' && v ? [v] : []
      return ids.flatMap((id) => pool.filter((x) => x.id === id))
    }
    const found = pool.filter((x) => {
      const v = x[link.field]
      return Array.isArray(v) ? v.includes(r.id) : v === r.id
    })
    return link.single ? found.slice(0, 1) : found
  }

  type Tree = Map<string, Tree>
  /**
   * Parses like the server: a path with an empty segment, over 6 levels, or with a key naming no
   * relation is dropped whole, as PocketBase ignores it; `dropped` counts them.
   */
  function parse(expand: string, dropped: { n: number }): Tree {
    const root: Tree = new Map()
    for (const raw of expand.split(',')) {
      const path = raw.replace(/\s+/g, '')
      if (path === '') continue
      const parts = path.split('.')
      let collection: string | undefined = 'gn'
      for (const p of parts) collection = collection ? LINKS[collection]![p]?.target : undefined
      if (parts.length > 6 || !collection) {
        dropped.n++
        continue
      }
      let node = root
      for (const p of parts) {
        if (!node.has(p)) node.set(p, new Map())
        node = node.get(p)!
      }
    }
    return root
  }
  /** How many expanded records `r` carries under `tree` (every copy counted), memoised. */
  function weight(
    collection: string,
    r: GraphRecord,
    tree: Tree,
    who: Who,
    memo: Map<unknown, Map<string, number>>,
  ): number {
    let byRecord = memo.get(tree)
    if (!byRecord) memo.set(tree, (byRecord = new Map()))
    const known = byRecord.get(`${collection}/${r.id}`)
    if (known !== undefined) return known
    let n = 0
    for (const [key, sub] of tree) {
      const link = LINKS[collection]![key]!
      for (const x of related(link, r, who)) n += 1 + weight(link.target, x, sub, who, memo)
    }
    byRecord.set(`${collection}/${r.id}`, n)
    return n
  }
  function skeleton(collection: string, r: GraphRecord, tree: Tree, who: Who): Skeleton {
    const out: Skeleton = { id: r.id }
    // `expand: {}` when a known path found nothing; no key when every path was dropped.
    if (tree.size === 0) return out
    out.expand = {}
    for (const [key, sub] of tree) {
      const link = LINKS[collection]![key]!
      const items = related(link, r, who).map((x) => skeleton(link.target, x, sub, who))
      if (items.length === 0) continue
      out.expand[key] = link.single ? items[0]! : items
    }
    return out
  }
  /** The skeleton of a returned record; back-relation lists sorted by id (their order is free). */
  function shape(record: Record<string, unknown>): Skeleton {
    const out: Skeleton = { id: String(record.id) }
    const expand = record.expand as Record<string, unknown> | undefined
    if (expand === undefined) return out
    out.expand = {}
    for (const [key, value] of Object.entries(expand)) {
      out.expand[key] = Array.isArray(value)
        ? value.map((v) => shape(v as Record<string, unknown>))
        : shape(value as Record<string, unknown>)
    }
    return out
  }
  const sortBack = (s: Skeleton): Skeleton => {
    if (!s.expand) return s
    const expand: Record<string, Skeleton | Skeleton[]> = {}
    for (const [key, v] of Object.entries(s.expand)) {
      if (!Array.isArray(v)) expand[key] = sortBack(v)
      else {
        const items = v.map(sortBack)
        expand[key] = /_via_|\(/.test(key) ? items.sort((a, b) => a.id.localeCompare(b.id)) : items
      }
    }
    return { ...s, expand }
  }

  const FILTERS: [string, (r: GraphRecord) => boolean][] = [
    ['', () => true],
    ['hide = false', (r) => r.hide === false],
    ["name ~ '1'", (r) => String(r.name).includes('1')],
    ['links:length > 3', (r) => (r.links as string[]).length > 3],
    ['w >= 5', (r) => Number(r.w) >= 5],
  ]
  const BAD_KEYS = ['nope', 'name', 'hide', 'gt_via_nope', 'gx_via_node', 'gt_via_label', 'next2']

  /** A random expand parameter: 1–3 paths of 1–8 keys, mostly valid, sometimes not. */
  function randomExpand(): string {
    const paths: string[] = []
    for (let p = 0, n = 1 + rng.int(3); p < n; p++) {
      if (rng.chance(0.08)) {
        // a fan-out chain, often over the budget
        const len = 3 + rng.int(4)
        paths.push(Array.from({ length: len }, () => rng.pick(['links', 'gn_via_links'])).join('.'))
        continue
      }
      let collection = 'gn'
      const keys: string[] = []
      for (let k = 0, len = 1 + rng.int(rng.chance(0.1) ? 8 : 4); k < len; k++) {
        const valid = Object.keys(LINKS[collection]!)
        if (valid.length === 0 || rng.chance(0.06)) {
          keys.push(rng.chance(0.2) ? '' : rng.pick(BAD_KEYS))
          break
        }
        const key = rng.pick(valid)
        keys.push(key)
        collection = LINKS[collection]![key]!.target
      }
      paths.push(keys.join(rng.chance(0.05) ? ' . ' : '.'))
    }
    return paths.join(rng.chance(0.1) ? ', ,' : ',')
  }

  beforeAll(async () => {
    t = await startServer()
    const su = t.suToken
    const post = async (path: string, body: Record<string, unknown>, method = 'POST') => {
      const res = await t.api(method, path, { token: su, body })
      expect(res.status, `${path} ${JSON.stringify(res.body)}`).toBe(200)
      return res.body
    }
    const gs = await post('/api/collections', {
      name: 'gs',
      schema: [{ name: 'code', type: 'text' }],
    })
    const gn = await post('/api/collections', {
      name: 'gn',
      listRule: '',
      viewRule: 'hide = false',
      schema: [
        { name: 'name', type: 'text' },
        { name: 'hide', type: 'bool' },
        { name: 'w', type: 'number' },
      ],
    })
    await post(
      `/api/collections/${gn.id}`,
      {
        schema: [
          ...gn.schema,
          { name: 'next', type: 'relation', options: { collectionId: gn.id, maxSelect: 1 } },
          { name: 'links', type: 'relation', options: { collectionId: gn.id, maxSelect: 10 } },
          { name: 'secret', type: 'relation', options: { collectionId: gs.id, maxSelect: 1 } },
        ],
      },
      'PATCH',
    )
    for (const [name, schema] of [
      ['gt', [{ name: 'label', type: 'text' }]],
      ['gp', [{ name: 'bio', type: 'text' }]],
    ] as const) {
      await post('/api/collections', {
        name,
        listRule: '',
        viewRule: '',
        schema: [
          ...schema,
          {
            name: 'node',
            type: 'relation',
            unique: name === 'gp',
            options: { collectionId: gn.id, maxSelect: 1 },
          },
        ],
      })
    }
    for (let i = 0; i < 3; i++)
      data.gs!.push(await post('/api/collections/gs/records', { code: `s${i}` }))
    for (let i = 0; i < 12; i++) {
      const hide = rng.chance(0.25)
      data.gn!.push(await post('/api/collections/gn/records', { name: `n${i}`, hide, w: i }))
    }
    const gnIds = data.gn!.map((r) => r.id)
    for (const [i, r] of data.gn!.entries()) {
      const links = gnIds.filter(() => rng.chance(0.6)).slice(0, 10)
      const body = {
        next: rng.chance(0.8) ? rng.pick(gnIds) : '',
        links,
        secret: i % 4 === 0 ? data.gs![i % 3]!.id : '',
      }
      data.gn![i] = await post(`/api/collections/gn/records/${r.id}`, body, 'PATCH')
    }
    for (let i = 0; i < 15; i++) {
      const node = rng.chance(0.9) ? rng.pick(gnIds) : ''
      data.gt!.push(await post('/api/collections/gt/records', { label: `t${i}`, node }))
    }
    for (let i = 0; i < 5; i++)
      data.gp!.push(await post('/api/collections/gp/records', { bio: `p${i}`, node: gnIds[i * 2] }))
  })
  afterAll(() => t.close())

  it('random expand chains answer like the reference expansion (unknown paths ignored), or the budget 400', async () => {
    const seen = { ok: 0, unknown: 0, budget: 0 }
    for (let round = 0; round < 150; round++) {
      const expand = randomExpand()
      const [filter, keep] = rng.pick(FILTERS)
      for (const who of ['su', 'guest'] as const) {
        const query = `perPage=50&sort=name&expand=${encodeURIComponent(expand)}${filter ? `&filter=${encodeURIComponent(filter)}` : ''}`
        const res = await t.api('GET', `/api/collections/gn/records?${query}`, {
          token: who === 'su' ? t.suToken : null,
        })
        const dropped = { n: 0 }
        const tree = parse(expand, dropped)
        if (dropped.n > 0) seen.unknown++
        const listed = data
          .gn!.filter(keep)
          .sort((a, b) => String(a.name).localeCompare(String(b.name)))
        const memo = new Map()
        const total = listed.reduce((n, r) => n + weight('gn', r, tree, who, memo), 0)
        if (total > EXPAND_BUDGET) {
          seen.budget++
          if (res.status !== 400 || !/^Expand limit exceeded: expanding "/.test(res.body.message))
            fail('expected the budget error', query, { who, total, got: res.status })
          continue
        }
        seen.ok++
        if (res.status !== 200) {
          fail(`HTTP ${res.status}`, query, { who, body: res.body })
          continue
        }
        const want = listed.map((r) => sortBack(skeleton('gn', r, tree, who)))
        const got = (res.body.items as Record<string, unknown>[]).map((r) => sortBack(shape(r)))
        if (JSON.stringify(got) !== JSON.stringify(want))
          fail('expansion differs from the reference', query, { who, want, got })
      }
    }
    expect(failures).toEqual([])
    // The corpus reaches every outcome.
    expect(seen.ok).toBeGreaterThan(100)
    expect(seen.unknown).toBeGreaterThan(10)
    expect(seen.budget).toBeGreaterThan(0)
  })
})
