/**
 * Realtime (SPEC §4.5, §6; reference §4): the SSE stream of `GET /api/realtime`, subscriptions
 * through `POST /api/realtime`, and record events fanned out from the app's event bus to the
 * clients of this instance, filtered per subscription by the collection's rules.
 */
import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import type { ClientMessenger } from '../../core/realtime.js'
import { handleBusEvent } from './broadcast.js'
import { RealtimeHub, type HubOptions } from './hub.js'
import { registerConnect } from './routes/connect.js'
import { registerSubscriptions } from './routes/subscriptions.js'

/** Options of the realtime feature (tests shorten the keep-alive). */
export type RealtimeOptions = Omit<HubOptions, 'logger'>

/** What `register` hands back to the composition root. */
export interface Realtime extends ClientMessenger {
  /** The clients of this instance. */
  readonly hub: RealtimeHub
}

/**
 * Registers the realtime routes and subscribes the hub to the app's event bus. The returned
 * object's `sendToClient` pushes named events (`llm_chunk`, …) to one client. Closing the HTTP
 * instance ends every stream, so `http.close()` does not wait for them.
 */
export function register(app: App, http: FastifyInstance, options: RealtimeOptions = {}): Realtime {
  const hub = new RealtimeHub({ ...options, logger: app.logger })
  const unsubscribe = app.events.subscribe((event) => handleBusEvent(app, hub, event))
  registerConnect(http, hub)
  registerSubscriptions(http, hub)
  http.addHook('preClose', async () => {
    unsubscribe()
    hub.close()
  })
  return {
    hub,
    sendToClient: (clientId, event, data) => hub.sendToClient(clientId, event, data),
  }
}
