/**
 * The one error type of the domain: an HTTP-independent status, a public message, per-field
 * `data`, and an internal `cause` that is logged but never serialised.
 */

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
  400: 'Something went wrong while processing your request.',
  401: 'Missing or invalid authentication.',
  403: 'You are not allowed to perform this request.',
  404: "The requested resource wasn't found.",
  413: 'Request entity too large.',
  429: 'Too Many Requests.',
  500: 'Something went wrong while processing your request.',
}

/** First letter upper-cased and a trailing period added, as every public message is sent. */
export function sentenize(message: string): string {
  const s = message.trim()
  if (s === '') return s
  const first = s.charAt(0).toUpperCase() + s.slice(1)
  return /[.?!]$/.test(first) ? first : `${first}.`
}

/** An error meant for the client: status, message, field data; `cause` stays internal. */
export class ApiError extends Error {
  readonly status: number
  readonly data: ValidationErrors

  constructor(status: number, message?: string, data: ValidationErrors = {}, cause?: unknown) {
    super(sentenize(message || defaultMessages[status] || 'Request failed.'), { cause })
    this.name = 'ApiError'
    this.status = status
    this.data = data
  }

  /** The wire shape of SPEC §7. */
  toJSON(): { code: number; message: string; data: ValidationErrors } {
    return { code: this.status, message: this.message, data: this.data }
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

/** Builds a field error; `{name}` placeholders in the message are filled from `params`. */
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
