/** The LLM gateway's system collection: one row per call, for usage and its limits. */
import type { SystemCollectionSpec } from '../../core/collections/system.js'
import { bool, text } from '../../core/collections/system-fields.js'

export const llmCollections: SystemCollectionSpec[] = [
  {
    // One row per LLM gateway call (features/llm): who asked, which model, the tokens counted.
    id: 'svc_llm_usage',
    name: '_llm_usage',
    type: 'base',
    fields: [
      text('authCollection'),
      text('authId'),
      text('provider'),
      text('model'),
      { name: 'promptTokens', type: 'number' },
      { name: 'completionTokens', type: 'number' },
      { name: 'durationMs', type: 'number' },
      bool('ok'),
      text('error'),
    ],
    // Operators sum and prune (superusers may delete) by date and caller; expendable like logs.
    indexes: [
      'CREATE INDEX idx_llm_usage_created ON _llm_usage (created)',
      'CREATE INDEX idx_llm_usage_auth ON _llm_usage (authId)',
    ],
    database: 'auxiliary',
  },
]
