import type { App } from '../../core/app.js'
import { findByEmail, requireEmail } from '../../core/auth/lookup.js'
import { verifyToken, type TokenType, type VerifiedToken } from '../../core/auth/tokens.js'
import type { Collection } from '../../core/collections/model.js'
import type { RecordAuthFlowRequestEvent } from '../../core/hooks-auth.js'
import { requestEvent, triggerRequest, type HookResponse } from '../../core/request-event.js'
import type { RecordData, RequestInfo } from '../../core/request-info.js'
import type { Hook } from '../../tools/hook.js'

/**
 * What the auth request hooks are told before a flow runs: the record a body's email or token
 * names. The flows in `core/auth` check the body again and fail with their own errors; these
 * lookups only decide what the event shows, and never throw.
 */

/** The record of the body's `email` (null when the email is invalid or unknown). */
export async function recordOfEmail(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
): Promise<RecordData | null> {
  let email: string
  try {
    email = requireEmail(body)
  } catch {
    return null
  }
  return (await findByEmail(app, c, email)) ?? null
}

/** The verified `token` of the body when it is of `type` and for collection `c`, else null. */
export async function tokenOfBody(
  app: App,
  c: Collection,
  body: Record<string, unknown>,
  type: TokenType,
): Promise<VerifiedToken | null> {
  const token = typeof body.token === 'string' ? body.token.trim() : ''
  if (token === '') return null
  const verified = await verifyToken(app, token, [type])
  return verified && verified.collection.id === c.id ? verified : null
}

/** The tags an auth hook fires with: the collection's id and name. */
export const tagsOf = (c: Collection): string[] => [c.id, c.name]

/**
 * Runs a flow that answers 204 inside its request hook when the body names a record (`record`);
 * without one the flow runs alone (it then fails, or stays quiet, on its own). A handler that
 * skips `e.next()` skips the flow.
 */
export async function quietFlow(
  hook: Hook<RecordAuthFlowRequestEvent>,
  app: App,
  info: RequestInfo,
  c: Collection,
  record: RecordData | null,
  flow: (app: App) => Promise<void>,
): Promise<HookResponse> {
  if (!record) {
    await flow(app)
    return { status: 204, kind: 'empty', body: null }
  }
  return triggerRequest(
    hook,
    requestEvent(app, info, { collection: c, record }),
    async (e) => {
      await flow(e.app)
      e.noContent(204)
    },
    tagsOf(c),
  )
}
