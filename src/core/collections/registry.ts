import type { Collection } from './model.js'

/**
 * Orders collection names (`\w+`) as `localeCompare` does, without it: a collator loads ICU's
 * collation data into the process (~2 MB resident for good, measured). ICU's root order: `_`
 * before digits before letters, letters compared without case first; then, at the first
 * difference in case, lower case first.
 */
export function compareNames(a: string, b: string): number {
  const pa = a.toLowerCase().replaceAll('_', '\u0001')
  const pb = b.toLowerCase().replaceAll('_', '\u0001')
  if (pa !== pb) return pa < pb ? -1 : 1
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] === pa[i] ? -1 : 1
  }
  return 0
}

/**
 * The in-memory cache of collections by id and by lower-cased name. A transaction works on a
 * fork; the fork's changes are applied to the shared registry only after commit (its changes
 * alone, so forks of transactions that committed side by side each keep theirs).
 */
export class CollectionRegistry {
  private byId: Map<string, Collection>
  private byName: Map<string, Collection>
  private changed = false
  /** What this registry changed since it was made: the collection put by id, or null if removed. */
  private readonly changes = new Map<string, Collection | null>()
  /** True while the maps are shared with the registry this one was forked from. */
  private shared = false

  constructor(items: Iterable<Collection> = []) {
    this.byId = new Map()
    this.byName = new Map()
    for (const c of items) this.put(c)
    this.changed = false
    this.changes.clear()
  }

  /** True once a collection was added, replaced or removed since this registry was made. */
  get isChanged(): boolean {
    return this.changed
  }

  /** A collection by id or name (names are matched case-insensitively). */
  find(idOrName: string): Collection | undefined {
    return this.byId.get(idOrName) ?? this.byName.get(idOrName.toLowerCase())
  }

  /** Every collection, in name order. */
  all(): Collection[] {
    return [...this.byId.values()].sort((a, b) => compareNames(a.name, b.name))
  }

  /**
   * Adds or replaces a collection. Putting one equal to the one held is no change (a reload that
   * reads every collection changes only those that differ: it does not undo, at adoption, a
   * change another transaction committed meanwhile).
   */
  put(collection: Collection): void {
    this.own()
    const old = this.byId.get(collection.id)
    if (old) this.byName.delete(old.name.toLowerCase())
    this.byId.set(collection.id, collection)
    this.byName.set(collection.name.toLowerCase(), collection)
    if (old && JSON.stringify(old) === JSON.stringify(collection)) return
    this.changed = true
    this.changes.set(collection.id, collection)
  }

  /** Removes a collection by id. */
  remove(id: string): void {
    const old = this.byId.get(id)
    if (!old) return
    this.own()
    this.byId.delete(id)
    this.byName.delete(old.name.toLowerCase())
    this.changed = true
    this.changes.set(id, null)
  }

  /** A copy for a transaction. */
  fork(): CollectionRegistry {
    // Copy-on-write: most transactions never change a collection, so they share the maps.
    const f = new CollectionRegistry()
    f.byId = this.byId
    f.byName = this.byName
    f.shared = true
    return f
  }

  /** Takes private copies of shared maps before the first change. */
  private own(): void {
    if (!this.shared) return
    this.byId = new Map(this.byId)
    this.byName = new Map(this.byName)
    this.shared = false
  }

  /**
   * Applies what a committed fork changed (new maps: other forks keep the ones they share). On
   * one writer this is the fork's contents; with transactions committing side by side, each
   * fork's own changes are kept (the database refuses two that changed one collection).
   */
  adopt(fork: CollectionRegistry): void {
    if (!fork.changed) return
    const byId = new Map(this.byId)
    const byName = new Map(this.byName)
    for (const [id, collection] of fork.changes) {
      const old = byId.get(id)
      if (old) {
        byId.delete(id)
        if (byName.get(old.name.toLowerCase()) === old) byName.delete(old.name.toLowerCase())
      }
      if (collection) {
        byId.set(id, collection)
        byName.set(collection.name.toLowerCase(), collection)
      }
    }
    this.byId = byId
    this.byName = byName
  }
}
