/**
 * PocketBase's API errors for `*.pb.js` scripts: the error classes (`new BadRequestError(…)`)
 * and the event helpers (`e.badRequestError(…)`, `e.error(status, …)`) give an svcbase
 * `ApiError`, answered with its status and (sentence-cased) message.
 */
import { ApiError } from '../../../core/errors.js'

/** The `ApiError` of a status, a message and PocketBase's error data. */
export function apiErrorOf(status: unknown, message: unknown, data: unknown): ApiError {
  const text = typeof message === 'string' && message !== '' ? message : undefined
  const fields = data && typeof data === 'object' ? (data as ApiError['data']) : {}
  return new ApiError(Number(status) || 400, text, fields)
}

/** A PocketBase error class (`new BadRequestError(message, data)`): an svcbase `ApiError`. */
export function errorClass(status: number | null): (...args: unknown[]) => ApiError {
  return function PbApiError(...args: unknown[]): ApiError {
    const [code, message, data] = status === null ? args : [status, ...args]
    return apiErrorOf(code, typeof message === 'string' ? message : undefined, data)
  }
}
