/**
 * The chat providers of the LLM gateway: the deterministic, network-free echo provider and any
 * OpenAI-compatible chat-completions API (integrations.md §5), streamed. A provider calls
 * `onDelta` for each piece of text in order and resolves with the whole text and the usage;
 * provider failures are `ApiError`s (502) with the provider's message. Aborts (timeout, client
 * gone) surface as the signal's reason; the caller tells which it was.
 */
import { setImmediate as tick } from 'node:timers/promises'
import { ApiError, messages } from '../../core/errors.js'
import type { LlmSettings } from './settings.js'
import { SseLineTooLong, sseEvents } from './sse.js'
import { isOpenAiCompatible } from '../../tools/openai-compatible.js'

/** One chat message as the gateway accepts it. */
export interface ChatMessage {
  role: string
  content: string
}

/** Token counts; null fields when the provider did not report them. */
export interface ChatUsage {
  promptTokens: number
  completionTokens: number
}

/** What a provider call gives back. */
export interface ChatResult {
  text: string
  /** Null when the provider reported no usage (some local servers, an old Ollama). */
  usage: ChatUsage | null
}

/** One provider call. */
export interface ChatCall {
  messages: readonly ChatMessage[]
  signal: AbortSignal
  onDelta: (delta: string) => void
}

/** A configured provider. */
export interface ChatProvider {
  /** `echo`, or the `provider` setting of an OpenAI-compatible one. */
  readonly name: string
  /** The model asked for (`echo` for the echo provider). */
  readonly model: string
  chat(call: ChatCall): Promise<ChatResult>
}

/** The longest reply accepted from a provider, in characters. */
export const MAX_REPLY_CHARS = 1_000_000
/** The most bytes of a provider's error body read for its message. */
const MAX_ERROR_BODY = 64 * 1024
/** The longest provider message passed on to the client. */
const MAX_DETAIL = 500

/** The provider `settings` select. */
export function resolveProvider(settings: LlmSettings): ChatProvider {
  const name = settings.provider.trim().toLowerCase()
  if (settings.enabled && isOpenAiCompatible(name)) {
    return openAiProvider(settings, name)
  }
  return echoProvider
}

/** The message the echo provider replies to: the last `user` message, else the last message. */
export function promptOf(messages: readonly ChatMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]!.role === 'user') return messages[i]!.content
  }
  return messages[messages.length - 1]?.content ?? ''
}

/** The echo provider's token count of a text: its whitespace-separated words. */
export function countWords(text: string): number {
  return text.match(/\S+/g)?.length ?? 0
}

/**
 * The echo provider: replies `Echo: <prompt>`, streamed one word (with the spaces after it) per
 * delta, a turn of the event loop apart. Prompt tokens are the words of every message,
 * completion tokens the deltas: deterministic, no network.
 */
export const echoProvider: ChatProvider = {
  name: 'echo',
  model: 'echo',
  async chat({ messages, signal, onDelta }) {
    const text = `Echo: ${promptOf(messages)}`
    const deltas = text.match(/\S+\s*/g) ?? []
    for (const delta of deltas) {
      signal.throwIfAborted()
      onDelta(delta)
      await tick()
    }
    signal.throwIfAborted()
    const promptTokens = messages.reduce((n, m) => n + countWords(m.content), 0)
    return { text, usage: { promptTokens, completionTokens: deltas.length } }
  },
}

/** Text cut to `max` characters. */
function clip(text: string, max = MAX_DETAIL): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}

/** The OpenAI error body's message, else the body's text, else the status text. */
function errorDetail(text: string, statusText: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown }
    const e = json.error
    if (typeof e === 'string' && e) return e
    if (typeof e === 'object' && e && typeof e.message === 'string' && e.message) return e.message
    if (typeof json.message === 'string' && json.message) return json.message
  } catch {
    // not JSON: the text itself
  }
  return text.trim() || statusText || 'no message'
}

/** Reads at most `max` bytes of a body as text, then stops reading it. */
async function readCapped(res: Response, max: number): Promise<string> {
  if (!res.body) return ''
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
    chunks.push(chunk)
    size += chunk.length
    if (size >= max) break
  }
  return Buffer.concat(chunks).subarray(0, max).toString('utf8')
}

/** Why a fetch failed, from undici's `cause` (`ECONNREFUSED`, a DNS error, …). */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string' && typeof cause.message === 'string')
    return clip(`${cause.code} (${cause.message})`)
  if (typeof cause?.message === 'string') return clip(cause.message)
  return clip(err instanceof Error ? err.message : String(err))
}

const invalid = (reason: string) => new ApiError(502, messages.llmStreamInvalid({ reason }))

/** One streamed chunk (or non-streamed answer) of the chat-completions API, as far as read. */
interface Completion {
  choices?: {
    delta?: { content?: unknown }
    message?: { content?: unknown }
    finish_reason?: unknown
  }[]
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown } | null
  error?: { message?: unknown } | string
}

