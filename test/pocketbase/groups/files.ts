/** The files group of the differential corpus (being written). */
import type { Group } from '../harness.js'

export const files: Group = { name: 'files', steps: [] }
