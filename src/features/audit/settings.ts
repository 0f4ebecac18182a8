import { objectGroup } from '../../core/settings/index.js'

/** `audit`: how long `_audit_log` rows are kept. */
export type AuditSettings = {
  /** Rows older than this many days are deleted by `__svcAuditCleanup__`; 0 keeps them forever. */
  maxDays: number
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    audit: AuditSettings
  }
}

/** The `audit` group: `maxDays` a whole number of days from 0 (keep forever) upwards. */
export const auditSettings = objectGroup<AuditSettings>({
  key: 'audit',
  secrets: [],
  defaults: () => ({ maxDays: 90 }),
  check(g) {
    g.count('maxDays', 0)
  },
})
