/** The webhooks feature's system collections: the webhooks and the durable outbox of their deliveries. */
import type { SystemCollectionSpec } from '../../core/collections/system.js'
import { bool, date, text } from '../../core/collections/system-fields.js'

export const webhooksCollections: SystemCollectionSpec[] = [
  {
    id: 'svc_webhooks',
    name: '_webhooks',
    type: 'base',
    writeOnly: ['secret'],
    fields: [
      text('name', { required: true }),
      { name: 'url', type: 'url', required: true },
      text('collection', { required: true }),
      text('events'),
      // Write-only (below): kept out of every answer.
      text('secret', { hidden: true }),
      bool('enabled'),
      text('lastStatus'),
      text('lastError'),
      date('lastAttemptAt'),
      { name: 'attempts', type: 'number' },
    ],
  },
  // One row per pending delivery (the durable outbox); written by the webhooks feature only.
  {
    id: 'svc_webhook_outbox',
    name: '_webhook_outbox',
    type: 'base',
    fields: [
      text('webhook', { required: true }),
      text('body', { options: { max: 0 } }),
      { name: 'attempts', type: 'number' },
      date('nextAttemptAt'),
      // Set while one instance sends the row (features/webhooks/lease.ts).
      date('leaseUntil'),
    ],
    indexes: ['CREATE INDEX `idx_webhook_outbox_due` ON `_webhook_outbox` (`nextAttemptAt`)'],
  },
]
