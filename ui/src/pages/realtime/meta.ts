import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Realtime', nav: true, order: 50 }
