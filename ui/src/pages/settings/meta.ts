import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Settings', nav: true, order: 40 }
