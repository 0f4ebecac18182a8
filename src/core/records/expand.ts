import { column, join, param, sql, type Sql } from '../../store/sql.js'
import type { App } from '../app.js'
import { ApiError } from '../errors.js'
import { getFieldType } from '../fields/registry.js'
import type { Collection, Field } from '../collections/model.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import { MAIN, ruleCondition, selectFrom } from './query.js'
import { recordFromRow, serializeRecord } from './serialize.js'

/** The deepest `expand` path (reference §0.9). */
export const MAX_EXPAND_DEPTH = 6
/** The most back-related records expanded per record. */
const MAX_BACK_RELATIONS = 1000

/** A parsed `expand` parameter: each key is a relation name with its nested paths. */
export type ExpandTree = Map<string, ExpandTree>

/** Parses `rel1,rel2.sub,posts_via_author` into a tree, dropping paths deeper than 6. */
export function parseExpand(text: string): ExpandTree {
  const root: ExpandTree = new Map()
  for (const raw of text.split(',')) {
    const parts = raw.replace(/\s+/g, '').split('.').filter(Boolean)
    if (parts.length === 0 || parts.length > MAX_EXPAND_DEPTH) continue
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

function resolveLink(app: App, c: Collection, key: string): Link | null {
  const own = c.fields.find((f) => f.name === key && f.type === 'relation')
  if (own) {
    const target = app.registry.find(String(own.options.collectionId))
    return target
      ? { target, field: own, back: false, single: !getFieldType('relation')!.isMulti(own) }
      : null
  }
  const m = /^(\w+)_via_(\w+)$/.exec(key)
  if (!m) return null
  const target = app.registry.find(m[1]!)
  const field = target?.fields.find(
    (f) => f.name === m[2] && f.type === 'relation' && f.options.collectionId === c.id,
  )
  if (!target || !field) return null
  const single = !getFieldType('relation')!.isMulti(field) && field.unique
  return { target, field, back: true, single }
}

/** The records of `link.target` related to `records`, passing the target's viewRule. */
async function fetchRelated(
  app: App,
  link: Link,
  records: RecordData[],
  info: RequestInfo,
): Promise<RecordData[]> {
  let rule: Sql | null
  try {
    rule = ruleCondition(app, link.target, 'viewRule', info)
  } catch (err) {
    if (err instanceof ApiError) return [] // a null viewRule hides the relation from non-superusers
    throw err
  }
  const db = app.dbFor(link.target)
  let condition: Sql
  if (!link.back) {
    const ids = new Set<string>()
    for (const r of records) {
      const v = r[link.field.name]
      for (const id of Array.isArray(v) ? v : [v])
        if (typeof id === 'string' && id !== '') ids.add(id)
    }
    if (ids.size === 0) return []
    condition = sql`${column(MAIN, 'id')} IN (${join([...ids].map((id) => param(id)))})`
  } else {
    const ids = records.map((r) => param(String(r.id)))
    if (ids.length === 0) return []
    const col = column(MAIN, link.field.name)
    if (getFieldType('relation')!.isMulti(link.field)) {
      const each = db.dialect.jsonEach(col, '__x')
      condition = sql`EXISTS (SELECT 1 FROM ${each.from} WHERE ${each.value} IN (${join(ids)}))`
    } else {
      condition = sql`${col} IN (${join(ids)})`
    }
  }
  const limit = link.back ? MAX_BACK_RELATIONS * records.length : 100_000
  const rows = await db.all(sql`${selectFrom(link.target, [condition, rule])} LIMIT ${limit}`)
  return rows.map((row) => recordFromRow(link.target, row))
}

/**
 * Adds `expand` to each record for the requested relation paths, up to 6 levels, including
 * back-relations. Each expanded record is checked with its own collection's viewRule (with
 * `@request.context = "expand"`); records the requester may not view are silently left out.
 */
export async function expandRecords(
  app: App,
  c: Collection,
  records: RecordData[],
  tree: ExpandTree,
  info: RequestInfo,
): Promise<void> {
  if (tree.size === 0 || records.length === 0) return
  const ctx: RequestInfo = { ...info, context: 'expand' }
  for (const [key, sub] of tree) {
    const link = resolveLink(app, c, key)
    if (!link) continue
    const related = await fetchRelated(app, link, records, ctx)
    await expandRecords(app, link.target, related, sub, info)
    const byId = new Map(related.map((r) => [String(r.id), serializeRecord(link.target, r, info)]))
    for (const r of records) {
      const expand = (r.expand ??= {}) as Record<string, unknown>
      if (!link.back) {
        const v = r[link.field.name]
        if (Array.isArray(v)) {
          const items = v.map((id) => byId.get(String(id))).filter((x) => x !== undefined)
          if (items.length > 0) expand[key] = items
        } else if (typeof v === 'string' && byId.has(v)) {
          expand[key] = byId.get(v)
        }
        continue
      }
      const mine = related.filter((x) => {
        const v = x[link.field.name]
        return Array.isArray(v) ? v.includes(r.id) : v === r.id
      })
      const items = mine.slice(0, MAX_BACK_RELATIONS).map((x) => byId.get(String(x.id)))
      if (items.length > 0) expand[key] = link.single ? items[0] : items
    }
  }
}
