/**
 * Realtime (SPEC §4.5, §6; reference §4): the SSE stream of `GET /api/realtime`, subscriptions
 * through `POST /api/realtime`, and record events fanned out from the app's event bus to the
 * clients of this instance, filtered per subscription by the collection's rules. Its hook
 * families (`onRealtimeConnectRequest`, `onRealtimeSubscribeRequest`, `onRealtimeMessageSend`)
 * are declared in `hooks.ts`.
 */
import type { FastifyInstance } from 'fastify'
import type { App } from '../../core/app.js'
import type { ClientMessenger } from '../../core/realtime.js'
import type { Feature } from '../../http/feature.js'
import { handleBusEvent } from './broadcast.js'
import { addRealtimeHooks } from './hooks.js'
import { RealtimeHub, type HubOptions } from './hub.js'
import { answerForwardedPushes, createMessenger } from './messenger.js'
import { registerConnect } from './routes/connect.js'
import { answerForwardedSubscriptions, registerSubscriptions } from './routes/subscriptions.js'

/** Options of the realtime feature (tests shorten the keep-alive). */
export type RealtimeOptions = Omit<HubOptions, 'logger'>

/** What `registerRealtime` hands back (the same object is the app's `messenger` service). */
export interface Realtime extends ClientMessenger {
  /** The clients of this instance. */
  readonly hub: RealtimeHub
}

/**
 * Registers the realtime routes and offers the `messenger` service, whose `sendToClient` pushes
 * named events (`llm_chunk`, …) to one client, on this instance or, through the cluster's
 * requests, on the one holding its stream (`messenger.ts`). While the app serves (`onServe` to `onTerminate`)
 * the hub listens to the app's event bus; terminating the app ends every stream. Closing the
 * HTTP instance ends them too, so `http.close()` does not wait for them.
 */
export function registerRealtime(
  app: App,
  http: FastifyInstance,
  options: RealtimeOptions = {},
): Realtime {
  addRealtimeHooks(app)
  const hub = new RealtimeHub({ ...options, logger: app.logger })
  let unsubscribe: (() => void) | null = null
  let stopAnswering: (() => void) | null = null
  registerConnect(app, http, hub)
  registerSubscriptions(app, http, hub)
  app.hooks.onServe.bind(async (e) => {
    unsubscribe ??= app.events.subscribe((event) => handleBusEvent(app, hub, event))
    if (!stopAnswering) {
      const stopSubscriptions = answerForwardedSubscriptions(app, hub)
      const stopPushes = answerForwardedPushes(app, hub)
      stopAnswering = () => {
        stopSubscriptions()
        stopPushes()
      }
    }
    await e.next()
  })
  app.hooks.onTerminate.bind(async (e) => {
    unsubscribe?.()
    unsubscribe = null
    stopAnswering?.()
    stopAnswering = null
    hub.close()
    await e.next()
  })
  http.addHook('preClose', async () => hub.close())
  const realtime: Realtime = { hub, ...createMessenger(app, hub) }
  app.services.set('messenger', realtime)
  return realtime
}

/** The realtime feature: {@link registerRealtime} with the given options. */
export function realtimeFeature(options: RealtimeOptions = {}): Feature {
  return {
    name: 'realtime',
    register: ({ app, http }) => {
      registerRealtime(app, http, options)
    },
  }
}
