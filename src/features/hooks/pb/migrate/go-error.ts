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

/** A leaf of field errors: `{code, message}`. */
const isLeaf = (v: unknown): v is { message: string } =>
  typeof v === 'object' && v !== null && typeof (v as { message?: unknown }).message === 'string'

/**
 * Field errors as Go's validation package prints them: keys sorted, `key: message` joined by
 * `; `, a final `.`, nested errors in parentheses (`fields: (1: (name: cannot be blank.).).`).
 */
function validationText(errors: Record<string, unknown>): string {
  const parts = Object.keys(errors)
    .sort()
    .map((k) => {
      const v = errors[k]
      if (isLeaf(v)) return `${k}: ${lowerFirst(v.message.replace(/\.$/, ''))}`
      if (typeof v === 'object' && v !== null)
        return `${k}: (${validationText(v as Record<string, unknown>)})`
      return `${k}: ${String(v)}`
    })
  return `${parts.join('; ')}.`
}

/** Go's text of an svcbase error: its field errors when it has some, else its message. */
function goText(err: unknown): string {
  if (err instanceof ApiError && Object.keys(err.data ?? {}).length > 0)
    return validationText(err.data)
  return err instanceof Error ? err.message : String(err)
}

/** An `app` call's failure as a {@link GoError} (one already is stays as it is). */
export function toGoError(err: unknown): GoError {
  return err instanceof GoError ? err : new GoError(goText(err), err)
}
