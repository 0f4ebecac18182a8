/**
 * Consecutive transactions that share one SQLite transaction and one `COMMIT`. Each member but
 * the first runs inside a savepoint, so a failing member rolls back alone; every member's
 * promise resolves only once the shared commit succeeded, and a failed commit fails them all.
 */
export class CommitGroup {
  /** Members whose work is in the shared transaction, waiting for the commit. */
  size = 0
  readonly opened = performance.now()
  /** Runs right after the commit, before the writer is handed on (see `Db.onCommit`). */
  readonly committed: Array<() => void> = []
  /** Set by a member that must be the last one. */
  closed = false
  /** A commit is queued behind the members still to come. */
  scheduled = false
  /** The read limit a member set on the writer (`SqliteTx.limitReads`), 0 for none. */
  readLimitMs = 0
  readonly done: Promise<void>
  settle!: (err?: Error) => void

  constructor() {
    this.done = new Promise<void>((resolve, reject) => {
      this.settle = (err) => (err ? reject(err) : resolve())
    })
    // Members await `done`; a group whose members all failed has nobody listening.
    this.done.catch(() => undefined)
  }
}