function usageOf(c: Completion): ChatUsage | null {
  const u = c.usage
  if (!u || typeof u !== 'object') return null
  const p = u.prompt_tokens
  const k = u.completion_tokens
  if (typeof p !== 'number' || typeof k !== 'number') return null
  return { promptTokens: Math.max(0, Math.round(p)), completionTokens: Math.max(0, Math.round(k)) }
}

/**
 * An OpenAI-compatible provider: `POST {baseUrl}/chat/completions` with `stream: true` and
 * `stream_options.include_usage`, `Authorization: Bearer <apiKey>` only when a key is set. A
 * server that answers with one JSON document instead of a stream is accepted too.
 */
function openAiProvider(settings: LlmSettings, name: string): ChatProvider {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`
  const model = settings.model
  return {
    name,
    model,
    async chat({ messages: history, signal, onDelta }) {
      const headers: Record<string, string> = {
        'content-type': 'application/json',
        accept: 'text/event-stream, application/json',
      }
      if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`
      const body = JSON.stringify({
        model,
        messages: history.map((m) => ({ role: m.role, content: m.content })),
        stream: true,
        stream_options: { include_usage: true },
      })
      let res: Response
      try {
        res = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'error' })
      } catch (err) {
        signal.throwIfAborted()
        throw new ApiError(502, messages.llmProviderUnreachable({ reason: networkReason(err) }))
      }
      if (!res.ok) {
        const text = await readCapped(res, MAX_ERROR_BODY).catch(() => '')
        signal.throwIfAborted()
        const detail = clip(errorDetail(text, res.statusText))
        throw new ApiError(502, messages.llmProviderFailed({ status: res.status, detail }))
      }
      const type = res.headers.get('content-type') ?? ''
      if (!type.includes('text/event-stream')) return whole(res, signal, onDelta)
      return streamed(res, signal, onDelta)
    },
  }
}

/** A non-streamed answer: one JSON `chat.completion`. */
async function whole(
  res: Response,
  signal: AbortSignal,
  onDelta: (delta: string) => void,
): Promise<ChatResult> {
  let text: string
  try {
    text = await readCapped(res, MAX_REPLY_CHARS * 4 + 1)
  } catch {
    signal.throwIfAborted()
    throw new ApiError(502, messages.llmStreamBroken)
  }
  let json: Completion
  try {
    json = JSON.parse(text) as Completion
  } catch {
    throw invalid('the answer is neither an event stream nor JSON')
  }
  const content = json.choices?.[0]?.message?.content
  if (typeof content !== 'string') throw invalid('no choices[0].message.content')
  if (content.length > MAX_REPLY_CHARS)
    throw new ApiError(502, messages.llmReplyTooLong({ max: MAX_REPLY_CHARS }))
  if (content !== '') onDelta(content)
  return { text: content, usage: usageOf(json) }
}

/** A streamed answer: `data: {chunk}` events up to `data: [DONE]`. */
async function streamed(
  res: Response,
  signal: AbortSignal,
  onDelta: (delta: string) => void,
): Promise<ChatResult> {
  let text = ''
  let usage: ChatUsage | null = null
  let finished = false
  let done = false
  try {
    for await (const data of sseEvents(res.body as AsyncIterable<Uint8Array>)) {
      if (data.trim() === '[DONE]') {
        done = true
        break
      }
      let chunk: Completion
      try {
        chunk = JSON.parse(data) as Completion
      } catch {
        throw invalid('an event of the stream is not JSON')
      }
      if (chunk.error !== undefined) {
        const detail = errorDetail(data, 'no message')
        throw new ApiError(
          502,
          messages.llmProviderFailed({ status: res.status, detail: clip(detail) }),
        )
      }
      usage = usageOf(chunk) ?? usage
      const choice = chunk.choices?.[0]
      if (choice?.finish_reason) finished = true
      const delta = choice?.delta?.content
      if (typeof delta === 'string' && delta !== '') {
        if (text.length + delta.length > MAX_REPLY_CHARS)
          throw new ApiError(502, messages.llmReplyTooLong({ max: MAX_REPLY_CHARS }))
        text += delta
        onDelta(delta)
      }
    }
  } catch (err) {
    signal.throwIfAborted()
    if (err instanceof ApiError) throw err
    if (err instanceof SseLineTooLong) throw invalid(err.message)
    throw new ApiError(502, messages.llmStreamBroken)
  } finally {
    if (!done) await res.body?.cancel().catch(() => undefined)
  }
  signal.throwIfAborted()
  // A stream that stopped without [DONE] is accepted only when its last choice had finished.
  if (!done && !finished) throw new ApiError(502, messages.llmStreamBroken)
  return { text, usage }
}
