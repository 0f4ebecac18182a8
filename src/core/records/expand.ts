import { column, join, param, sql, type Sql } from '../../store/sql.js'
import type { App } from '../app.js'
import { ApiError, badRequest, messages } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import type { Collection, Field } from '../collections/model.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import { enrichRecords } from './enrich.js'
import { MAIN, ruleCondition, selectFrom } from './query.js'
import { recordFromRow, serializeRecord } from './serialize.js'

/** The deepest `expand` path (reference §0.9). */
export const MAX_EXPAND_DEPTH = 6
/** The most back-related records expanded per record (reference §0.9). */
export const MAX_BACK_RELATIONS = 1000
/**
 * The most expanded records one response may hold, counting every copy: a record expanded under
 * 20 parents counts 20 times, as it is written 20 times in the JSON.
 */
export const MAX_EXPANDED_RECORDS = 10_000
/** The most ids bound in one query (SQLite accepts 32 766 parameters, PostgreSQL 65 535). */
const IDS_PER_QUERY = 1000
/** Rows read since the last yield after which an expansion lets other requests run. */
const YIELD_EVERY_ROWS = 500

/** A parsed `expand` parameter: each key is a relation name with its nested paths. */
export type ExpandTree = Map<string, ExpandTree>

/**
 * Parses `rel1,rel2.sub,posts_via_author` into a tree. Spaces are ignored and empty entries
 * skipped; a path deeper than 6 levels or with an empty segment (`a..b`) is dropped (a path with an unknown key too, by `knownPaths`), as
 * PocketBase ignores it.
 */
export function parseExpand(text: string): ExpandTree {
  const root: ExpandTree = new Map()
  for (const raw of text.split(',')) {
    const path = raw.replace(/\s+/g, '')
    if (path === '') continue
    const parts = path.split('.')
    if (parts.some((p) => p === '') || parts.length > MAX_EXPAND_DEPTH) continue
    let node = root
    for (const p of parts) {
      let next = node.get(p)
      if (!next) {
        next = new Map()
        node.set(p, next)
      }
      node = next
    }
  }
  return root
}

/** How one expand key resolves against a collection. */
interface Link {
  target: Collection
  field: Field
  /** Back-relation: the field lives on `target` and points at our records. */
  back: boolean
  /** True when the expanded value is one record rather than a list. */
  single: boolean
}

/** One resolved step of an expand tree. */
interface ExpandNode {
  key: string
  /** The full path from the expanded collection, for messages. */
  path: string
  link: Link
  children: ExpandNode[]
}

const isMulti = (field: Field): boolean => getFieldType('relation')!.isMulti(field)

/** Resolves `key` on `c`, or null when it names no relation (own or back-relation). */
function resolveLink(app: App, c: Collection, key: string): Link | null {
  const own = c.fields.find((f) => f.name === key)
  if (own) {
    if (own.type !== 'relation') return null
    const target = app.registry.find(String(own.options.collectionId))
    return target ? { target, field: own, back: false, single: !isMulti(own) } : null
  }
  // NB: `collection(field)` is PocketBase's deprecated spelling of `collection_via_field`.
  const m = /^(\w+)_via_(\w+)$/.exec(key) ?? /^(\w+)\((\w+)\)$/.exec(key)
  const target = m ? app.registry.find(m[1]!) : undefined
  if (!m || !target) return null
  const field = target.fields.find(
    (f) => f.name === m[2] && f.type === 'relation' && f.options.collectionId === c.id,
  )
  return field ? { target, field, back: true, single: !isMulti(field) && field.unique } : null
}

/**
 * The paths of an `expand` parameter whose every key names a relation, joined again: as in
 * PocketBase, a path with one unknown key is dropped whole (`tags.nope` expands nothing, not
 * `tags`), while the other paths stand.
 */
function knownPaths(app: App, c: Collection, expand: string): string {
  const kept: string[] = []
  for (const raw of expand.split(',')) {
    let at: Collection | null = c
    for (const key of raw.replace(/\s+/g, '').split('.')) {
      const link: Link | null = at && key !== '' ? resolveLink(app, at, key) : null
      at = link ? link.target : null
    }
    if (at) kept.push(raw)
  }
  return kept.join(',')
}

