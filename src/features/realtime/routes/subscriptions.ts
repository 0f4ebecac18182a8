import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { App } from '../../../core/app.js'
import { hashApiKey } from '../../../core/auth/api-keys.js'
import { ApiError, badRequest, forbidden, messages, notFound } from '../../../core/errors.js'
import { featureHook } from '../../../core/hooks-features.js'
import { requestEvent, triggerRequest, type HookResponse } from '../../../core/request-event.js'
import type { AuthInfo, RequestInfo } from '../../../core/request-info.js'
import { sendHookResponse } from '../../../http/hook-response.js'
import { requestInfo } from '../../../http/request-info.js'
import { bearerToken } from '../../../http/server.js'
import { findKey } from '../bound-keys.js'
import type { BoundKey, RealtimeHub } from '../hub.js'
import { hooked, subscriptionsOf } from '../hooks.js'
import { parseSubscribeForm, type Subscription } from '../subscriptions.js'

/** The topic of a subscription request forwarded to the instance holding the client. */
const FORWARD_TOPIC = 'realtime.subscribe'

/** True when two auth states name the same record (guests are equal to each other). */
function sameAuth(a: AuthInfo | null, b: AuthInfo | null): boolean {
  if (!a || !b) return a === b
  return a.collection.id === b.collection.id && String(a.record.id) === String(b.record.id)
}

/**
 * The API key a request authenticated with (security issue #32: its deletion or expiry ends the
 * stream it binds): undefined for a JWT or no credential, null when the key's row is gone since
 * the request was authenticated (the request then binds as a guest).
 */
async function requestKey(app: App, req: FastifyRequest): Promise<BoundKey | null | undefined> {
  if (!req.svcApiKey || !req.svcAuth) return undefined
  const token = bearerToken(req.headers.authorization)
  return token ? findKey(app, { hash: hashApiKey(token) }) : null
}

/**
 * Applies a subscription request to a client of this instance, inside
 * `onRealtimeSubscribeRequest` (../hooks.ts), or throws its error. Resolves to the answer a
 * handler left instead of the 204, or null.
 */
async function apply(
  app: App,
  hub: RealtimeHub,
  body: unknown,
  info: RequestInfo,
  auth: AuthInfo | null,
  key: BoundKey | null,
): Promise<HookResponse | null> {
  const form = parseSubscribeForm(body)
  const client = hub.get(form.clientId)
  if (!client || client.closed) throw notFound(messages.realtimeClientMissing)
  if (client.ip !== info.ip) throw badRequest(messages.realtimeClientInvalid)
  if (client.auth && !sameAuth(client.auth, auth)) {
    throw forbidden(messages.realtimeAuthMismatch)
  }
  const subscribe = (subscriptions: readonly Subscription[]): void => {
    client.bind(auth, key)
    hub.subscribe(client, subscriptions)
  }
  if (!hooked(app, 'onRealtimeSubscribeRequest')) {
    subscribe(form.subscriptions)
    return null
  }
  let done = false
  const event = requestEvent(app, info, {
    client,
    subscriptions: form.subscriptions.map((s) => s.name),
  })
  const answer = await triggerRequest(
    featureHook(app, 'onRealtimeSubscribeRequest')!,
    event,
    (e) => {
      subscribe(
        subscriptionsOf(form.subscriptions, Array.isArray(e.subscriptions) ? e.subscriptions : []),
      )
      done = true
    },
  )
  return done && !event.response ? null : answer
}

/**
 * `POST /api/realtime` `{clientId, subscriptions}` → 204 (reference §4.2): replaces the
 * client's subscriptions and binds this request's auth to it. Errors: 400 for a malformed body
 * or a request from another IP than the stream's, 404 for an unknown or closed client, 403 when
 * the client is already bound to another auth record (a guest may upgrade, never switch back).
 * Auth bound with an API key remembers the key: deleting it, or its expiry, ends the stream
 * (`broadcast.ts`, `hub.ts`).
 *
 * When other instances share the data (`serve --workers`), the request may reach another
 * process than the client's stream: a client unknown here is asked of the others through
 * `app.cluster.requests`, and the one holding it applies the request with the same checks.
 */
export function registerSubscriptions(app: App, http: FastifyInstance, hub: RealtimeHub): void {
  http.post('/api/realtime', async (req, reply) => {
    const form = parseSubscribeForm(req.body)
    const ip = req.svcIp || req.ip
    const key = await requestKey(app, req)
    // NB: a key deleted since the request was authenticated leaves a guest.
    const auth = key === null ? null : req.svcAuth
    const requests = app.cluster.requests
    const local = hub.get(form.clientId)
    if (!local && requests) {
      const answer = await requests.ask(FORWARD_TOPIC, {
        body: req.body,
        ip,
        auth: auth ? { collectionId: auth.collection.id, recordId: String(auth.record.id) } : null,
        apiKey: key ? key.id : null,
      })
      if (!answer) throw notFound(messages.realtimeClientMissing)
      if (answer.status !== 204)
        throw new ApiError(
          Number(answer.status),
          typeof answer.message === 'string' ? answer.message : undefined,
        )
      return reply.code(204).send()
    }
    const answer = await apply(
      app,
      hub,
      req.body,
      { ...requestInfo(req), ip, auth },
      auth,
      key ?? null,
    )
    return answer ? sendHookResponse(reply, answer) : reply.code(204).send()
  })
}

/**
 * Answers the subscription requests other instances forward (see `registerSubscriptions`) for
 * the clients of this instance's hub; returns the removal.
 */
export function answerForwardedSubscriptions(app: App, hub: RealtimeHub): () => void {
  const requests = app.cluster.requests
  if (!requests) return () => undefined
  return requests.handle(FORWARD_TOPIC, async (payload) => {
    const form = parseSubscribeForm(payload.body)
    if (!hub.get(form.clientId)) return undefined
    let auth: AuthInfo | null = null
    let key: BoundKey | null = null
    const who = payload.auth as { collectionId: string; recordId: string } | null
    if (who) {
      const collection = app.collections.find(who.collectionId)
      const record = collection ? await app.records.findById(collection, who.recordId) : undefined
      // NB: an auth record deleted meanwhile leaves a guest, as its token would be now.
      if (collection && record) auth = { collection, record }
    }
    if (auth && typeof payload.apiKey === 'string') {
      // NB: so does an API key deleted meanwhile.
      key = await findKey(app, { id: payload.apiKey })
      if (!key) auth = null
    }
    const info: RequestInfo = {
      auth,
      query: {},
      body:
        typeof payload.body === 'object' && payload.body !== null
          ? (payload.body as Record<string, unknown>)
          : {},
      headers: {},
      method: 'POST',
      context: 'default',
      ip: String(payload.ip),
    }
    try {
      const answer = await apply(app, hub, payload.body, info, auth, key)
      // NB: a handler's own answer crosses instances as its status only.
      return { status: answer ? answer.status : 204 }
    } catch (err) {
      if (err instanceof ApiError) return { status: err.status, message: err.message }
      throw err
    }
  })
}
