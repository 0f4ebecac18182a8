/**
 * Hash routing (`#/collections?collection=posts`), as PocketBase's dashboard: the server serves
 * only `/_/`, and a deep link works after a reload. The route is a signal; pages read it.
 */
import { signal } from '@preact/signals'

/** The current route: its path segments and query. */
export interface Route {
  /** Path segments (`#/auth/confirm-verification/TOKEN` → `['auth', 'confirm-verification', 'TOKEN']`). */
  parts: string[]
  query: URLSearchParams
}

function parse(hash: string): Route {
  const raw = hash.replace(/^#\/?/, '')
  const q = raw.indexOf('?')
  const path = q === -1 ? raw : raw.slice(0, q)
  const query = new URLSearchParams(q === -1 ? '' : raw.slice(q + 1))
  const parts = path
    .split('/')
    .filter((p) => p !== '')
    .map((p) => {
      try {
        return decodeURIComponent(p)
      } catch {
        return p
      }
    })
  return { parts, query }
}

/** The route now. */
export const route = signal<Route>(parse(window.location.hash))

window.addEventListener('hashchange', () => {
  route.value = parse(window.location.hash)
})

/** The hash of a path and query (`href('collections', {collection: 'posts'})`). */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const q = new URLSearchParams()
  for (const [k, v] of Object.entries(query)) if (v !== undefined && v !== '') q.set(k, v)
  const s = q.toString()
  return `#/${path}${s ? `?${s}` : ''}`
}

/** Goes to a path; `replace` keeps the history entry (query changes of one page). */
export function navigate(
  path: string,
  query: Record<string, string | undefined> = {},
  replace = false,
): void {
  const next = href(path, query)
  if (replace) {
    window.history.replaceState(null, '', next)
    route.value = parse(next)
  } else window.location.hash = next
}
