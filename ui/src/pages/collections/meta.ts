import type { PageMeta } from '../../pages'

/** The home page: the collections sidebar and the records of the chosen collection. */
export const meta: PageMeta = { title: 'Collections', nav: true, order: 10 }
