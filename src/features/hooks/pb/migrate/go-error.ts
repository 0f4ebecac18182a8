/**
 * The errors of `app` calls as a migration sees them: PocketBase's calls fail with Go errors
 * (`String(e)` is `GoError: <text>`), a validation failure worded as Go's validation package
 * words it (`name: cannot be blank.`), and a failed run prints that text alone:
 * `failed to apply migration <file>: n: cannot be blank.`.
 */
import { ApiError } from '../../../../core/errors.js'

/** An `app` call's failure, as PocketBase's Go error. */
export class GoError extends Error {
  constructor(
    message: string,
    /** The svcbase error (an `ApiError` keeps its status and field errors). */
    readonly svcError?: unknown,
  ) {
    super(message)
    this.name = 'GoError'
  }
}

const lowerFirst = (s: string): string => s.charAt(0).toLowerCase() + s.slice(1)

/** Go's text of an svcbase error: field errors as `key: message; key2: message.`. */
function goText(err: unknown): string {
  if (err instanceof ApiError) {
    const entries = Object.entries(err.data ?? {}).sort(([a], [b]) => (a < b ? -1 : 1))
    if (entries.length === 0) return err.message
    const parts = entries.map(([k, v]) => {
      const m = (v as { message?: unknown } | null)?.message
      const text = typeof m === 'string' ? lowerFirst(m.replace(/\.$/, '')) : JSON.stringify(v)
      return `${k}: ${text}`
    })
    return `${parts.join('; ')}.`
  }
  return err instanceof Error ? err.message : String(err)
}

/** An `app` call's failure as a {@link GoError} (one already is stays as it is). */
export function toGoError(err: unknown): GoError {
  return err instanceof GoError ? err : new GoError(goText(err), err)
}
