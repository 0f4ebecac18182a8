/**
 * The young generation while the CLI loads and once it is busy (heap.ts), in a fresh child
 * process: V8's flags and heap are per process.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const MODULE = fileURLToPath(new URL('./heap.ts', import.meta.url))

/**
 * Holds the new space while objects survive (as modules loading do), then releases it and
 * allocates request-like garbage (a few batches stay alive at a time) until the new space
 * reaches its maximum (2 × 16 MiB semi-spaces), for at most 100 batches. Prints the sizes.
 */
const SCRIPT = `
import { getHeapSpaceStatistics } from 'node:v8'
import { holdYoungGeneration, releaseYoungGeneration } from ${JSON.stringify(MODULE)}
const size = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size
const batch = () => Array.from({ length: 1000 }, (_, i) => ({ i, s: 'x' + i }))
holdYoungGeneration()
const start = size()
const kept = []
for (let i = 0; i < 3000; i++) { const b = batch(); if (i % 10 === 0) kept.push(b) }
const held = size()
kept.length = 0
releaseYoungGeneration()
const ring = new Array(5)
let n = 0
while (size() < 32 * 1024 * 1024 && n < 100) ring[n++ % ring.length] = batch()
console.log(JSON.stringify({ start, held, grown: size(), batches: n }))
`

describe('young generation', () => {
  it('stays at its initial size while held and reaches its maximum soon after release', () => {
    const r = spawnSync(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', SCRIPT],
      {
        encoding: 'utf8',
      },
    )
    expect(r.stderr).toBe('')
    const { start, held, grown, batches } = JSON.parse(r.stdout) as {
      start: number
      held: number
      grown: number
      batches: number
    }
    // Held: ~3 MB survived, the new space did not grow.
    expect(held).toBe(start)
    // Released: the maximum within the budget. With V8's default factor (2) this took 257 to
    // 2 290 batches from 1 MiB semi-spaces: each doubling waits for as many surviving bytes.
    expect(grown).toBeGreaterThanOrEqual(32 * 1024 * 1024)
    expect(held).toBeLessThan(grown)
    expect(batches).toBeLessThan(100)
  })
})
