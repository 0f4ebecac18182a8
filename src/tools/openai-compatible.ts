/**
 * The `llm.provider` values that name an OpenAI-compatible API (chat completions and
 * embeddings), case-insensitive. Any other value, and `llm.enabled: false`, selects the
 * network-free echo provider (SPEC §2.7), for the LLM gateway and auto-embedding alike.
 */
export const OPENAI_COMPATIBLE = [
  'openai',
  'openai-compatible',
  'ollama',
  'lmstudio',
  'vllm',
  'llamacpp',
  'localai',
  'openrouter',
  'groq',
  'together',
  'mistral',
  'deepseek',
] as const

/** Whether `provider` names an OpenAI-compatible API (see {@link OPENAI_COMPATIBLE}). */
export function isOpenAiCompatible(provider: string): boolean {
  return (OPENAI_COMPATIBLE as readonly string[]).includes(provider.trim().toLowerCase())
}
