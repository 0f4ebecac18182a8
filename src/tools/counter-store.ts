/**
 * Rate-limit counters behind a small interface, so that several instances can later share one
 * store (ARCHITECTURE.md, scaling out); the in-memory store is the single-process default.
 */

/** The state of a counter right after a hit. */
export interface CounterHit {
  /** Hits in the current window, this one included. */
  count: number
  /** When the current window ends (epoch milliseconds). */
  resetAt: number
}

/**
 * A store of fixed-window counters. A key's window starts at its first hit and lasts `windowMs`;
 * the first hit after it ends starts a new window. Implementations must count atomically.
 */
export interface CounterStore {
  /** Counts one hit under `key` and returns the window's count and end. */
  hit(key: string, windowMs: number): Promise<CounterHit>
  /** Forgets every counter. */
  reset(): Promise<void>
  /** Stops background work (pruning timers, connections). */
  close(): Promise<void>
}

/** Options of the in-memory store. */
export interface MemoryCounterStoreOptions {
  /** The clock, in epoch milliseconds (tests pass a fake one). */
  now?: () => number
  /** How often expired windows are pruned, in milliseconds; 0 disables the timer. */
  pruneIntervalMs?: number
  /** The most keys kept; past it the window that started first is dropped. */
  maxKeys?: number
}

interface Window {
  start: number
  windowMs: number
  count: number
}

/**
 * Fixed-window counters in a Map. Expired windows are pruned on a timer (unref'd, so it never
 * keeps the process alive), and past `maxKeys` the oldest window is dropped, so memory stays
 * bounded even under a flood of distinct client IPs (the dropped client merely starts afresh).
 */
export class MemoryCounterStore implements CounterStore {
  private readonly windows = new Map<string, Window>()
  private readonly now: () => number
  private readonly maxKeys: number
  private timer: NodeJS.Timeout | null = null

  constructor(options: MemoryCounterStoreOptions = {}) {
    this.now = options.now ?? Date.now
    this.maxKeys = Math.max(1, options.maxKeys ?? 100_000)
    const every = options.pruneIntervalMs ?? 60_000
    if (every > 0) {
      this.timer = setInterval(() => this.prune(), every)
      this.timer.unref()
    }
  }

  /** The number of keys held (expired windows included until pruned). */
  get size(): number {
    return this.windows.size
  }

  async hit(key: string, windowMs: number): Promise<CounterHit> {
    const now = this.now()
    const current = this.windows.get(key)
    // NB: the window length in force now decides expiry, so a shortened duration applies at once.
    if (current && now - current.start < windowMs) {
      current.count++
      current.windowMs = windowMs
      return { count: current.count, resetAt: current.start + windowMs }
    }
    // Re-insert so the Map's order stays oldest window first (the eviction order).
    this.windows.delete(key)
    if (this.windows.size >= this.maxKeys) this.dropOldest()
    this.windows.set(key, { start: now, windowMs, count: 1 })
    return { count: 1, resetAt: now + windowMs }
  }

  async reset(): Promise<void> {
    this.windows.clear()
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    this.windows.clear()
  }

  /** Drops every window that has ended. */
  prune(now = this.now()): void {
    for (const [key, w] of this.windows) {
      if (now - w.start >= w.windowMs) this.windows.delete(key)
    }
  }

  /**
   * Frees one slot by dropping the window that started first (the Map's first entry), in O(1):
   * a full prune per new key would let a flood of distinct keys cost O(n) each.
   */
  private dropOldest(): void {
    const oldest = this.windows.keys().next()
    if (!oldest.done) this.windows.delete(oldest.value)
  }
}
