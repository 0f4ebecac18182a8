/**
 * Messages and field error entries of the LLM gateway (`features/llm`, `POST /api/llm/chat`):
 * the request's fields, the realtime connection it streams to, the provider's failures (also the
 * `message` of `llm_error` events) and the read-only `_llm_usage` collection.
 */
import type { Args, Entry } from './catalogue.js'

const provider = 'The LLM provider'

/** Top-level messages of the LLM gateway. */
export const llmMessages = {
  llmChatInvalid: 'Failed to send the chat request: check the submitted fields.',
  llmClientMissing:
    'No open realtime connection of yours has this clientId: connect to /api/realtime and subscribe with your own token first.',
  llmProviderFailed: ({ status, detail }: Args<'status' | 'detail'>) =>
    `${provider} answered HTTP ${status}: ${detail}` as const,
  llmProviderUnreachable: ({ reason }: Args<'reason'>) =>
    `${provider} could not be reached: ${reason}` as const,
  llmProviderTimeout: ({ seconds }: Args<'seconds'>) =>
    `${provider} did not finish within ${seconds} s (settings.llm.timeout).` as const,
  llmStreamBroken: `${provider}'s stream ended before it finished.`,
  llmStreamInvalid: ({ reason }: Args<'reason'>) =>
    `${provider} sent an invalid answer: ${reason}` as const,
  llmReplyTooLong: ({ max }: Args<'max'>) =>
    `${provider}'s reply is longer than ${max} characters; it was cut off.` as const,
  llmCancelled: 'The chat request was cancelled: the client closed it.',
  llmShuttingDown: 'The server is shutting down: the chat request was cancelled.',
  llmUsageReadOnly:
    'The _llm_usage records are written only by the LLM gateway: they cannot be created or changed through the records API.',
} as const satisfies Record<string, Entry>

/** Field error entries of the LLM gateway. */
export const llmCodes = {
  'validation_length_too_long:llm_size':
    'The messages must total no more than {max} bytes of content.',
  'validation_in_invalid:llm_role': 'Must be one of system, developer, user, assistant.',
  'validation_missing_collection:llm':
    'Must be the name of an existing collection that is not a view.',
} as const satisfies Record<string, Entry>
