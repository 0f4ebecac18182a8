/**
 * The collections sidebar: a search box, the collections (sorted by type, then name) with a type
 * marker, the system collections behind a "System" toggle (open while searching), "New
 * collection", and a cog per collection opening the collection editor.
 */
import type { CollectionModel } from 'pocketbase'
import { useState } from 'preact/hooks'
import { href } from '../../router'

const TYPE_ORDER: Record<string, number> = { auth: 0, base: 1, view: 2 }
const TYPE_MARK: Record<string, string> = { base: 'B', auth: 'A', view: 'V' }

function sortCollections(list: CollectionModel[]): CollectionModel[] {
  return [...list].sort(
    (a, b) => (TYPE_ORDER[a.type] ?? 9) - (TYPE_ORDER[b.type] ?? 9) || a.name.localeCompare(b.name),
  )
}

export function Sidebar(props: {
  collections: CollectionModel[]
  active: string
  /** Opens the collection editor (absent while the editor is not built). */
  onEdit?: (c: CollectionModel | null) => void
}) {
  const [search, setSearch] = useState('')
  const [showSystem, setShowSystem] = useState(false)
  const term = search.trim().toLowerCase()
  const matching = props.collections.filter((c) => !term || c.name.toLowerCase().includes(term))
  const mine = sortCollections(matching.filter((c) => !c.system))
  const system = sortCollections(matching.filter((c) => c.system))
  const systemOpen = showSystem || term !== '' || system.some((c) => c.name === props.active)

  const item = (c: CollectionModel) => (
    <li key={c.id} class="collection-item">
      <a
        href={href('collections', { collection: c.name })}
        aria-current={c.name === props.active ? 'page' : undefined}
      >
        <span
          class={`type-mark type-${c.type}`}
          title={`${c.type} collection`}
          aria-label={`${c.type} collection`}
        >
          {TYPE_MARK[c.type] ?? '?'}
        </span>
        <span class="collection-name">{c.name}</span>
      </a>
      {props.onEdit && (
        <button
          type="button"
          class="cog"
          aria-label={`Edit collection ${c.name}`}
          title="Collection settings"
          onClick={() => props.onEdit?.(c)}
        >
          ⚙
        </button>
      )}
    </li>
  )

  return (
    <nav class="sidebar collections-sidebar" aria-label="Collections">
      <label class="sr-only" for="collections-search">
        Search collections
      </label>
      <input
        id="collections-search"
        type="search"
        placeholder="Search collections…"
        value={search}
        onInput={(e) => setSearch(e.currentTarget.value)}
      />
      <ul class="collection-list">{mine.map(item)}</ul>
      {matching.length === 0 && (
        <p class="muted">
          No collections found.{' '}
          <button type="button" class="btn btn-link" onClick={() => setSearch('')}>
            Clear search
          </button>
        </p>
      )}
      {system.length > 0 && (
        <div class="system-group">
          <button
            type="button"
            class="btn btn-link system-toggle"
            aria-expanded={systemOpen}
            onClick={() => setShowSystem(!showSystem)}
          >
            {systemOpen ? '▾' : '▸'} System ({system.length})
          </button>
          {systemOpen && <ul class="collection-list">{system.map(item)}</ul>}
        </div>
      )}
      {props.onEdit && (
        <button
          type="button"
          class="btn btn-secondary new-collection"
          onClick={() => props.onEdit?.(null)}
        >
          + New collection
        </button>
      )}
    </nav>
  )
}
