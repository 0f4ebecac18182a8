/**
 * The LLM gateway's domain (SPEC §4.11, §6): the checked chat request, the provider call with its
 * time limit and the caller's abort, the `llm_*` events to the caller's own realtime connection,
 * the exchange persisted through the record service, and the usage row. No Fastify here.
 */
import type { App } from '../../core/app.js'
import type { Collection } from '../../core/collections/model.js'
import {
  ApiError,
  badRequest,
  hasErrors,
  messages,
  notFound,
  validationError,
  type ValidationErrors,
} from '../../core/errors.js'
import type { ClientMessenger } from '../../core/realtime.js'
import type { AuthInfo, RequestInfo } from '../../core/request-info.js'
import { randomString } from '../../tools/ids.js'
import {
  promptOf,
  resolveProvider,
  type ChatMessage,
  type ChatProvider,
  type ChatUsage,
} from './providers.js'
import type { UsageLog } from './usage.js'

/** The most messages one chat may send. */
export const MAX_MESSAGES = 256
/** The most bytes (UTF-8) of all message contents together. */
export const MAX_CONTENT_BYTES = 512 * 1024
/** The roles a message may have. */
export const ROLES = ['system', 'developer', 'user', 'assistant'] as const
/** The longest `clientId` or `collection` accepted. */
const MAX_NAME = 255

/** A checked chat request. */
export interface ChatRequest {
  messages: ChatMessage[]
  /** The collection the exchange is persisted into. */
  collection?: Collection
  clientId?: string
}

/** The answer of `POST /api/llm/chat`. */
export interface ChatAnswer {
  reply: string
  promptTokens: number
  completionTokens: number
  /** The id of this call, also carried by its `llm_*` events. */
  requestId: string
  /** The persisted exchange, as the caller may see it. */
  record?: Record<string, unknown>
}

/** A `{role, content}` message checked into `errors` under its index. */
function checkMessage(value: unknown, errors: ValidationErrors): ChatMessage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    Object.assign(errors, validationError('validation_invalid_value:object'))
    return null
  }
  const { role, content } = value as { role?: unknown; content?: unknown }
  if (typeof role !== 'string' || role === '') errors.role = validationError('validation_required')
  else if (!(ROLES as readonly string[]).includes(role))
    errors.role = validationError('validation_in_invalid:llm_role')
  if (typeof content !== 'string')
    errors.content = validationError('validation_invalid_value:string')
  return hasErrors(errors) ? null : { role: role as string, content: content as string }
}

/**
 * Checks the body of a chat: `messages` 1 to {@link MAX_MESSAGES} `{role, content}` with
 * contents of at most {@link MAX_CONTENT_BYTES} in all, `collection` an existing non-view
 * collection, `clientId` a string. 400 with field errors otherwise.
 */
export function checkChat(app: App, body: Record<string, unknown>): ChatRequest {
  const errors: ValidationErrors = {}
  const out: ChatRequest = { messages: [] }
  const list = body.messages
  if (list === undefined || list === null || (Array.isArray(list) && list.length === 0)) {
    errors.messages = validationError('validation_required')
  } else if (!Array.isArray(list)) {
    errors.messages = validationError('validation_invalid_value:list')
  } else if (list.length > MAX_MESSAGES) {
    errors.messages = validationError('validation_length_too_long', { max: MAX_MESSAGES })
  } else {
    const itemErrors: ValidationErrors = {}
    let bytes = 0
    list.forEach((item, i) => {
      const e: ValidationErrors = {}
      const m = checkMessage(item, e)
      if (m) {
        bytes += Buffer.byteLength(m.content)
        out.messages.push(m)
      } else itemErrors[String(i)] = e
    })
    if (hasErrors(itemErrors)) errors.messages = itemErrors
    else if (bytes > MAX_CONTENT_BYTES)
      errors.messages = validationError('validation_length_too_long:llm_size', {
        max: MAX_CONTENT_BYTES,
      })
  }
  const name = body.collection
  if (name !== undefined && name !== null && name !== '') {
    const found =
      typeof name === 'string' && name.length <= MAX_NAME ? app.collections.find(name) : undefined
    if (!found || found.type === 'view')
      errors.collection = validationError('validation_missing_collection:llm')
    else out.collection = found
  }
  const clientId = body.clientId
  if (clientId !== undefined && clientId !== null && clientId !== '') {
    if (typeof clientId !== 'string')
      errors.clientId = validationError('validation_invalid_value:string')
    else if (clientId.length > MAX_NAME)
      errors.clientId = validationError('validation_length_too_long', { max: MAX_NAME })
    else out.clientId = clientId
  }
  if (hasErrors(errors)) throw badRequest(messages.llmChatInvalid, errors)
  return out
}

/**
 * The messenger to push to when `clientId` names an open realtime connection bound to `auth`'s
 * record, on this instance or another one sharing the data; 404 for an unknown or closed
 * connection, a guest one, or another record's (one answer for all, so other callers'
 * connection ids cannot be probed).
 */
