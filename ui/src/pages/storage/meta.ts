import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Storage', nav: false, order: 83 }
