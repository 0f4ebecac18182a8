/** `onRecordEnrich`: the records an answer carries, each as it will be sent. */
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import type { RecordData, RequestInfo } from '../request-info.js'

/**
 * Fires `onRecordEnrich` for each serialised record `out[i]` of `records[i]` (nothing when no
 * handler is bound): the handlers change the answer in place.
 */
export async function enrichRecords(
  app: App,
  collection: Collection,
  records: readonly RecordData[],
  out: Record<string, unknown>[],
  info: RequestInfo,
): Promise<void> {
  const hook = app.hooks.onRecordEnrich
  if (hook.length === 0) return
  const tags = [collection.id, collection.name]
  for (let i = 0; i < out.length; i++)
    await hook.trigger(
      { app, collection, record: out[i]!, stored: records[i]!, requestInfo: info },
      () => {},
      tags,
    )
}
