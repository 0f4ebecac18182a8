/**
 * V8's young generation while the CLI starts. Loading svcbase's ~500 modules allocates a lot that
 * survives (code, module records), and with V8's default growth factor (2) the new space doubles
 * up to its maximum (2 × 16 MiB semi-spaces) before the server has answered anything; an idle
 * process keeps those pages resident until V8's memory reducer shrinks them, 20 s or more later.
 * Growth factor 1 while loading keeps the new space at its initial size (it still works; what
 * survives is promoted a little earlier). The first requests after start warm caches and compile
 * code, which survives too and would grow it all the same, so growth is allowed only once the
 * server is busy (the event loop over a fifth used for two seconds). Then the new space grows to
 * its maximum at its next expansion, the size a process that loaded with the default has: with
 * the default factor it would double from its initial size only as often as the bytes surviving
 * scavenges exceed its capacity, which under request load (where almost everything dies young)
 * took more than 8 s to reach a quarter of it, at ~5 times the scavenges per request.
 * (`--max-semi-space-size` cannot be set at run time; the growth factor is read at each resize.)
 */
import { performance } from 'node:perf_hooks'
import { setFlagsFromString } from 'node:v8'

/**
 * `--semi-space-growth-factor` once busy: the maximum semi-space (16 MiB on 64-bit) over the
 * initial one (1 MiB), so one expansion reaches the maximum (V8 caps a resize at it).
 */
const BUSY_GROWTH_FACTOR = 16

/** Keeps the new space at its initial size while modules load (call before importing them). */
export function holdYoungGeneration(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
}

/** Lets the new space grow, to its maximum at its next expansion. */
export function releaseYoungGeneration(): void {
  setFlagsFromString(`--semi-space-growth-factor=${BUSY_GROWTH_FACTOR}`)
}

/**
 * Event-loop utilisation over a check period above which the server counts as busy, and how
 * many periods in a row make it busy. NB: held small, the new space is scavenged far more often:
 * at 3 000 views/s (about 30 % of the loop) it cost ~15 µs of CPU per request (92 → 107 µs), so a
 * server under steady load gets the full young generation soon; a burst of cold first requests
 * does not.
 */
const BUSY_UTILIZATION = 0.2
const BUSY_PERIODS = 2
/** How often the event loop's utilisation is checked, in milliseconds. */
const CHECK_MS = 1000

/**
 * Releases the young generation (see {@link releaseYoungGeneration}) the first time the event
 * loop is busy for a check period; an unreferenced timer, so it never keeps the process alive.
 * Returns a function that stops watching.
 */
export function releaseYoungGenerationWhenBusy(): () => void {
  let last = performance.eventLoopUtilization()
  let busyPeriods = 0
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization()
    const busy = performance.eventLoopUtilization(now, last).utilization > BUSY_UTILIZATION
    last = now
    busyPeriods = busy ? busyPeriods + 1 : 0
    if (busyPeriods < BUSY_PERIODS) return
    clearInterval(timer)
    releaseYoungGeneration()
  }, CHECK_MS)
  timer.unref()
  return () => clearInterval(timer)
}
