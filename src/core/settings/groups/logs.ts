import { objectGroup } from '../group.js'

/** `logs`: request log retention and detail. */
export type LogsSettings = {
  maxDays: number
  minLevel: number
  logIP: boolean
  logAuthId: boolean
  /** Bytes of a log entry's data kept; 0 means unlimited. */
  maxDataSize: number
}

/** The `logs` group: retention days and data size not negative, any integer level. */
export const logsSettings = objectGroup<LogsSettings>({
  key: 'logs',
  defaults: () => ({ maxDays: 5, minLevel: 0, logIP: true, logAuthId: false, maxDataSize: 0 }),
  check(g) {
    g.count('maxDays', 0)
    g.integer('minLevel')
    g.boolean('logIP')
    g.boolean('logAuthId')
    g.count('maxDataSize', 0)
  },
})
