/**
 * The LLM gateway (SPEC §4.11, §6; docs/llm.md): `POST /api/llm/chat` through the echo provider
 * or an OpenAI-compatible API per the `llm` settings group, tokens streamed to the caller's own
 * realtime connection, exchanges persisted through the record service, and one `_llm_usage` row
 * per call (superusers read and delete them through the records API; nobody creates or edits
 * them there).
 */
import { forbidden, messages } from '../../core/errors.js'
import type { Feature } from '../../http/feature.js'
import { registerChat } from './routes/chat.js'
import { llmSettings } from './settings.js'
import { USAGE_COLLECTION, UsageLog } from './usage.js'
import { llmCollections } from './collections.js'

/** The LLM gateway feature. */
export function llmFeature(): Feature {
  return {
    name: 'llm',
    systemCollections: llmCollections,
    register: ({ app, http }) => {
      app.registerSettingsGroup(llmSettings)
      const usage = new UsageLog(app)
      registerChat(app, http, usage)
      const readOnly = {
        id: '__svcLlmUsageReadOnly__',
        priority: -1_000_000,
        func: (): never => {
          throw forbidden(messages.llmUsageReadOnly)
        },
      }
      app.hooks.onRecordCreateRequest.bind(readOnly, [USAGE_COLLECTION])
      app.hooks.onRecordUpdateRequest.bind(readOnly, [USAGE_COLLECTION])
      app.hooks.onTerminate.bind(async (e) => {
        await usage.flush()
        await e.next()
      })
    },
  }
}
