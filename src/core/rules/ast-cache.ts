/** A bounded cache of parsed filters: parsing is pure, and rules are compiled on every request. */
import { parseFilter, type FilterNode } from '../../tools/filter/index.js'

const CAPACITY = 1000
const cache = new Map<string, FilterNode>()

/**
 * Parses `text` (see `parseFilter`), reusing the frozen tree of an earlier parse. Least recently
 * used entries are evicted past 1000; syntax errors are not cached.
 */
export function parseCached(text: string): FilterNode {
  const hit = cache.get(text)
  if (hit !== undefined) {
    cache.delete(text)
    cache.set(text, hit)
    return hit
  }
  const node = parseFilter(text)
  if (cache.size >= CAPACITY) cache.delete(cache.keys().next().value!)
  cache.set(text, node)
  return node
}
