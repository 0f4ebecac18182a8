/**
 * Requests whose successful answer is not written to the request log (PocketBase's
 * `apis.SkipSuccessActivityLog()` middleware): a failed one (status 400 and up) still is.
 */
import type { FastifyRequest } from 'fastify'

const skipped = new WeakSet<FastifyRequest>()

/** Marks `req`: its answer is logged only when it fails. */
export function skipSuccessLog(req: FastifyRequest): void {
  skipped.add(req)
}

/** True when `req` was marked by {@link skipSuccessLog}. */
export function successLogSkipped(req: FastifyRequest): boolean {
  return skipped.has(req)
}
