/**
 * One run of a PocketBase-style handler. PocketBase's handlers are synchronous; svcbase's record
 * service and hook chains are asynchronous underneath. So a handler runs synchronously, and each
 * call that writes or goes on (`$app.save`, `$app.delete`, `$app.runInTransaction`, `e.next()`)
 * is appended to the invocation's queue instead of running at once; once the handler returns,
 * its wrapper awaits the queue, in order. A queued call that fails fails the handler (the rest
 * of the queue is skipped), as a thrown error would.
 */
import type { App } from '../../../core/app.js'
import { ApiError, badRequest, internal, messages } from '../../../core/errors.js'
import { PbUnsupportedError } from './unsupported.js'

/** A queued piece of work: a write or the rest of a chain. */
export type Op = () => Promise<unknown>

/** The handler running now (synchronously) and the work it queued. */
interface Invocation {
  app: App
  queue: Promise<unknown>
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
  inv.queue = inv.queue.then(op)
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

/**
 * Runs `handler` as one invocation with `app`, then awaits what it queued. An error the script
 * itself throws (not an `ApiError`) becomes a 400 with PocketBase's generic message, as
 * PocketBase answers one; a call outside the subset becomes a 500. Both are logged with the
 * script's file and line.
 */
export async function invoke(
  app: App,
  file: string,
  handler: () => unknown,
  kind: 'request' | 'job' = 'request',
): Promise<void> {
  const inv: Invocation = { app, queue: Promise.resolve() }
  running.push(inv)
  let returned: unknown
  try {
    returned = handler()
  } catch (err) {
    throw mapError(app, file, err, kind)
  } finally {
    running.pop()
  }
  try {
    // A handler written `async` (not PocketBase's form) is awaited too.
    // (A promise of the script's context is not an `instanceof Promise` here.)
    if (isThenable(returned)) await returned
    await inv.queue
  } catch (err) {
    throw mapError(app, file, err, kind)
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
