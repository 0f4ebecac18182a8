/** The auth group of the differential corpus (being written). */
import type { Group } from '../harness.js'

export const auth: Group = { name: 'auth', steps: [] }
