/**
 * The `messenger` service over this instance's hub and the cluster: a push, an owner question or
 * a subscription take for a client of this instance is answered at once by the hub; for a client
 * this instance does not hold, it is asked of the other instances through `app.cluster.requests`
 * (when the cluster has them), and the one holding the stream answers with the same checks
 * ({@link answerForwardedPushes}).
 *
 * Pushes to a remote client go through one queue per client: at most one request per client is
 * in flight, and the events queued meanwhile travel together in the next one (a batch of at most
 * {@link MAX_BATCH_EVENTS} events or about {@link MAX_BATCH_BYTES} bytes), so an LLM stream's
 * chunks arrive whole and in order whatever the transport does with concurrent requests.
 */
import type { App } from '../../core/app.js'
import type { ClientMessenger, ClientOwner } from '../../core/realtime.js'
import type { ClusterRecord } from '../../store/cluster.js'
import type { RealtimeHub } from './hub.js'

/** The topics of the requests between instances. */
export const PUSH_TOPICS = {
  send: 'realtime.send',
  owner: 'realtime.owner',
  take: 'realtime.take',
} as const

/** The most events one forwarded push carries. */
export const MAX_BATCH_EVENTS = 64
/**
 * About the most bytes of event data one forwarded push carries (one event may exceed it alone):
 * below the 7 900 bytes a PostgreSQL notification carries inline.
 */
export const MAX_BATCH_BYTES = 6000

/** One event waiting for its client: its name, its data as JSON, and who waits for it. */
interface Queued {
  event: string
  json: string
  resolve: (sent: boolean) => void
}

const resolved = {
  true: Promise.resolve(true),
  false: Promise.resolve(false),
  undefined: Promise.resolve(undefined),
}

function assertEventName(event: string): void {
  if (/[\r\n]/.test(event)) throw new Error('SSE event must not contain \\r or \\n')
}

const isOwner = (v: unknown): v is ClientOwner =>
  typeof v === 'object' &&
  v !== null &&
  typeof (v as ClientOwner).collectionId === 'string' &&
  typeof (v as ClientOwner).recordId === 'string'

/**
 * The {@link ClientMessenger} of this instance: `hub` for its own clients, the cluster's requests
 * for the others' (read from `app.cluster` on each call, so a restarted cluster is used).
 */
export function createMessenger(app: App, hub: RealtimeHub): ClientMessenger {
  const queues = new Map<string, Queued[]>()
  /** The cluster's requests when instances share the data; none before bootstrap or after terminate. */
  const requests = () => {
    if (!app.isBootstrapped) return undefined
    return app.cluster.shared ? app.cluster.requests : undefined
  }

  /** Asks the others; undefined when none holds the client, none answered, or the link failed. */
  const ask = async (topic: string, payload: ClusterRecord): Promise<ClusterRecord | undefined> => {
    const link = requests()
    if (!link) return undefined
    try {
      return await link.ask(topic, payload)
    } catch (err) {
      app.logger.warn('realtime: a request to the other instances failed', {
        topic,
        error: String(err),
      })
      return undefined
    }
  }

  /** Sends the queue of `clientId` batch by batch until it is empty, then forgets it. */
  const pump = async (clientId: string, queue: Queued[]): Promise<void> => {
    while (queue.length > 0) {
      let bytes = 0
      let n = 0
      while (n < queue.length && n < MAX_BATCH_EVENTS) {
        bytes += queue[n]!.json.length + queue[n]!.event.length
        if (n > 0 && bytes > MAX_BATCH_BYTES) break
        n++
      }
      const batch = queue.splice(0, n)
      const answer = await ask(PUSH_TOPICS.send, {
        clientId,
        events: batch.map((q) => [q.event, q.json]),
      })
      const sent = answer?.sent === true
      for (const q of batch) q.resolve(sent)
      // A client that is gone never comes back (ids are not reused): fail the rest at once.
      if (!sent) for (const q of queue.splice(0)) q.resolve(false)
    }
    queues.delete(clientId)
  }

  return {
    sendToClient(clientId, event, data) {
      if (hub.get(clientId) || !requests())
        return hub.sendToClient(clientId, event, data) ? resolved.true : resolved.false
      assertEventName(event)
      const json = JSON.stringify(data) ?? 'null'
      return new Promise<boolean>((resolve) => {
        let queue = queues.get(clientId)
        const idle = !queue
        if (!queue) queues.set(clientId, (queue = []))
        queue.push({ event, json, resolve })
        if (idle) void pump(clientId, queue)
      })
    },

    async clientOwner(clientId) {
      if (hub.get(clientId) || !requests()) return hub.clientOwner(clientId)
      const answer = await ask(PUSH_TOPICS.owner, { clientId })
      if (!answer) return undefined
      return isOwner(answer.owner) ? answer.owner : null
    },

    async takeSubscription(clientId, topic, ip) {
      if (hub.get(clientId) || !requests()) return hub.takeSubscription(clientId, topic, ip)
      const answer = await ask(PUSH_TOPICS.take, {
        clientId,
        topic,
        ...(ip === undefined ? {} : { ip }),
      })
      return answer?.taken === true
    },
  }
}

/**
 * Answers the pushes, owner questions and subscription takes other instances forward for the
 * clients of this instance's hub (nothing for a client it does not hold); returns the removal.
 * Each answer is computed synchronously on arrival, so two takes of one subscription, from any
 * instances, give true once.
 */
export function answerForwardedPushes(app: App, hub: RealtimeHub): () => void {
  const requests = app.cluster.requests
  if (!requests) return () => undefined
  const held = (payload: ClusterRecord) =>
    typeof payload.clientId === 'string' && hub.get(payload.clientId) !== undefined
  const removals = [
    requests.handle(PUSH_TOPICS.send, (payload) => {
      if (!held(payload)) return resolved.undefined
      const client = hub.get(payload.clientId as string)!
      const events = Array.isArray(payload.events) ? (payload.events as unknown[]) : []
      for (const item of events) {
        const [event, json] = Array.isArray(item) ? (item as unknown[]) : []
        if (typeof event !== 'string' || typeof json !== 'string')
          return Promise.resolve({ sent: false })
        try {
          if (!client.sendJson(event, json)) return Promise.resolve({ sent: false })
        } catch {
          return Promise.resolve({ sent: false })
        }
      }
      return Promise.resolve({ sent: true })
    }),
    requests.handle(PUSH_TOPICS.owner, (payload) => {
      if (!held(payload)) return resolved.undefined
      const owner = hub.clientOwner(payload.clientId as string)
      // A client closed meanwhile is not held any more.
      if (owner === undefined) return resolved.undefined
      return Promise.resolve({ owner })
    }),
    requests.handle(PUSH_TOPICS.take, (payload) => {
      if (!held(payload) || typeof payload.topic !== 'string') return resolved.undefined
      const ip = typeof payload.ip === 'string' ? payload.ip : undefined
      return Promise.resolve({
        taken: hub.takeSubscription(payload.clientId as string, payload.topic, ip),
      })
    }),
  ]
  return () => {
    for (const remove of removals) remove()
  }
}