export async function ownConnection(
  app: App,
  clientId: string,
  auth: AuthInfo,
): Promise<ClientMessenger> {
  const messenger = app.services.find('messenger')
  const owner = await messenger?.clientOwner(clientId)
  if (
    !messenger ||
    !owner ||
    owner.collectionId !== auth.collection.id ||
    owner.recordId !== String(auth.record.id)
  )
    throw notFound(messages.llmClientMissing)
  return messenger
}

/** The dependencies of {@link chat}. */
export interface ChatContext {
  app: App
  usage: UsageLog
  /** The caller's request (its auth is required). */
  info: RequestInfo & { auth: AuthInfo }
  /** Aborted when the caller goes away, or with {@link SHUTDOWN} when the server closes. */
  signal: AbortSignal
}

/** The abort reason of calls cut short because the server closes. */
export const SHUTDOWN = Symbol('llm shutdown')

/** The error a failed call answers with: time limit, caller gone, or the provider's own. */
function failure(err: unknown, timedOut: boolean, seconds: number, caller: AbortSignal): ApiError {
  if (timedOut) return new ApiError(504, messages.llmProviderTimeout({ seconds }))
  if (caller.aborted && caller.reason === SHUTDOWN)
    return new ApiError(503, messages.llmShuttingDown)
  if (caller.aborted) return new ApiError(499, messages.llmCancelled)
  if (err instanceof ApiError) return err
  return new ApiError(502, messages.llmStreamInvalid({ reason: String(err) }), {}, err)
}

/**
 * Runs one chat: the provider `settings.llm` selects, streamed to the caller's connection when
 * `clientId` is set (`llm_chunk` per delta, then `llm_done`, or `llm_error` when the call
 * fails), the exchange written to `collection` through the record service as the caller (left
 * out of the answer when that write fails, e.g. its createRule denies it), and a usage row.
 */
export async function chat(ctx: ChatContext, request: ChatRequest): Promise<ChatAnswer> {
  const { app, info } = ctx
  const messenger = request.clientId
    ? await ownConnection(app, request.clientId, info.auth)
    : undefined
  const settings = app.settings.get().llm
  const provider: ChatProvider = resolveProvider(settings)
  const requestId = randomString(15)
  // Pushes are not awaited one by one (the messenger keeps their order, also to a client on
  // another instance); the answer waits for the last one, so the client has `llm_done` (or
  // `llm_error`) before the HTTP answer, as it has when its stream is on this instance.
  let pushed: Promise<boolean> = Promise.resolve(true)
  const push = (event: string, data: unknown) => {
    if (messenger && request.clientId)
      pushed = messenger.sendToClient(request.clientId, event, data)
  }
  // One controller for the time limit and the caller's abort; the timer is cleared at the end,
  // so finished calls hold no pending timer (AbortSignal.timeout would, until it fires).
  const controller = new AbortController()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    controller.abort()
  }, settings.timeout * 1000)
  const onCaller = () => controller.abort()
  if (ctx.signal.aborted) controller.abort()
  else ctx.signal.addEventListener('abort', onCaller, { once: true })
  const started = performance.now()
  const account = (usage: ChatUsage | null, error: string) =>
    ctx.usage.add({
      authCollection: info.auth.collection.name,
      authId: String(info.auth.record.id),
      provider: provider.name,
      model: provider.model,
      promptTokens: usage?.promptTokens ?? 0,
      completionTokens: usage?.completionTokens ?? 0,
      durationMs: Math.round(performance.now() - started),
      ok: error === '',
      error,
    })
  let text: string
  let usage: ChatUsage | null
  try {
    ;({ text, usage } = await provider.chat({
      messages: request.messages,
      signal: controller.signal,
      onDelta: (delta) => push('llm_chunk', { requestId, delta }),
    }))
  } catch (err) {
    const error = failure(err, timedOut, settings.timeout, ctx.signal)
    push('llm_error', { requestId, message: error.message })
    account(null, error.message)
    await pushed
    throw error
  } finally {
    clearTimeout(timer)
    ctx.signal.removeEventListener('abort', onCaller)
  }
  push('llm_done', { requestId, text })
  account(usage, '')
  await pushed
  const answer: ChatAnswer = {
    reply: text,
    promptTokens: usage?.promptTokens ?? 0,
    completionTokens: usage?.completionTokens ?? 0,
    requestId,
  }
  if (request.collection) {
    const record = await persist(app, request.collection, info, {
      prompt: promptOf(request.messages),
      response: text,
      model: provider.model,
    })
    if (record) answer.record = record
  }
  return answer
}

/** Creates the exchange's record as the caller; undefined when the write is refused or fails. */
async function persist(
  app: App,
  collection: Collection,
  info: RequestInfo,
  body: Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  try {
    return await app.records.create(collection, body, { ...info, body, query: {} })
  } catch (err) {
    if (!(err instanceof ApiError) || err.status >= 500)
      app.logger.error('persisting an LLM exchange failed', {
        collection: collection.name,
        error: String(err),
      })
    return undefined
  }
}
