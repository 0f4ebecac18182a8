/**
 * The signed-in pages, each loaded on first use (dynamic `import()`, so the first load stays
 * small). A page is reached at `#/<id>`; `nav` places it in the top bar. A new page adds a line.
 */
import type { FunctionComponent } from 'preact'
import type { Route } from './router'

/** What a page gets: the route it was opened with (`parts[0]` is its id). */
export interface PageProps {
  route: Route
}

export interface Page {
  id: string
  title: string
  /** Shown in the top bar (in this order). */
  nav: boolean
  load: () => Promise<{ default: FunctionComponent<PageProps> }>
}

export const pages: Page[] = []

/** The page a signed-in superuser lands on. */
export const HOME = 'collections'
