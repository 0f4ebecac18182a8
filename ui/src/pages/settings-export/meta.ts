import type { PageMeta } from '../../pages'

/** Export collections (linked from the settings page). */
export const meta: PageMeta = { title: 'Export collections', nav: false, order: 90 }
