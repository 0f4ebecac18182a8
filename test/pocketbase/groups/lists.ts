/** The lists group of the differential corpus (being written). */
import type { Group } from '../harness.js'

export const lists: Group = { name: 'lists', steps: [] }
