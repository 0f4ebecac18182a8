/**
 * `npm run oracle:diff [-- --pg] [group...]`: replays the differential corpus against svcbase and
 * prints every difference from PocketBase's recorded answers, allowed or not (the test in
 * test/pocketbase-differential.test.ts fails on those test/pocketbase/allowed.ts does not list).
 */
import { GROUPS } from './groups/index.js'
import { allowedBy } from './allowed.js'
import { replayGroup } from './replay.js'

const args = process.argv.slice(2)
const pg = args.includes('--pg')
const wanted = args.filter((a) => a !== '--pg')
let total = 0
let unexplained = 0
for (const group of GROUPS.filter((g) => !wanted.length || wanted.includes(g.name))) {
  const diffs = await replayGroup(group, pg)
  const steps = new Set(diffs.map((d) => d.step))
  console.log(`## ${group.name}: ${group.steps.length} requests, ${steps.size} differ`)
  for (const d of diffs) {
    const rule = allowedBy(d)
    if (!rule) unexplained++
    console.log(`${rule ? '  allowed' : 'UNLISTED'} ${d.step} | ${d.line}`)
  }
  total += steps.size
}
console.log(
  `${total} answers differ; ${unexplained} difference lines not in test/pocketbase/allowed.ts`,
)
process.exit(0)
