/**
 * One run of a PocketBase-style handler. PocketBase's handlers are synchronous; svcbase's record
 * service and hook chains are asynchronous underneath. So a handler runs synchronously, and each
 * call that writes or goes on (`$app.save`, `$app.delete`, `$app.runInTransaction`, `e.next()`)
 * is appended to the invocation's queue instead of running at once; once the handler returns,
 * its wrapper awaits the queue, in order. A queued call that fails fails the handler (the rest
 * of the queue is skipped), as a thrown error would. A call whose answer the handler needs at
 * once (`$http.send`) is made by replay: the run stops there, the call is carried out, and the
 * handler runs again from the start with the answer logged (`awaitOnce`); only the last run's
 * queue and console output count.
 */
import type { App } from '../../../core/app.js'
import { ApiError, badRequest, internal, messages } from '../../../core/errors.js'
import { MAX_SENDS } from './http-send.js'
import { PbUnsupportedError } from './unsupported.js'

/** A queued piece of work: a write or the rest of a chain. */
export type Op = () => Promise<unknown>

/** The handler running now (synchronously), the work it queued and what it printed. */
interface Invocation {
  app: App
  ops: Op[]
  out: (() => void)[]
  awaited: Awaited
}

/** A logged outcome of an awaited call. */
type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown }

/**
 * Thrown through a script to stop a run at an awaited call (`$http.send`) without an answer
 * yet. A script that catches it changes nothing: the invocation knows the run stopped.
 */
export class Suspend extends Error {
  constructor() {
    super(
      'svcbase: this handler run stops here to wait for an awaited call ($http.send, record.validatePassword); it runs again',
    )
    this.name = 'Suspend'
  }
}

/**
 * A logged error thrown again where the script called (its stack names the script's line, so
 * the handler's failure is logged with it), of the same class, name and message.
 */
function atCall(err: unknown): unknown {
  if (!(err instanceof Error)) return err
  const copy = new Error(err.message)
  Object.setPrototypeOf(copy, Object.getPrototypeOf(err) as object)
  copy.name = err.name
  copy.stack = `${err.name}: ${err.message}\n${(copy.stack ?? '').split('\n').slice(1).join('\n')}`
  return copy
}

/**
 * The awaited calls of one invocation, across its runs: the answers logged in call order (each
 * with the call's key, so a run that makes another call there is answered anew), the call this
 * run stopped at, and how many were carried out (at most `MAX_SENDS`).
 */
class Awaited {
  private readonly log: { key: string; outcome: Outcome }[] = []
  private index = 0
  pending: (() => Promise<unknown>) | null = null
  /** The key of the pending call. */
  pendingKey = ''
  performed = 0

  restart(): void {
    this.index = 0
    this.pending = null
  }

  call(name: string, key: string, run: () => Promise<unknown>): unknown {
    const i = this.index++
    const logged = this.log[i]
    if (logged && logged.key === key) {
      if (!logged.outcome.ok) throw atCall(logged.outcome.error)
      return logged.outcome.value
    }
    if (logged) this.log.length = i // another call than last run's: answered anew
    if (this.pending) throw new Suspend()
    if (this.performed >= MAX_SENDS)
      throw new Error(
        `${name}: at most ${MAX_SENDS} calls per handler invocation (svcbase's limit; each one runs the handler again)`,
      )
    this.pending = run
    this.pendingKey = key
    throw new Suspend()
  }

  /** Carries out the call the run stopped at and logs its outcome. */
  async settle(run: () => Promise<unknown>, key: string): Promise<void> {
    this.performed++
    let outcome: Outcome
    try {
      outcome = { ok: true, value: await run() }
    } catch (error) {
      outcome = { ok: false, error }
    }
    this.log.push({ key, outcome })
  }
}

/** Handlers run synchronously, so the innermost running one is the one a call belongs to. */
const running: Invocation[] = []

/** The app of the handler running now (its event's app: a transaction's inside one), if any. */
export function currentApp(): App | undefined {
  return running[running.length - 1]?.app
}

/** Appends `op` to the running handler's queue; outside a handler it throws, naming `name`. */
export function enqueue(name: string, op: Op): void {
  const inv = running[running.length - 1]
  if (!inv) throw new Error(messages.pbOutsideHandler({ name }))
  inv.ops.push(op)
}

/**
 * An asynchronous call made synchronous by replay (`$http.send`): the answer logged for this
 * call (by call order, and `key`), or the run stops here (`Suspend`); `invoke` then carries
 * `run` out, logs its outcome and runs the handler again from the start, where this call
 * answers at once (or throws the logged error). Outside a handler it throws, naming `name`.
 */
export function awaitOnce(name: string, key: string, run: () => Promise<unknown>): unknown {
  const inv = running[running.length - 1]
  if (!inv) throw new Error(messages.pbOutsideHandler({ name }))
  return inv.awaited.call(name, key, run)
}

