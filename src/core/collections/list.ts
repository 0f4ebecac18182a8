import { join, sql } from '../../store/sql.js'
import type { App } from '../app.js'
import { compileFilter, compileSort } from '../rules/index.js'
import { MAIN, parseListParams, selectFrom } from '../records/query.js'
import { collectionToJSON } from './codec.js'
import { blankCollection, makeField } from './defaults.js'
import type { Collection } from './model.js'

/** `_collections` described as a collection, so its list reuses the filter compiler. */
function catalogue(): Collection {
  const c = blankCollection('base', '_collections')
  c.fields = [
    makeField({ name: 'id', type: 'text', options: { primaryKey: true } }),
    makeField({ name: 'name', type: 'text' }),
    makeField({ name: 'type', type: 'text' }),
    makeField({ name: 'system', type: 'bool' }),
    makeField({ name: 'created', type: 'text' }),
    makeField({ name: 'updated', type: 'text' }),
  ]
  return c
}

/** Lists collections with `filter`/`sort` over id, name, type, system, created, updated. */
export async function listCollections(app: App, query: Record<string, unknown>) {
  const params = parseListParams(query, 1000, 'name')
  const cat = catalogue()
  const ctx = {
    dialect: app.db.dialect,
    collection: cat,
    alias: MAIN,
    findCollection: () => undefined,
    request: null,
    restricted: false,
  }
  const where = params.filter.trim() === '' ? null : compileFilter(params.filter, ctx)
  const order = compileSort(params.sort, ctx)
  const base = selectFrom(cat, [where], sql`${sql`id`}`)
  const rows = await app.db.all<{ id: string }>(
    sql`${base} ORDER BY ${join(order)} LIMIT ${params.perPage} OFFSET ${params.offset}`,
  )
  const total = params.skipTotal
    ? -1
    : Number(
        (await app.db.get<{ n: number }>(selectFrom(cat, [where], sql`COUNT(*) AS n`)))?.n ?? 0,
      )
  const items = rows
    .map((r) => app.registry.find(r.id))
    .filter((c): c is Collection => c !== undefined)
  return {
    page: params.page,
    perPage: params.perPage,
    totalItems: total,
    totalPages: total < 0 ? -1 : Math.ceil(total / params.perPage),
    items: items.map(collectionToJSON),
  }
}
