import type { FastifyInstance, FastifyRequest } from 'fastify'
import { badRequest, messages } from '../core/errors.js'
import { PickerError, pickFields } from '../tools/picker.js'

/** The first `fields` value of the query string, as PocketBase's `Query().Get` reads it. */
function fieldsParam(req: FastifyRequest): string {
  const query = req.query
  if (typeof query !== 'object' || query === null) return ''
  const raw = (query as Record<string, unknown>).fields
  const value: unknown = Array.isArray(raw) ? raw[0] : raw
  return typeof value === 'string' ? value : ''
}

/** JSON payloads only: Fastify already skips strings, buffers and streams, this the rest. */
function isPickable(payload: unknown): payload is object {
  return (
    typeof payload === 'object' &&
    payload !== null &&
    !ArrayBuffer.isView(payload) &&
    typeof (payload as { pipe?: unknown }).pipe !== 'function'
  )
}

/**
 * Adds the `fields` query parameter to every 2xx JSON response (reference §0.9): a
 * `preSerialization` hook replaces the payload with its picked copy. Error responses are never
 * picked; a malformed expression answers 400 through the error handler.
 */
export function registerFieldsPicker(http: FastifyInstance): void {
  http.addHook('preSerialization', (req, reply, payload: unknown, done) => {
    if (reply.statusCode < 200 || reply.statusCode > 299 || !isPickable(payload)) {
      return done(null, payload)
    }
    const fields = fieldsParam(req)
    if (fields.trim() === '') return done(null, payload)
    try {
      done(null, pickFields(payload, fields))
    } catch (err) {
      done(
        err instanceof PickerError
          ? badRequest(messages.invalidFields({ reason: err.message }), {}, err)
          : (err as Error),
      )
    }
  })
}
