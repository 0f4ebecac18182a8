import type { PageMeta } from '../../pages'

/** Import collections (linked from the settings page). */
export const meta: PageMeta = { title: 'Import collections', nav: false, order: 90 }
