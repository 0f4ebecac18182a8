/** The differential corpus's groups, each run on a fresh server (test/pocketbase/harness.ts). */
import type { Group } from '../harness.js'
import { admin } from './admin.js'
import { auth } from './auth.js'
import { fields } from './fields.js'
import { files } from './files.js'
import { lists } from './lists.js'
import { realtime } from './realtime.js'
import { records } from './records.js'

export const GROUPS: Group[] = [records, fields, lists, auth, files, admin, realtime]
