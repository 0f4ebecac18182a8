/** The admin group of the differential corpus (being written). */
import type { Group } from '../harness.js'

export const admin: Group = { name: 'admin', steps: [] }
