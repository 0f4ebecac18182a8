/**
 * Field errors collected over the steps of a record write, so that everything wrong with a body
 * is answered in one 400 (`data` keyed by field, as PocketBase does).
 */
import {
  ApiError,
  badRequest,
  type ApiMessage,
  type FieldError,
  type ValidationErrors,
} from '../errors.js'

/**
 * Collects field errors by name; a later error for the same field replaces the earlier one,
 * keeping its place (the key order clients see in `data`).
 */
export class ErrorSet {
  private readonly errors: ValidationErrors = {}

  /** Adds the error of one field; a null or undefined error adds nothing. */
  add(field: string, error: FieldError | ValidationErrors | null | undefined): this {
    if (error) this.errors[field] = error
    return this
  }

  /** Adds every error of a map (or of another set), replacing those of the same fields. */
  merge(errors: ValidationErrors | ErrorSet): this {
    Object.assign(this.errors, errors instanceof ErrorSet ? errors.errors : errors)
    return this
  }

  /** True when no error was collected. */
  get isEmpty(): boolean {
    return Object.keys(this.errors).length === 0
  }

  /** True when an error for `field` was collected. */
  has(field: string): boolean {
    return Object.hasOwn(this.errors, field)
  }

  /** A copy of the collected errors, as `ApiError.data` carries them. */
  get data(): ValidationErrors {
    return { ...this.errors }
  }

  /** A 400 with `message` and the collected errors (possibly none); `cause` stays internal. */
  toError(message: ApiMessage, cause?: unknown): ApiError {
    return badRequest(message, this.data, cause)
  }

  /** Throws the 400 of `toError(message)` when any error was collected. */
  throwIf(message: ApiMessage): void {
    if (!this.isEmpty) throw this.toError(message)
  }
}
