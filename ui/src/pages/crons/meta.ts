import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'Crons', nav: false, order: 81 }
