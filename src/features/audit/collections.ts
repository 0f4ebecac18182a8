/** The audit feature's system collection: one `_audit_log` row per audited action. */
import type { SystemCollectionSpec } from '../../core/collections/system.js'
import { text } from '../../core/collections/system-fields.js'

export const auditCollections: SystemCollectionSpec[] = [
  {
    id: 'svc_audit_log',
    name: '_audit_log',
    type: 'base',
    fields: [
      text('action', { required: true }),
      text('collection'),
      text('recordId'),
      text('actorCollection'),
      text('actorId'),
      text('ip'),
    ],
    // Lists sort by created, and the retention prune deletes by it. No API write (features/audit).
    indexes: ['CREATE INDEX idx_audit_log_created ON _audit_log (created)'],
  },
]
