/**
 * The signed-in pages, found by file name: each page is a folder `ui/src/pages/<id>/` with
 * - `meta.ts`: `export const meta: PageMeta = { title, nav, order }` (loaded at start, tiny);
 * - `index.tsx`: `export default function Page(props: PageProps)` (loaded on first use, so the
 *   first load stays small).
 * A page is reached at `#/<id>`. A new page is a new folder; nothing else to edit.
 */
import type { FunctionComponent } from 'preact'
import type { Route } from './router'

/** What a page gets: the route it was opened with (`parts[0]` is its id). */
export interface PageProps {
  route: Route
}

/** What a page says about itself in its `meta.ts`. */
export interface PageMeta {
  title: string
  /** Shown in the top bar (in `order`). */
  nav: boolean
  /** Place in the top bar, smaller first. */
  order: number
}

export interface Page extends PageMeta {
  id: string
  load: () => Promise<{ default: FunctionComponent<PageProps> }>
}

const metas = import.meta.glob<{ meta: PageMeta }>('./pages/*/meta.ts', { eager: true })
const modules = import.meta.glob<{ default: FunctionComponent<PageProps> }>('./pages/*/index.tsx')

/** Every page, in top-bar order. */
export const pages: Page[] = Object.entries(metas)
  .map(([path, m]) => {
    const id = /\.\/pages\/([^/]+)\/meta\.ts$/.exec(path)![1]!
    const load = modules[`./pages/${id}/index.tsx`]
    if (!load) throw new Error(`ui/src/pages/${id}/ has a meta.ts but no index.tsx`)
    return { ...m.meta, id, load }
  })
  .sort((a, b) => a.order - b.order || a.id.localeCompare(b.id))

/** The page a signed-in superuser lands on. */
export const HOME = 'collections'