/**
 * Resolves a parsed tree against the schema, before any record is read. A key that names no
 * relation is dropped, as PocketBase does: the answer holds what exists.
 */
function resolveTree(app: App, c: Collection, tree: ExpandTree, prefix: string): ExpandNode[] {
  const nodes: ExpandNode[] = []
  for (const [key, sub] of tree) {
    const path = prefix === '' ? key : `${prefix}.${key}`
    const link = resolveLink(app, c, key)
    if (!link) continue
    // NB: recursion over the parsed tree, at most MAX_EXPAND_DEPTH deep.
    nodes.push({ key, path, link, children: resolveTree(app, link.target, sub, path) })
  }
  return nodes
}

/** The running costs of one expansion. */
interface Budget {
  /** Expanded records still allowed in the response. */
  left: number
  /** Rows read since the event loop last had a turn. */
  sinceYield: number
}

/** The leaf paths of a node, for the message of an exceeded budget (at most three). */
function describe(node: ExpandNode): string {
  const leaves: string[] = []
  const stack = [node]
  while (stack.length > 0) {
    const n = stack.pop()!
    if (n.children.length === 0) leaves.push(n.path)
    else stack.push(...[...n.children].reverse())
  }
  const shown = leaves.slice(0, 3).map((p) => `"${p}"`)
  return shown.join(', ') + (leaves.length > 3 ? ', …' : '')
}

function overBudget(node: ExpandNode): ApiError {
  return badRequest(messages.expandLimit({ paths: describe(node), max: MAX_EXPANDED_RECORDS }))
}

/** Lets other requests run (timers, sockets) between the reads of a large expansion. */
function yieldToLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/**
 * The records of `link.target` related to `records`, passing the target's viewRule, at most
 * `limit` distinct rows. The ids are bound in chunks, so no query carries more parameters than
 * the database accepts however many ids the relations hold.
 */
async function fetchRelated(
  app: App,
  link: Link,
  records: RecordData[],
  info: RequestInfo,
  limit: number,
): Promise<RecordData[]> {
  let rule: Sql | null
  try {
    rule = ruleCondition(app, link.target, 'viewRule', info)
  } catch (err) {
    if (err instanceof ApiError) return [] // a null viewRule hides the relation from non-superusers
    throw err
  }
  const db = app.dbFor(link.target)
  let keys: string[]
  let condition: (ids: Sql) => Sql
  if (!link.back) {
    const ids = new Set<string>()
    for (const r of records) {
      const v = r[link.field.name]
      for (const id of Array.isArray(v) ? v : [v])
        if (typeof id === 'string' && id !== '') ids.add(id)
    }
    keys = [...ids]
    condition = (ids) => sql`${column(MAIN, 'id')} IN (${ids})`
  } else {
    keys = records.map((r) => String(r.id))
    const col = column(MAIN, link.field.name)
    if (isMulti(link.field)) {
      const each = db.dialect.jsonEach(col, '__x')
      condition = (ids) => sql`EXISTS (SELECT 1 FROM ${each.from} WHERE ${each.value} IN (${ids}))`
    } else {
      condition = (ids) => sql`${col} IN (${ids})`
    }
    limit = Math.min(limit, MAX_BACK_RELATIONS * records.length)
  }
  // NB: a record may match ids of two chunks (a multiple back-relation): rows are deduplicated.
  // One query returns distinct rows, so a chunk that fills `limit` alone reaches the limit.
  const found = new Map<string, RecordData>()
  for (let i = 0; i < keys.length && found.size < limit; i += IDS_PER_QUERY) {
    const ids = join(keys.slice(i, i + IDS_PER_QUERY).map((id) => param(id)))
    const rows = await db.all(
      sql`${selectFrom(link.target, [condition(ids), rule])} LIMIT ${limit}`,
    )
    for (const row of rows) {
      const record = recordFromRow(link.target, row)
      found.set(String(record.id), record)
    }
  }
  return [...found.values()].slice(0, limit)
}

