import { maxThreshold, minThreshold } from '../../fields/generic-errors.js'
import { objectGroup } from '../group.js'

/**
 * `reads`: the read budget (security issue #32). Read live: a change applies to the reads that
 * start after it.
 */
export type ReadsSettings = {
  /**
   * Milliseconds one database read may run before it is stopped: the request then answers 400
   * when its own filter or sort made the read slow, else 503. On SQLite a read runs on the event
   * loop for at most 20 ms and then on a reader thread; on PostgreSQL it is the
   * `statement_timeout` of the pool's connections.
   */
  timeoutMs: number
}

/** The default read budget. */
export const DEFAULT_READ_TIMEOUT_MS = 5_000
/** The shortest budget accepted (the event loop's own slice is 20 ms). */
export const MIN_READ_TIMEOUT_MS = 50
/** The longest budget accepted: ten minutes. */
export const MAX_READ_TIMEOUT_MS = 600_000

/** The `reads` group: a budget of 50 ms to 10 minutes. */
export const readsSettings = objectGroup<ReadsSettings>({
  key: 'reads',
  defaults: () => ({ timeoutMs: DEFAULT_READ_TIMEOUT_MS }),
  check(g) {
    const ms = g.integer('timeoutMs')
    if (ms === undefined) return
    if (ms < MIN_READ_TIMEOUT_MS) g.fail('timeoutMs', minThreshold(MIN_READ_TIMEOUT_MS))
    else if (ms > MAX_READ_TIMEOUT_MS) g.fail('timeoutMs', maxThreshold(MAX_READ_TIMEOUT_MS))
  },
})
