/**
 * Replays the differential corpus against svcbase (a fresh in-process server per group, on
 * SQLite or on PostgreSQL) and compares each answer with PocketBase's recorded one.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startOn } from '../helpers/engines.js'
import { SU_EMAIL, SU_PASSWORD } from '../helpers/server.js'
import {
  chosenIds,
  diff,
  normalise,
  runGroup,
  SUPERUSER,
  type Answer,
  type Group,
  type Recording,
} from './harness.js'

const ANSWERS = fileURLToPath(new URL('./answers/', import.meta.url))

if (SU_EMAIL !== SUPERUSER.email || SU_PASSWORD !== SUPERUSER.password)
  throw new Error('the harness superuser must be the test servers’ one')

/** One differing line, `<group> / <step> / <status|body.path>: pb → svc`. */
export interface Difference {
  group: string
  step: string
  line: string
  /** PocketBase's recorded answer to the step. */
  pb?: Answer
}

export function recording(group: string): Recording {
  return JSON.parse(readFileSync(join(ANSWERS, `${group}.json`), 'utf8')) as Recording
}

/** Runs `group` on a fresh svcbase and returns every difference from the recording. */
export async function replayGroup(group: Group, pg: boolean): Promise<Difference[]> {
  const rec = recording(group.name)
  const t = await startOn(pg)
  try {
    const raw = await runGroup(t.url, group)
    const ids = chosenIds(group)
    const out: Difference[] = []
    const recorded = new Map(rec.answers.map((a) => [a.name, a]))
    for (const a of raw) {
      const pb = recorded.get(a.name)
      if (!pb) {
        out.push({
          group: group.name,
          step: a.name,
          line: 'not recorded: run npm run oracle:record',
        })
        continue
      }
      if (pb.status !== a.status)
        out.push({
          group: group.name,
          step: a.name,
          line: `status: ${pb.status} → ${a.status}`,
          pb,
        })
      for (const line of diff(pb.body, normalise(a.body, ids), 'body'))
        out.push({ group: group.name, step: a.name, line, pb })
    }
    return out
  } finally {
    await t.close()
  }
}
