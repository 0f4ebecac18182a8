import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'SQL console', nav: false, order: 82 }
