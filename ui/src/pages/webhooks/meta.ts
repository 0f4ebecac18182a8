import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Webhooks', nav: false, order: 42 }
