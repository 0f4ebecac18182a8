import { isUrl, notUrl, objectGroup } from '../../core/settings/index.js'

/** `llm`: the chat-completions provider; while disabled a network-free echo provider answers. */
export type LlmSettings = {
  enabled: boolean
  provider: string
  baseUrl: string
  /** Write-only. */
  apiKey: string
  model: string
}

declare module '../../core/settings/registry.js' {
  interface Settings {
    llm: LlmSettings
  }
}

/** The `llm` group: base URL and model required while enabled; `apiKey` is write-only. */
export const llmSettings = objectGroup<LlmSettings>({
  key: 'llm',
  secrets: ['apiKey'],
  defaults: () => ({
    enabled: false,
    provider: 'openai',
    baseUrl: 'https://api.openai.com/v1',
    apiKey: '',
    model: 'gpt-4o-mini',
  }),
  check(g) {
    const on = g.boolean('enabled')
    g.string('provider')
    const url = g.requiredString('baseUrl', on)
    if (url !== undefined && !isUrl(url)) g.fail('baseUrl', notUrl())
    g.string('apiKey')
    g.requiredString('model', on)
  },
})
