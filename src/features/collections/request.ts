import type { FastifyRequest } from 'fastify'
import { badRequest, type ApiMessage } from '../../core/errors.js'
import type { RequestInfo } from '../../core/request-info.js'
import { readBody } from '../../http/body.js'
import { requireSuperuser } from '../../http/guards.js'
import { requestInfo } from '../../http/request-info.js'

/** Path params of the collection routes. */
export type CollectionParams = { collection: string }

/** The request's info, once the caller is known to be a superuser. */
export function superuserInfo(req: FastifyRequest): RequestInfo {
  const info = requestInfo(req)
  requireSuperuser(info)
  return info
}

/** The body as an object; a body that cannot be read is a 400 with `message`. */
export async function objectBody(
  req: FastifyRequest,
  message: ApiMessage,
): Promise<Record<string, unknown>> {
  const { values } = await readBody(req).catch((err: unknown) => {
    throw badRequest(message, {}, err)
  })
  return values
}
