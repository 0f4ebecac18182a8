/**
 * Index statements as PocketBase keeps them on a collection: as written, and an auth
 * collection's two default unique indexes in PocketBase's exact text.
 */
import { formatIndex, indexTable, parseIndex } from './indexes.js'
import type { Collection } from './model.js'

const backtick = (name: string): string => `\`${name.replaceAll('`', '``')}\``

/**
 * Keeps each index statement as written, as PocketBase does, unless it names another table than
 * the collection's (a renamed collection, a copied statement): that one is rewritten in the
 * canonical form on the collection's table. Statements that do not parse are left for validation.
 */
export function keepIndexes(collection: Collection): void {
  collection.indexes = collection.indexes.map((text) => {
    const table = indexTable(text, collection)
    const spec = parseIndex(text, collection)
    if (table === undefined || table === collection.name || typeof spec === 'string') return text
    return formatIndex(spec, collection.name)
  })
}

/** True when one of the collection's listed indexes is unique on `column` alone. */
export function hasUniqueIndexOn(collection: Collection, column: string): boolean {
  return collection.indexes.some((text) => {
    const spec = parseIndex(text, collection)
    if (typeof spec === 'string' || !spec.unique || spec.columns.length !== 1) return false
    const expr = spec.columns[0]!.expr
    return expr.kind === 'column' && expr.name.toLowerCase() === column.toLowerCase()
  })
}

/**
 * Adds PocketBase's default unique indexes of an auth collection, `idx_tokenKey_<id>` and
 * `idx_email_<id>` (`suffix`, the collection id by default), in its exact text, unless a unique
 * index on that column alone is already listed (PocketBase does so on every save).
 */
export function ensureAuthIndexes(collection: Collection, suffix = collection.id): void {
  if (collection.type !== 'auth') return
  const uniqueOn = (column: string) => hasUniqueIndexOn(collection, column)
  const table = backtick(collection.name)
  if (!uniqueOn('tokenKey'))
    collection.indexes.push(
      `CREATE UNIQUE INDEX ${backtick(`idx_tokenKey_${suffix}`)} ON ${table} (\`tokenKey\`)`,
    )
  if (!uniqueOn('email'))
    collection.indexes.push(
      `CREATE UNIQUE INDEX ${backtick(`idx_email_${suffix}`)} ON ${table} (\`email\`) WHERE \`email\` != ''`,
    )
}
