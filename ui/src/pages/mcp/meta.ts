import type { PageMeta } from '../../pages'

export const meta: PageMeta = { title: 'MCP', nav: true, order: 70 }
