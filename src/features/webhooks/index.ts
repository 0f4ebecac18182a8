import type { App } from '../../core/app.js'
import { forbidden } from '../../core/errors.js'
import type { RecordHookEvent } from '../../core/hooks.js'
import type { Feature } from '../../http/feature.js'
import { Deliverer, type DelivererOptions } from './deliverer.js'
import { registerWebhookRetry } from './routes/retry.js'
import {
  checkWebhookRow,
  deliveryBody,
  enqueue,
  OUTBOX,
  WEBHOOKS,
  WebhookTargets,
  type WebhookEvent,
} from './service.js'
import { webhooksSettings } from './settings.js'
import { webhooksMessages } from './messages.js'
import { webhooksCollections } from './collections.js'

export { backoffDelay, BACKOFF_BASE_MS, type DelivererOptions } from './deliverer.js'
export { signedHeaders, standardKey } from './service.js'

/** The webhooks feature of one app, the `webhooks` service. */
export interface WebhooksFeature {
  /** Starts a delivery pass now (deliveries due are sent). */
  wake(): void
}

declare module '../../core/services.js' {
  interface AppServices {
    /** The outgoing webhooks' delivery worker (set by `features/webhooks`). */
    webhooks: WebhooksFeature
  }
}

/**
 * Outgoing webhooks (issue 14 part 1): each record change of a collection that enabled
 * `_webhooks` rows ask for queues one `_webhook_outbox` row per webhook in the change's own
 * transaction (`__svcWebhooksCreate__`, `…Update__`, `…Delete__` around the write); the
 * delivery worker sends them after commit with signatures, retries, the SSRF guard and the
 * outcome written back. `_webhooks` rows are checked on write and their `secret` is never
 * answered; the outbox is read-only through the API.
 */
export function webhooksFeature(options: DelivererOptions = {}): Feature {
  return {
    name: 'webhooks',
    systemCollections: webhooksCollections,
    messages: webhooksMessages,
    register: ({ app, http }) => {
      app.registerSettingsGroup(webhooksSettings)
      registerWebhookRetry(app, http)
      const targets = new WebhookTargets()
      const deliverer = new Deliverer(app, () => targets.invalidate(), options)
      // A change of the `_webhooks` rows: matching and the rows read for delivery start afresh.
      bindWebhookRows(app, () => {
        targets.invalidate()
        deliverer.forget()
      })
      // Another instance changed `_webhooks` (the bridge re-publishes its events here), or
      // this one may have missed changes (a remote settings event: the bus reconnected).
      app.events.subscribe((e) => {
        const rows = e.kind === 'record' && e.collection.name === WEBHOOKS
        if (!rows && !(e.kind === 'settings' && e.remote)) return
        targets.invalidate()
        deliverer.forget()
      })
      bindOutbox(app, targets, deliverer)
      bindReadOnlyOutbox(app)
      app.services.set('webhooks', { wake: () => deliverer.wake(true) })
      app.hooks.onServe.bind({
        id: '__svcWebhooksServe__',
        func: async (e) => {
          await e.next()
          targets.invalidate()
          deliverer.start()
        },
      })
      app.hooks.onTerminate.bind({
        id: '__svcWebhooksTerminate__',
        func: async (e) => {
          await deliverer.stop()
          await e.next()
        },
      })
    },
  }
}

/** The `_webhooks` rows: checked before the write, `secret` blanked in what is answered. */
function bindWebhookRows(app: App, changed: () => void): void {
  const write = (isNew: boolean) => async (e: RecordHookEvent) => {
    checkWebhookRow(e.app, e.record, isNew)
    await e.next()
    e.app.onAfterCommit(changed)
    // Stored: the copy the answer, the event bus and the after-success hooks see has none.
    e.record.secret = ''
  }
  app.hooks.onRecordCreate.bind({ id: '__svcWebhooksRowCreate__', func: write(true) }, [WEBHOOKS])
  app.hooks.onRecordUpdate.bind({ id: '__svcWebhooksRowUpdate__', func: write(false) }, [WEBHOOKS])
  app.hooks.onRecordDelete.bind(
    {
      id: '__svcWebhooksRowDelete__',
      func: async (e) => {
        await e.next()
        e.app.onAfterCommit(changed)
        e.record.secret = ''
      },
    },
    [WEBHOOKS],
  )
  // Records read from the table (lists, views) are answered without the secret.
  app.hooks.onRecordsListRequest.bind(
    {
      id: '__svcWebhooksListSecret__',
      func: async (e) => {
        for (const r of e.records) delete r.secret
        await e.next()
      },
    },
    [WEBHOOKS],
  )
  app.hooks.onRecordViewRequest.bind(
    {
      id: '__svcWebhooksViewSecret__',
      func: async (e) => {
        await e.next()
        const body = e.response?.body
        if (e.response?.kind === 'json' && body && typeof body === 'object')
          delete (body as Record<string, unknown>).secret
      },
    },
    [WEBHOOKS],
  )
}

/** Every record change queues its deliveries inside its own transaction. */
function bindOutbox(app: App, targets: WebhookTargets, deliverer: Deliverer): void {
  const queue = (event: WebhookEvent) => async (e: RecordHookEvent) => {
    await e.next()
    const name = e.collection.name
    if (name === OUTBOX || name === WEBHOOKS) return
    const found = await targets.find(e.app, name, event)
    if (found.length === 0) return
    const body = deliveryBody(e.collection, e.record, event)
    await enqueue(
      e.app,
      found.map((t) => t.id),
      body,
    )
    e.app.onAfterCommit(() => deliverer.queued())
  }
  app.hooks.onRecordCreate.bind({ id: '__svcWebhooksCreate__', func: queue('create') })
  app.hooks.onRecordUpdate.bind({ id: '__svcWebhooksUpdate__', func: queue('update') })
  app.hooks.onRecordDelete.bind({ id: '__svcWebhooksDelete__', func: queue('delete') })
}

/** The records API may read `_webhook_outbox` (superusers) but never write it. */
function bindReadOnlyOutbox(app: App): void {
  const options = {
    id: '__svcWebhookOutboxReadOnly__',
    priority: -1_000_000,
    func: (): never => {
      throw forbidden(webhooksMessages.webhookOutboxReadOnly)
    },
  }
  app.hooks.onRecordCreateRequest.bind(options, [OUTBOX])
  app.hooks.onRecordUpdateRequest.bind(options, [OUTBOX])
  app.hooks.onRecordDeleteRequest.bind(options, [OUTBOX])
}
