/**
 * The one error type of the domain: an HTTP-independent status, a public message, per-field
 * `data`, and an internal `cause` that is logged but never serialised. Built-in codes and
 * messages come from the catalogue (`errors/catalogue.ts`), re-exported here.
 */
import {
  codeOf,
  messages,
  validationMessages,
  type Entry,
  type ValidationArgs,
  type ValidationKey,
} from './errors/catalogue.js'

export {
  messages,
  validationMessages,
  type ApiMessage,
  type MessageKey,
  type ValidationCode,
  type ValidationKey,
} from './errors/catalogue.js'

/** A single field validation failure with a stable snake_case code. */
export interface FieldError {
  code: string
  message: string
  params?: Record<string, unknown>
}

/** Field errors keyed by field name; containers nest (array indexes become string keys). */
export interface ValidationErrors {
  [field: string]: FieldError | ValidationErrors
}

/** Default public messages per status, as PocketBase sends them (reference §0.4). */
export const defaultMessages: Readonly<Record<number, string>> = {
  400: messages.somethingWentWrong,
  401: messages.missingAuth,
  403: messages.notAllowed,
  404: messages.notFound,
  413: messages.tooLarge,
  429: messages.tooManyRequests,
  500: messages.somethingWentWrong,
}

/** First letter upper-cased and a trailing period added, as every public message is sent. */
export function sentenize(message: string): string {
  const s = message.trim()
  if (s === '') return s
  const first = s.charAt(0).toUpperCase() + s.slice(1)
  return /[.?!]$/.test(first) ? first : `${first}.`
}

/**
 * An error meant for the client: status, message, field data; `cause` stays internal. Built-in
 * code passes a catalogue message (`messages.*`, an `ApiMessage`); hooks and extensions
 * may pass their own text.
 */
export class ApiError extends Error {
  readonly status: number
  readonly data: ValidationErrors

  constructor(status: number, message?: string, data: ValidationErrors = {}, cause?: unknown) {
    super(sentenize(message || defaultMessages[status] || messages.requestFailed), { cause })
    this.name = 'ApiError'
    this.status = status
    this.data = data
  }

  /**
   * The wire shape of SPEC §7, with PocketBase's `status` beside `code` (the same value), so that
   * clients written for PocketBase read it too.
   */
  toJSON(): { code: number; message: string; data: ValidationErrors; status: number } {
    return { code: this.status, message: this.message, data: this.data, status: this.status }
  }
}

/** 400 with optional field errors. */
export function badRequest(message?: string, data?: ValidationErrors, cause?: unknown): ApiError {
  return new ApiError(400, message, data, cause)
}

/** 401. */
export function unauthorized(message?: string): ApiError {
  return new ApiError(401, message)
}

/** 403. */
export function forbidden(message?: string): ApiError {
  return new ApiError(403, message)
}

/** 404. */
export function notFound(message?: string): ApiError {
  return new ApiError(404, message)
}

/** 413. */
export function tooLarge(message?: string): ApiError {
  return new ApiError(413, message)
}

/** 500 with a generic public message; the cause is kept for the log. */
export function internal(cause?: unknown): ApiError {
  return new ApiError(500, undefined, {}, cause)
}

/**
 * Builds the field error of a catalogue entry: its code, and its message with `{name}`
 * placeholders filled from `params` (sent along), or computed from its named arguments.
 */
export function validationError<K extends ValidationKey>(
  key: K,
  ...args: ValidationArgs<(typeof validationMessages)[K]>
): FieldError {
  const entry: Entry = validationMessages[key]
  const [arg] = args as [Record<string, unknown> | undefined]
  return typeof entry === 'function'
    ? fieldError(codeOf(key), (entry as (a: typeof arg) => string)(arg))
    : fieldError(codeOf(key), entry, arg)
}

/**
 * Builds a field error from a code and a message of the caller's own, `{name}` placeholders
 * filled from `params`: for hooks and extensions (a settings group of their own); built-in code
 * uses {@link validationError}.
 */
export function fieldError(
  code: string,
  message: string,
  params?: Record<string, unknown>,
): FieldError {
  const text = params
    ? message.replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? formatParam(params[k]) : m))
    : message
  return params ? { code, message: sentenize(text), params } : { code, message: sentenize(text) }
}

function formatParam(value: unknown): string {
  if (Array.isArray(value)) return value.map(formatParam).join(', ')
  if (typeof value === 'string') return value
  return JSON.stringify(value)
}

/** True when a validation map holds at least one entry. */
export function hasErrors(errors: ValidationErrors): boolean {
  return Object.keys(errors).length > 0
}
