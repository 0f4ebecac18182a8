/**
 * PocketBase's API errors for `*.pb.js` scripts: the error classes (`new BadRequestError(…)`)
 * and the event helpers (`e.badRequestError(…)`, `e.error(status, …)`) give an svcbase
 * `ApiError`, answered with its status and (sentence-cased) message.
 */
import { ApiError, validationError } from '../../../core/errors.js'

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The data of an error as PocketBase answers it (its router's `safeErrorsData`): an object's
 * values that are objects again are read the same way, every other value (a string, a number,
 * an array…) becomes `{code: "validation_invalid_value", message: "Invalid value."}`, so a
 * script cannot put arbitrary text in an error answer; data that is not an object is `{}`.
 */
export function safeErrorData(data: unknown, depth = 0): Record<string, unknown> {
  if (!isPlainObject(data) || depth > 32) return {}
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(data))
    out[k] = isPlainObject(v)
      ? safeErrorData(v, depth + 1)
      : validationError('validation_invalid_value')
  return out
}

/** The `ApiError` of a status, a message and PocketBase's error data. */
export function apiErrorOf(status: unknown, message: unknown, data: unknown): ApiError {
  const text = typeof message === 'string' && message !== '' ? message : undefined
  return new ApiError(Number(status) || 400, text, safeErrorData(data) as ApiError['data'])
}

/** A PocketBase error class (`new BadRequestError(message, data)`): an svcbase `ApiError`. */
export function errorClass(status: number | null): (...args: unknown[]) => ApiError {
  return function PbApiError(...args: unknown[]): ApiError {
    const [code, message, data] = status === null ? args : [status, ...args]
    return apiErrorOf(code, typeof message === 'string' ? message : undefined, data)
  }
}
