import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Backups', nav: false, order: 80 }
