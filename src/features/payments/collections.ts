/** The payments feature's system collection: the provider events already handled. */
import type { SystemCollectionSpec } from '../../core/collections/system.js'
import { json, text } from '../../core/collections/system-fields.js'

export const paymentsCollections: SystemCollectionSpec[] = [
  {
    id: 'svc_payment_events',
    name: '_payment_events',
    type: 'base',
    fields: [text('eventId', { required: true, unique: true }), text('type'), json('payload')],
  },
]
