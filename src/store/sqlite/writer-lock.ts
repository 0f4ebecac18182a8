/**
 * A first-come-first-served lock for the writer connection. Unlike a generic mutex it tells the
 * holder how many callers are waiting, which is what group commit decides on: a transaction
 * that finishes while others wait leaves the SQLite transaction open for them.
 */
export class WriterLock {
  private held = false
  private readonly waiters: Array<() => void> = []

  /** Callers queued behind the current holder. */
  get waiting(): number {
    return this.waiters.length
  }

  /** Runs `fn` once every earlier caller is done; the lock passes straight to the next one. */
  async run<T>(fn: () => T | Promise<T>): Promise<T> {
    if (this.held) await new Promise<void>((resolve) => this.waiters.push(resolve))
    else this.held = true
    try {
      return await fn()
    } finally {
      const next = this.waiters.shift()
      if (next) next()
      else this.held = false
    }
  }

  /** Resolves once nobody holds or waits for the lock. */
  async idle(): Promise<void> {
    while (this.held) await this.run(() => undefined)
  }
}
