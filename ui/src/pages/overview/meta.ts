import type { PageMeta } from '../../pages'

/** Every collection's rules on one page, and a diagram of their relations. */
export const meta: PageMeta = { title: 'Overview', nav: true, order: 20 }
