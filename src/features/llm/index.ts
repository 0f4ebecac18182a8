import type { Feature } from '../../http/feature.js'
import { llmSettings } from './settings.js'

/**
 * The LLM proxy (not built yet: its endpoints answer 501 from `not-built`). Declares the `llm`
 * settings group, so that the provider can be configured ahead of time.
 */
export function llmFeature(): Feature {
  return {
    name: 'llm',
    register: ({ app }) => app.registerSettingsGroup(llmSettings),
  }
}