/**
 * Prints through `print` once the running handler's run is kept (a run stopped by `Suspend` is
 * discarded with what it printed); at once outside a handler.
 */
export function emit(print: () => void): void {
  const inv = running[running.length - 1]
  if (inv) inv.out.push(print)
  else print()
}

/** True while a handler runs (so a call can be queued). */
export function inHandler(): boolean {
  return running.length > 0
}

/**
 * An error thrown in a script's context as an `Error` of this realm (`instanceof Error` fails
 * across `node:vm` contexts), keeping its name, message and stack; anything else as it is.
 */
export function hostError(err: unknown): unknown {
  if (err instanceof Error || typeof err !== 'object' || err === null) return err
  const { name, message, stack } = err as Partial<Record<'name' | 'message' | 'stack', unknown>>
  if (typeof message !== 'string') return err
  const out = new Error(message)
  if (typeof name === 'string') out.name = name
  out.stack = typeof stack === 'string' ? stack : `${out.name}: ${message}`
  return out
}

/** True for a promise of any realm. */
function isThenable(v: unknown): v is PromiseLike<unknown> {
  return (
    (typeof v === 'object' || typeof v === 'function') &&
    v !== null &&
    typeof (v as { then?: unknown }).then === 'function'
  )
}

/** Where an error happened in `file`: `file:line:column` from its stack, or ''. */
export function locate(err: unknown, file: string): string {
  const stack = err instanceof Error ? (err.stack ?? '') : ''
  const esc = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const m = new RegExp(`${esc}:(\\d+)(?::(\\d+))?`).exec(stack)
  return m ? `${file}:${m[1]}${m[2] ? `:${m[2]}` : ''}` : ''
}

/** Runs of one invocation at most: one per awaited call carried out, and a last one. */
const MAX_RUNS = MAX_SENDS + 1

/** Runs the queued ops in order (each after the one before settles). */
function chain(ops: Op[]): Promise<unknown> {
  let queue: Promise<unknown> = Promise.resolve()
  for (const op of ops) queue = queue.then(op)
  return queue
}

/**
 * Runs `handler` as one invocation with `app`, then awaits what it queued. An error the script
 * itself throws (not an `ApiError`) becomes a 400 with PocketBase's generic message, as
 * PocketBase answers one; a call outside the subset becomes a 500. Both are logged with the
 * script's file and line. A run that stops at an awaited call (`$http.send`, see `awaitOnce`)
 * is discarded (its queue and output with it), the call is carried out, and the handler runs
 * again from the start: N sends make N+1 runs.
 */
export async function invoke(
  app: App,
  file: string,
  handler: () => unknown,
  kind: 'request' | 'job' = 'request',
): Promise<void> {
  const awaited = new Awaited()
  for (let run = 1; ; run++) {
    const inv: Invocation = { app, ops: [], out: [], awaited }
    awaited.restart()
    running.push(inv)
    let returned: unknown
    let failed: { error: unknown } | null = null
    try {
      returned = handler()
    } catch (error) {
      failed = { error }
    } finally {
      running.pop()
    }
    const pending = awaited.pending
    if (pending) {
      // A handler written `async` may go on after the stop: whatever it does is discarded.
      if (isThenable(returned)) returned.then(undefined, () => undefined)
      if (run >= MAX_RUNS)
        throw mapError(app, file, new Error(`the handler ran ${run} times without ending`), kind)
      await awaited.settle(pending, awaited.pendingKey)
      continue
    }
    for (const print of inv.out) print()
    // Queued ops start now, as the handler's calls would have run in PocketBase.
    const queue = chain(inv.ops)
    if (failed) {
      queue.catch(() => undefined) // the handler's own error is the answer
      throw mapError(app, file, failed.error, kind)
    }
    try {
      // A handler written `async` (not PocketBase's form) is awaited too.
      // (A promise of the script's context is not an `instanceof Promise` here.)
      if (isThenable(returned)) await returned
      await queue
    } catch (err) {
      throw mapError(app, file, err, kind)
    }
    return
  }
}

/**
 * The error a failed invocation throws, logged with where it happened in the script. A job's
 * error stays as thrown (the scheduler records its message in `_cron_jobs.lastError`).
 */
function mapError(app: App, file: string, thrown: unknown, kind: 'request' | 'job'): unknown {
  if (thrown instanceof ApiError) return thrown
  const err = hostError(thrown)
  const where = locate(err, file)
  if (where === '') return err
  const message = err instanceof Error ? err.message : String(err)
  if (kind === 'job') {
    app.logger.error('pb.js job failed', { script: where, error: message })
    return err
  }
  if (err instanceof PbUnsupportedError) {
    app.logger.error('pb.js handler failed', { script: where, error: message })
    return internal(err)
  }
  app.logger.warn('pb.js handler failed', { script: where, error: message })
  return badRequest(undefined, {}, err)
}
