import { maxThreshold } from '../../core/fields/generic-errors.js'
import { isUrl, notUrl, objectGroup } from '../../core/settings/index.js'

/** The longest `timeout` (seconds) a provider call may be given. */
export const MAX_LLM_TIMEOUT = 600

/** `llm`: the chat-completions provider; while disabled a network-free echo provider answers. */
export type LlmSettings = {
  enabled: boolean
  provider: string
  baseUrl: string
  /** Write-only. */
  apiKey: string
  model: string
  /** Seconds one provider call (chat or embeddings) may take before it is aborted. */
  timeout: number
  /** The `/embeddings` model of auto-embedding (docs/vectors.md); `''` keeps echo embeddings. */
  embeddingModel: string
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    llm: LlmSettings
  }
}

/** The `llm` group: base URL and model required while enabled, 60 s per provider call; `apiKey` is write-only. */
export const llmSettings = objectGroup<LlmSettings>({
  key: 'llm',
  secrets: ['apiKey'],
  defaults: () => ({
    enabled: false,
    provider: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    apiKey: '',
    model: 'gpt-4o-mini',
    timeout: 60,
    embeddingModel: 'text-embedding-3-small',
  }),
  check(g) {
    const on = g.boolean('enabled')
    g.string('provider')
    const url = g.requiredString('baseUrl', on)
    if (url !== undefined && !isUrl(url)) g.fail('baseUrl', notUrl())
    g.string('apiKey')
    g.requiredString('model', on)
    g.string('embeddingModel')
    g.count('timeout', 1, true)
    const timeout = g.integer('timeout')
    if (timeout !== undefined && timeout > MAX_LLM_TIMEOUT)
      g.fail('timeout', maxThreshold(MAX_LLM_TIMEOUT))
  },
})
