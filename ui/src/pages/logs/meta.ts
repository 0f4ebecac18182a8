import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Logs', nav: true, order: 30 }
