/**
 * Synchronous calls over an asynchronous app, by replay. A migration's `up(app)` is PocketBase
 * code: `app.save(c)` returns once saved (or throws), and the next line may read what it wrote.
 * svcbase's services are asynchronous. So the function runs again from the start until it ends
 * without needing anything new: every `app` call is an *op* with an index. The first time a run
 * reaches an asynchronous op, the run stops (a `Suspend` is thrown through the script); the
 * runner carries the op out, logs its outcome (value or error) and runs the function again,
 * where that op and every earlier one answer from the log at once. Synchronous ops (finds in the
 * registry, console lines) are logged too, so a later run sees what the first saw and prints
 * nothing twice. A script that catches the `Suspend` changes nothing: the runner sees the
 * pending op once the function returns, however it returns.
 */

/** A logged outcome: the op's plain result, or its error. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/** Thrown through a script to stop a run at an op not yet carried out. */
export class Suspend extends Error {
  constructor() {
    super('svcbase: this migration run stops here to carry out an app call (replay)')
    this.name = 'Suspend'
  }
}

export class Replay {
  private readonly log: Outcome[] = []
  private index = 0
  private pending: (() => Promise<unknown>) | null = null

  /** `mapError` turns an op's failure into what the script catches (and the log keeps). */
  constructor(readonly mapError: (error: unknown) => unknown = (e) => e) {}

  /** Starts a run from the first op. */
  restart(): void {
    this.index = 0
    this.pending = null
  }

  /** The op this run stopped at, if any (the runner carries it out, then runs again). */
  takePending(): (() => Promise<unknown>) | null {
    const p = this.pending
    this.pending = null
    return p
  }

  /** Logs the outcome of the op carried out. */
  settle(outcome: Outcome): void {
    this.log.push(outcome)
  }

  /** The logged outcome of op `i`, as `make` turns its value into what the script gets. */
  private answer<T>(i: number, make: (value: unknown) => T): T {
    const o = this.log[i]!
    // NB: the same error object each run; a script has no use for its identity.
    if (!o.ok) throw o.error
    return make(o.value)
  }

  /**
   * A synchronous op: `run` runs at once the first time (its plain result logged), and `make`
   * builds what the script gets from that result on every run.
   */
  sync<T>(run: () => unknown, make: (value: unknown) => T = (v) => v as T): T {
    const i = this.index++
    if (i < this.log.length) return this.answer(i, make)
    if (this.pending) throw new Suspend()
    let value: unknown
    try {
      value = run()
    } catch (err) {
      const error = this.mapError(err)
      this.log.push({ ok: false, error })
      throw error
    }
    this.log.push({ ok: true, value })
    return make(value)
  }

  /** An asynchronous op: carried out between runs; `make` as for {@link sync}. */
  async<T>(run: () => Promise<unknown>, make: (value: unknown) => T = (v) => v as T): T {
    const i = this.index++
    if (i < this.log.length) return this.answer(i, make)
    this.pending ??= run
    throw new Suspend()
  }

  /** A side effect done once (a console line): skipped on later runs. */
  once(run: () => void): void {
    this.sync(() => {
      run()
      return undefined
    })
  }
}

/**
 * Runs `call` (one run of the script's function) until a run needs no new op: between runs,
 * the op it stopped at is carried out and logged. Returns once a run returns; throws the
 * script's own error once a run throws without a pending op.
 */
export async function runToEnd(replay: Replay, call: () => unknown): Promise<void> {
  for (;;) {
    replay.restart()
    let failed: { error: unknown } | null = null
    try {
      call()
    } catch (error) {
      failed = { error }
    }
    const op = replay.takePending()
    if (op) {
      try {
        replay.settle({ ok: true, value: await op() })
      } catch (error) {
        replay.settle({ ok: false, error: replay.mapError(error) })
      }
      continue
    }
    if (failed) throw failed.error
    return
  }
}
