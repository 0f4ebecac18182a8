/**
 * From bus events to SSE messages: each record change goes to the clients subscribed to its
 * collection or record, checked per subscription against listRule / viewRule (and the
 * subscription's filter) with the client's auth, serialised as that client may see it. Auth
 * record and auth collection changes update the auth bound to clients (reference §4.5).
 */
import type { App } from '../../core/app.js'
import { API_KEYS } from '../../core/auth/api-keys.js'
import type { Collection } from '../../core/collections/model.js'
import { ApiError } from '../../core/errors.js'
import type { BusEvent, CollectionEvent, RecordEvent } from '../../core/events.js'
import { recordMatches } from '../../core/records/rule-check.js'
import type { RequestInfo } from '../../core/request-info.js'
import { parseDate } from '../../tools/dates.js'
import { pickFields, PickerError } from '../../tools/picker.js'
import { sendMessage } from './hooks.js'
import type { RealtimeClient, RealtimeHub } from './hub.js'
import { topicsOf, type Subscription } from './subscriptions.js'

/** The message data of a record event (PocketBase's struct order: `record`, `action`). */
export interface RecordMessage {
  record: unknown
  action: RecordEvent['action']
}

/** Handles one bus event: auth bookkeeping first, then the record fan-out. */
export function handleBusEvent(app: App, hub: RealtimeHub, event: BusEvent): void {
  if (event.kind === 'collection') {
    syncAuthCollection(hub, event)
    return
  }
  if (event.kind !== 'record' || hub.size === 0) return
  // NB: an event from another instance carries its own copy; prefer the schema we know now.
  const collection = app.registry.find(event.collection.id) ?? event.collection
  if (collection.type === 'auth') syncAuthRecord(hub, collection, event)
  else if (collection.name === API_KEYS) syncApiKey(hub, event)
  broadcastRecord(app, hub, collection, event)
}

/**
 * Queues one delivery per matching subscription on its client's queue, so the fan-out runs
 * off the request path and a slow client (a costly expand, a full socket) never holds the others.
 */
export function broadcastRecord(
  app: App,
  hub: RealtimeHub,
  collection: Collection,
  event: RecordEvent,
): void {
  const id = String(event.record.id)
  for (const { topic, rule } of topicsOf(collection, id)) {
    for (const { client, subscription } of hub.subscribers(topic)) {
      // NB: the auth as it was when the event happened, not when its turn in the queue comes.
      const info = realtimeInfo(client, subscription)
      client.enqueue(() => deliver(app, client, subscription, info, rule, collection, event))
    }
  }
}

/** The request the rules of a subscription see (reference §4.4). */
export function realtimeInfo(client: RealtimeClient, subscription: Subscription): RequestInfo {
  return {
    auth: client.auth,
    query: { ...subscription.query },
    body: {},
    headers: { ...subscription.headers },
    method: 'GET',
    context: 'realtime',
    ip: client.ip,
  }
}

async function deliver(
  app: App,
  client: RealtimeClient,
  subscription: Subscription,
  info: RequestInfo,
  rule: 'listRule' | 'viewRule',
  collection: Collection,
  event: RecordEvent,
): Promise<void> {
  let allowed: boolean
  try {
    allowed = await recordMatches(app, collection, event.record, rule, info, info.query.filter)
  } catch (err) {
    if (!(err instanceof ApiError)) throw err
    // A filter the client may not use (hidden or unknown field, @request) matches nothing.
    app.logger.debug('realtime filter failed', {
      subscription: subscription.name,
      error: String(err),
    })
    return
  }
  if (!allowed) return
  // NB: present() may add `expand` to the record: give it a copy, the event is shared.
  const [out] = await app.records.present(collection, [{ ...event.record }], info)
  let record: unknown = out
  const fields = info.query.fields
  if (fields) {
    try {
      record = pickFields(out, fields)
    } catch (err) {
      if (!(err instanceof PickerError)) throw err
    }
  }
  const message: RecordMessage = { record, action: event.action }
  await sendMessage(app, client, subscription.name, message)
}

/**
 * An auth record changed: clients bound to it keep a fresh copy, or become guests when it was
 * deleted or its `tokenKey` changed (password or email change, token invalidation). A client
 * bound with an API key is disconnected instead: the key goes with its record (the cascade
 * deletes it without record events) and must not outlive a password change.
 */
export function syncAuthRecord(hub: RealtimeHub, collection: Collection, event: RecordEvent): void {
  const id = String(event.record.id)
  for (const client of hub.all()) {
    const auth = client.auth
    if (!auth || auth.collection.id !== collection.id || String(auth.record.id) !== id) continue
    if (event.action === 'delete' || event.record.tokenKey !== auth.record.tokenKey) {
      if (client.apiKey) hub.drop(client, 'api key owner deleted or its tokenKey changed')
      else client.bind(null, null)
    } else if (event.action === 'update') {
      client.auth = { record: { ...event.record }, collection }
    }
  }
}

/**
 * An `_api_keys` row changed: the clients bound with that key are disconnected when it was
 * deleted or no longer names the same key and owner; an update of its expiry re-arms their timer.
 */
export function syncApiKey(hub: RealtimeHub, event: RecordEvent): void {
  const id = String(event.record.id)
  for (const client of hub.all()) {
    const key = client.apiKey
    const auth = client.auth
    if (!key || !auth || key.id !== id) continue
    const owner =
      String(event.record.recordRef) === String(auth.record.id) &&
      String(event.record.collectionRef) === auth.collection.id
    if (event.action === 'delete' || !owner || event.record.keyHash === '') {
      hub.drop(client, 'api key deleted')
      continue
    }
    const expiresAt = parseDate(event.record.expires)?.getTime() ?? null
    if (expiresAt !== key.expiresAt) client.bind(auth, { id, expiresAt })
  }
}

/**
 * An auth collection changed: deleting it, or changing its auth token secret, makes its clients
 * guests; any other change refreshes the collection they hold.
 */
export function syncAuthCollection(hub: RealtimeHub, event: CollectionEvent): void {
  for (const client of hub.all()) {
    const auth = client.auth
    if (!auth || auth.collection.id !== event.collection.id) continue
    const before = auth.collection.authOptions?.authToken.secret
    const after = event.collection.authOptions?.authToken.secret
    // NB: an API key whose collection is gone resolves to nobody: its stream ends.
    if (event.action === 'delete' && client.apiKey) hub.drop(client, 'api key collection deleted')
    else if (event.action === 'delete' || before !== after) client.bind(null, null)
    else client.auth = { record: auth.record, collection: event.collection }
  }
}
