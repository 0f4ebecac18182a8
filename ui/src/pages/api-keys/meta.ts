import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'API keys', nav: false, order: 41 }
