/**
 * The realtime feature's hook families (PocketBase's `onRealtimeConnectRequest`,
 * `onRealtimeSubscribeRequest` and `onRealtimeMessageSend`), declared here and created when the
 * feature registers (`core/hooks-features.ts`):
 * - `onRealtimeConnectRequest` around the opening of a `GET /api/realtime` stream: `e.client`
 *   is the client about to connect (its id already drawn); not calling `e.next()` opens no
 *   stream (the handler's answer, or an empty 200).
 * - `onRealtimeSubscribeRequest` around the change a `POST /api/realtime` asks, once the client
 *   and its auth were checked: `e.subscriptions` (the subscription strings) may be changed
 *   before `e.next()` binds the auth and replaces the client's subscriptions with them; not
 *   calling it changes nothing.
 * - `onRealtimeMessageSend` around each message the server sends a client (the connect messages
 *   and the record events): `e.message` is `{name, data}` (`data` the JSON text); a handler may
 *   change both, and not calling `e.next()` sends nothing. Pushes sent through the `messenger`
 *   service (`llm_chunk`, …) do not pass through it.
 */
import type { App } from '../../core/app.js'
import { badRequest, messages } from '../../core/errors.js'
import { addFeatureHooks, featureHook } from '../../core/hooks-features.js'
import type { RequestEvent } from '../../core/request-event.js'
import { Hook, type HookEvent } from '../../tools/hook.js'
import type { RealtimeClient } from './hub.js'
import { parseSubscription, type Subscription } from './subscriptions.js'

/** A client as the realtime hooks show it. */
export interface RealtimeClientInfo {
  readonly id: string
  /** Its subscriptions by subscription string. */
  readonly subscriptions: ReadonlyMap<
    string,
    {
      readonly query: Readonly<Record<string, string>>
      readonly headers: Readonly<Record<string, string>>
    }
  >
  /** True once its stream ended. */
  readonly closed: boolean
}

/** The event of `onRealtimeConnectRequest`. */
export interface RealtimeConnectRequestEvent extends RequestEvent {
  client: RealtimeClientInfo
}

/** The event of `onRealtimeSubscribeRequest`. */
export interface RealtimeSubscribeRequestEvent extends RequestEvent {
  client: RealtimeClientInfo
  /** The subscription strings the client will have. */
  subscriptions: string[]
}

/** A message to a client: its event name and its data as JSON text. */
export interface RealtimeMessage {
  name: string
  data: string
}

/** The event of `onRealtimeMessageSend`. */
export interface RealtimeMessageEvent extends HookEvent {
  app: App
  client: RealtimeClientInfo
  message: RealtimeMessage
}

declare module '../../core/hooks-features.js' {
  interface FeatureHooks {
    /** Around the opening of a realtime stream (features/realtime/hooks.ts). */
    onRealtimeConnectRequest: Hook<RealtimeConnectRequestEvent>
    /** Around a change of a client's subscriptions (features/realtime/hooks.ts). */
    onRealtimeSubscribeRequest: Hook<RealtimeSubscribeRequestEvent>
    /** Around each message sent to a client (features/realtime/hooks.ts). */
    onRealtimeMessageSend: Hook<RealtimeMessageEvent>
  }
}

/** Adds the feature's families to the app's hooks. */
export function addRealtimeHooks(app: App): void {
  addFeatureHooks(app, {
    onRealtimeConnectRequest: new Hook(),
    onRealtimeSubscribeRequest: new Hook(),
    onRealtimeMessageSend: new Hook(),
  })
}

/** True when `name`'s family has handlers (else the plain path runs, with nothing around it). */
export function hooked(
  app: App,
  name: 'onRealtimeConnectRequest' | 'onRealtimeSubscribeRequest',
): boolean {
  return (featureHook(app, name)?.length ?? 0) > 0
}

/** Sends one message to `client` inside `onRealtimeMessageSend`. */
export async function sendMessage(
  app: App,
  client: RealtimeClient,
  name: string,
  data: unknown,
): Promise<void> {
  const hook = featureHook(app, 'onRealtimeMessageSend')
  if (!hook || hook.length === 0) {
    client.send(name, data)
    return
  }
  const message: RealtimeMessage = { name, data: JSON.stringify(data) }
  await hook.trigger({ app, client, message }, (e) => {
    client.sendJson(String(e.message.name), String(e.message.data))
  })
}

/**
 * The subscriptions of the strings a handler left in `e.subscriptions`: those it kept as
 * parsed with the request, the others parsed now.
 */
export function subscriptionsOf(
  parsed: readonly Subscription[],
  names: readonly unknown[],
): Subscription[] {
  const byName = new Map(parsed.map((s) => [s.name, s]))
  const out = new Map<string, Subscription>()
  for (const n of names) {
    if (typeof n !== 'string' || n === '') continue
    try {
      out.set(n, byName.get(n) ?? parseSubscription(n))
    } catch (err) {
      // A string a handler added that does not parse: the request's fault as a client's would be.
      throw badRequest(
        messages.realtimeBadSubscription({ name: n, reason: (err as Error).message }),
        {},
        err,
      )
    }
  }
  return [...out.values()]
}
