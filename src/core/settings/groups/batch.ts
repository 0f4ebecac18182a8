import { objectGroup } from '../group.js'

/** `batch`: `POST /api/batch` (off by default). */
export type BatchSettings = {
  enabled: boolean
  maxRequests: number
  /** Seconds for the whole batch transaction. */
  timeout: number
  /** Bytes of the whole batch body; 0 means the default limit. */
  maxBodySize: number
}

/** The `batch` group: limits required while enabled, none negative. */
export const batchSettings = objectGroup<BatchSettings>({
  key: 'batch',
  defaults: () => ({ enabled: false, maxRequests: 50, timeout: 3, maxBodySize: 0 }),
  check(g) {
    const on = g.boolean('enabled')
    g.count('maxRequests', 0, on)
    g.count('timeout', 0, on)
    g.count('maxBodySize', 0)
  },
})
