import type { PageMeta } from '../../pages'

/** What a user (or a guest) gets from a collection, and which rule decides it. */
export const meta: PageMeta = { title: 'Rules simulator', nav: true, order: 60 }
