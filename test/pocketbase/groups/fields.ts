/** The fields group of the differential corpus (being written). */
import type { Group } from '../harness.js'

export const fields: Group = { name: 'fields', steps: [] }
