import type { Feature } from '../../http/feature.js'
import { apnsBackend } from './apns.js'
import { fcmBackend } from './fcm.js'
import { registerSendRoute } from './routes/send.js'
import { PushService } from './service.js'
import { pushSettings } from './settings.js'
import { backfillCollectionRefs, bindSubscriptionChecks } from './subscriptions.js'
import { webBackend } from './web.js'
import { pushMessages } from './messages.js'
import { pushCollections } from './collections.js'

export type { PushBackend, PushMessage, PushOutcome, PushTarget } from './backend.js'

declare module '../../core/services.js' {
  interface AppServices {
    /** Push sends to `_push_subscriptions` (set by `features/push`). */
    push: PushService
  }
}

/**
 * Push notifications (SPEC §2.6–§2.7, DECISIONS "Push send"): the `push` settings group, the
 * checks on `_push_subscriptions` rows, `POST /api/push/send`, and the triggers, run from the
 * event bus after commit in a bounded background queue while the app serves. Backends: Web Push
 * (`web.ts`), FCM (`fcm.ts`) and APNs (`apns.ts`).
 */
export function pushFeature(): Feature {
  return {
    name: 'push',
    systemCollections: pushCollections,
    messages: pushMessages,
    register: ({ app, http }) => {
      app.registerSettingsGroup(pushSettings)
      const push = new PushService(app)
      push.addBackend(webBackend())
      push.addBackend(fcmBackend(app))
      push.addBackend(apnsBackend(app))
      bindSubscriptionChecks(app)
      app.services.set('push', push)
      app.hooks.onBootstrap.bind(async (e) => {
        await e.next()
        await backfillCollectionRefs(app).catch((err: unknown) =>
          app.logger.warn('push: attributing older subscriptions to their collection failed', {
            error: String(err),
          }),
        )
      })
      app.hooks.onServe.bind(async (e) => {
        await e.next()
        push.start()
      })
      app.hooks.onTerminate.bind(async (e) => {
        await push.stop()
        await e.next()
      })
      registerSendRoute(app, http, push)
    },
  }
}
