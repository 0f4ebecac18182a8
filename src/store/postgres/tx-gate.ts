/**
 * The gate the transactions of one `PgDb` pass: up to `limit` run side by side (shared), or one
 * runs alone (exclusive: it waits for the running ones to finish and keeps new ones out).
 * First come, first served: a transaction never overtakes an earlier one still waiting, so an
 * exclusive one is not starved by a stream of shared ones.
 */
export class TxGate {
  private running = 0
  private alone = false
  private readonly waiting: Array<{ exclusive: boolean; go: () => void }> = []
  private readonly idleWaiters: Array<() => void> = []

  /** `limit`: how many shared holders at most (at least 1). */
  constructor(private readonly limit: number) {
    if (!(limit >= 1)) throw new Error(`invalid transaction limit ${limit}`)
  }

  /** Waits for a turn; the function returned ends it (call it once). */
  acquire(exclusive: boolean): Promise<() => void> {
    return new Promise((resolve) => {
      this.waiting.push({
        exclusive,
        go: () => {
          let done = false
          resolve(() => {
            if (done) return
            done = true
            this.release(exclusive)
          })
        },
      })
      this.pump()
    })
  }

  /** Shared holders now (for tests and diagnostics). */
  get active(): number {
    return this.alone ? 1 : this.running
  }

  /** Resolves once nothing holds the gate and nothing waits for it. */
  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  private isIdle(): boolean {
    return this.running === 0 && !this.alone && this.waiting.length === 0
  }

  private release(exclusive: boolean): void {
    if (exclusive) this.alone = false
    else this.running--
    this.pump()
  }

  private pump(): void {
    while (this.waiting.length > 0) {
      const next = this.waiting[0]!
      if (this.alone) break
      if (next.exclusive) {
        if (this.running > 0) break
        this.alone = true
      } else {
        if (this.running >= this.limit) break
        this.running++
      }
      this.waiting.shift()
      next.go()
    }
    if (this.isIdle()) for (const fn of this.idleWaiters.splice(0)) fn()
  }
}