/** For each record, the related records it shows under `link` (forward ids or back-references). */
function itemsOf(link: Link, records: RecordData[], related: RecordData[]): number[][] {
  const index = new Map<string, number>()
  related.forEach((r, i) => index.set(String(r.id), i))
  if (!link.back) {
    return records.map((r) => {
      const v = r[link.field.name]
      const out: number[] = []
      for (const id of Array.isArray(v) ? v : [v]) {
        const i = typeof id === 'string' ? index.get(id) : undefined
        if (i !== undefined) out.push(i)
      }
      return out
    })
  }
  const byParent = new Map<string, number[]>()
  related.forEach((x, i) => {
    const v = x[link.field.name]
    for (const id of Array.isArray(v) ? v : [v]) {
      if (typeof id !== 'string') continue
      const list = byParent.get(id)
      if (!list) byParent.set(id, [i])
      else if (list.length < MAX_BACK_RELATIONS) list.push(i)
    }
  })
  return records.map((r) => byParent.get(String(r.id)) ?? [])
}

/**
 * Expands `nodes` on `records` and returns, for each record, how many expanded records its
 * `expand` holds (every copy counted). Reads stop once the budget is spent: every record read is
 * shown at least once, so more rows than the budget allows means the response would be too large.
 * NB: back-relation rows past the 1000 shown per record are not shown but still count as read.
 */
async function expandLevel(
  app: App,
  records: RecordData[],
  nodes: ExpandNode[],
  info: RequestInfo,
  budget: Budget,
): Promise<number[]> {
  const weights = new Array<number>(records.length).fill(0)
  if (records.length === 0) return weights
  const ctx: RequestInfo = { ...info, context: 'expand' }
  for (const node of nodes) {
    if (budget.sinceYield >= YIELD_EVERY_ROWS) {
      budget.sinceYield = 0
      await yieldToLoop()
    }
    const { link } = node
    const related = await fetchRelated(app, link, records, ctx, budget.left + 1)
    budget.sinceYield += related.length
    if (related.length > budget.left) throw overBudget(node)
    budget.left -= related.length
    const below = await expandLevel(app, related, node.children, info, budget)
    const shown = related.map((r) => serializeRecord(link.target, r, info))
    await enrichRecords(app, link.target, related, shown, ctx)
    const items = itemsOf(link, records, related)
    let total = 0
    records.forEach((r, i) => {
      const mine = link.single ? items[i]!.slice(0, 1) : items[i]!
      for (const j of mine) weights[i]! += 1 + below[j]!
      total += weights[i]!
      // NB: `expand: {}` on a record a known path found nothing for, as PocketBase answers.
      const expand = (r.expand ??= {}) as Record<string, unknown>
      if (mine.length === 0) return
      if (link.single) expand[node.key] = shown[mine[0]!]
      else expand[node.key] = mine.map((j) => shown[j])
    })
    if (total > MAX_EXPANDED_RECORDS) throw overBudget(node)
  }
  return weights
}

/**
 * Adds `expand` to each record for the requested relation paths, up to 6 levels, including
 * back-relations. Each expanded record is checked with its own collection's viewRule (with
 * `@request.context = "expand"`); records the requester may not view are silently left out.
 * A malformed or unknown path is dropped (PocketBase ignores it too); an expansion that would
 * hold more than {@link MAX_EXPANDED_RECORDS} records answers 400; a large expansion yields to
 * the event loop between its reads.
 */
export async function expandRecords(
  app: App,
  c: Collection,
  records: RecordData[],
  expand: string,
  info: RequestInfo,
): Promise<void> {
  const nodes = resolveTree(app, c, parseExpand(knownPaths(app, c, expand)), '')
  const budget: Budget = { left: MAX_EXPANDED_RECORDS, sinceYield: 0 }
  await expandLevel(app, records, nodes, info, budget)
}
