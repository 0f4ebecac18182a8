/** Top-level messages of the audit log (`_audit_log`, features/audit). */

/** Messages of the audit log feature. */
export const auditMessages = {
  auditLogAppendOnly:
    'The audit log is append-only: its rows are written by svcbase and cannot be created, updated or deleted through the API.',
} as const

declare module '../../core/errors/catalogue.js' {
  interface FeatureMessages {
    audit: typeof auditMessages
  }
}
