/**
 * What every sign-in route shares (password, OTP, OAuth2, …): the auth collection of the path,
 * the `mfaId` of a request, and the answer that turns a pending second factor into 401.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../core/app.js'
import { MfaRequiredError } from '../core/auth/flow.js'
import type { Collection } from '../core/collections/model.js'
import { messages, notFound } from '../core/errors.js'
import type { HookResponse } from '../core/request-event.js'
import { sendHookResponse } from './hook-response.js'

/** The auth collection named in a path, or 404 with PocketBase's messages. */
export function authCollectionResolver(app: App): (name: string) => Collection {
  return (name) => {
    const c = app.collections.find(name)
    if (!c) throw notFound(messages.invalidCollectionContext)
    if (c.type !== 'auth') throw notFound(messages.invalidAuthCollectionContext)
    return c
  }
}

/** The `mfaId` of a request: the query wins over the body (reference §1.5). */
export function mfaIdOf(req: FastifyRequest, body: Record<string, unknown>): string {
  const q = (req.query as Record<string, unknown>).mfaId
  if (typeof q === 'string' && q !== '') return q
  return typeof body.mfaId === 'string' ? body.mfaId : ''
}

/** Sends an auth answer, turning a pending second factor into 401 `{mfaId}`. */
export async function sendAuth(
  reply: FastifyReply,
  work: () => Promise<HookResponse>,
): Promise<FastifyReply> {
  try {
    return sendHookResponse(reply, await work())
  } catch (err) {
    if (err instanceof MfaRequiredError) return reply.code(401).send({ mfaId: err.mfaId })
    throw err
  }
}
