/**
 * What the folder tests share: the fixture (PocketBase's `pb_data` and answers), the replay of a
 * client's reads against a server serving it, and digests of a folder's files.
 */
import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { allowedBy } from '../allowed.js'
import { chosenIds, diff, normalise, runGroup, type Answer, type Group } from '../harness.js'
import { reads } from './app.js'
import type { FolderRecording } from './record.js'

/** The folder of the fixture: `app/` (`pb_data`, `pb_hooks`, `pb_migrations`), `answers.json`, … */
export const FIXTURE = new URL('./', import.meta.url).pathname

/** PocketBase's recording of the fixture. */
export const recording = JSON.parse(
  readFileSync(join(FIXTURE, 'answers.json'), 'utf8'),
) as FolderRecording

/**
 * Sends PocketBase's client's reads (`group`, `reads` by default) to `url` (with the tokens PocketBase issued) and returns each
 * difference from PocketBase's answers that test/pocketbase/allowed.ts does not list.
 */
export async function unlistedDifferences(
  url: string,
  group: Group = reads,
  answers: readonly Answer[] = recording.answers,
): Promise<string[]> {
  const raw = await runGroup(url, group, new Map(Object.entries(recording.seed)))
  const ids = chosenIds(group)
  const unlisted: string[] = []
  for (const [i, a] of raw.entries()) {
    const pb = answers[i]!
    if (pb.name !== a.name) throw new Error(`answer ${i} is ${a.name}, recorded ${pb.name}`)
    const lines = pb.status === a.status ? [] : [`status: ${pb.status} → ${a.status}`]
    lines.push(...diff(pb.body, normalise(a.body, ids), 'body'))
    for (const line of lines)
      if (!allowedBy({ group: 'folder', step: a.name, line, pb }))
        unlisted.push(`${a.name} | ${line}`)
  }
  return unlisted
}

/** Every file under `dir` with its SHA-256, by path relative to `dir`. */
export function digests(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const e of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue
    const path = join(e.parentPath, e.name)
    out[path.slice(dir.length)] = createHash('sha256').update(readFileSync(path)).digest('hex')
  }
  return out
}
