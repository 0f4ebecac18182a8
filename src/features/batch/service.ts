import type { App } from '../../core/app.js'
import {
  ApiError,
  badRequest,
  type FieldError,
  forbidden,
  internal,
  messages,
  notFound,
} from '../../core/errors.js'
import { createRequest, deleteRequest, updateRequest } from '../../core/records/request-hooks.js'
import type { HookResponse } from '../../core/request-event.js'
import { headerKey, type RequestInfo } from '../../core/request-info.js'
import type { BatchSettings } from '../../core/settings/index.js'
import { PickerError, pickFields } from '../../tools/picker.js'
import { matchAction, type BatchItem } from './request.js'

/** The body limit of a batch when `maxBodySize` is 0 (reference §0.6). */
export const DEFAULT_MAX_BODY_SIZE = 128 * 1024 * 1024

/** The timeout of a batch when `timeout` is not positive, in seconds (reference §3.1). */
const DEFAULT_TIMEOUT = 3

/** The limits of a batch as the current settings decide them. */
export interface BatchLimits {
  maxRequests: number
  timeoutMs: number
  /** Bytes of the whole batch body. */
  maxBodySize: number
}

/** One sub-response: the sub-handler's JSON body (null for 204) and its status. */
export interface BatchResult {
  body: unknown
  status: number
}

/** The entry of `data.requests` for the failing item (reference §3.4). */
export interface BatchItemFailure extends FieldError {
  /** The item's whole error envelope. */
  response: ReturnType<ApiError['toJSON']>
}

/** How a batch runs. */
export interface RunBatchOptions {
  /** Time for the whole batch; past it the transaction rolls back. */
  timeoutMs: number
  /** Aborted when the client goes away; rolls the transaction back too. */
  signal?: AbortSignal
}

/**
 * Reads `settings.batch`: 403 `Batch requests are not allowed.` when disabled (or without a
 * positive `maxRequests`), else the limits with PocketBase's fallbacks.
 */
export function batchLimits(settings: BatchSettings): BatchLimits {
  if (!settings.enabled || !(settings.maxRequests > 0)) throw forbidden(messages.batchNotAllowed)
  const timeout = settings.timeout > 0 ? settings.timeout : DEFAULT_TIMEOUT
  return {
    maxRequests: settings.maxRequests,
    timeoutMs: timeout * 1000,
    maxBodySize: settings.maxBodySize > 0 ? settings.maxBodySize : DEFAULT_MAX_BODY_SIZE,
  }
}

/** A sub-request failed; carries its index and its error. */
class ItemFailed extends Error {
  constructor(
    readonly index: number,
    readonly error: unknown,
  ) {
    super(`batch request ${index} failed`, { cause: error })
  }
}

/** The batch ran past its timeout or the client went away. */
class Aborted extends Error {
  constructor() {
    super('batch aborted')
  }
}

const failed = () => badRequest(messages.batchFailed)

/**
 * Runs the items of a batch in one transaction, in order, each through the record service with
 * its own RequestInfo (the batch's auth, `@request.context = "batch"`). The first failure rolls
 * every item back and throws 400 `Batch transaction failed.` with `data.requests.<index>`; the
 * timeout or an abort rolls back and throws the same message with empty data. Record events
 * fire only after the commit (the record service defers them to it).
 *
 * NB: on timeout the answer comes at once, but an item still running (a slow hook) keeps the
 * transaction open until it returns; only then does the rollback happen.
 *
 * @param base the batch request's own RequestInfo (auth, headers, ip)
 */
export async function runBatch(
  app: App,
  items: readonly BatchItem[],
  base: RequestInfo,
  options: RunBatchOptions,
): Promise<BatchResult[]> {
  const controller = new AbortController()
  const abort = () => controller.abort()
  if (options.signal?.aborted) abort()
  options.signal?.addEventListener('abort', abort, { once: true })
  const timer = setTimeout(abort, options.timeoutMs)
  // Set once every item ran and the commit follows: from then on the batch cannot fail late.
  let committing = false
  const work = app.runInTransaction(async (tx) => {
    const results: BatchResult[] = []
    for (const [index, item] of items.entries()) {
      if (controller.signal.aborted) throw new Aborted()
      try {
        results.push(await runItem(tx, item, base))
      } catch (err) {
        throw new ItemFailed(index, err)
      }
    }
    if (controller.signal.aborted) throw new Aborted()
    committing = true
    return results
  })
  const deadline = new Promise<never>((_resolve, reject) => {
    controller.signal.addEventListener('abort', () => {
      if (!committing) reject(new Aborted())
    })
  })
  try {
    return await Promise.race([work, deadline])
  } catch (err) {
    if (err instanceof Aborted) throw failed()
    if (err instanceof ItemFailed) throw itemFailure(app, err)
    throw err
  } finally {
    clearTimeout(timer)
    options.signal?.removeEventListener('abort', abort)
  }
}

/** The 400 of a failed item, with its error envelope under `data.requests.<index>`. */
function itemFailure(app: App, failure: ItemFailed): ApiError {
  let error: ApiError
  if (failure.error instanceof ApiError) error = failure.error
  else {
    error = internal(failure.error)
    app.logger.error('batch request failed', {
      index: failure.index,
      error:
        failure.error instanceof Error
          ? (failure.error.stack ?? failure.error.message)
          : String(failure.error),
    })
  }
  const entry: BatchItemFailure = {
    code: 'batch_request_failed',
    message: messages.batchItemFailed,
    response: error.toJSON(),
  }
  return badRequest(messages.batchFailed, { requests: { [failure.index]: entry } }, error)
}

/**
 * Runs one item inside the batch transaction, through the record request hooks as the records
 * API does (`onRecordCreateRequest`, … with the transaction's app); the item's answer is the
 * one the hooks left.
 */
async function runItem(tx: App, item: BatchItem, base: RequestInfo): Promise<BatchResult> {
  const action = matchAction(item.method, item.url)
  if (!action) throw badRequest(messages.batchUnknownAction({ method: item.method, url: item.url }))
  const collection = tx.collections.find(action.collection)
  if (!collection) throw notFound(messages.missingCollectionContext)
  const info: RequestInfo = {
    ...base,
    query: action.query,
    body: item.body,
    headers: mergeHeaders(base.headers, item.headers),
    method: item.method,
    context: 'batch',
  }
  let kind = action.kind
  let id = action.id
  if (kind === 'upsert') {
    const bodyId = item.body.id
    const exists = typeof bodyId === 'string' && bodyId !== ''
    id = exists ? bodyId : ''
    kind = exists && (await tx.records.findById(collection, id)) ? 'update' : 'create'
  }
  const res: HookResponse =
    kind === 'delete'
      ? await deleteRequest(tx, collection, id, info)
      : kind === 'create'
        ? await createRequest(tx, collection, item.body, info, item.files)
        : await updateRequest(tx, collection, id, item.body, info, item.files)
  return {
    body: res.kind === 'json' ? pick(res.body, info.query.fields) : res.body,
    status: res.status,
  }
}

/** The batch request's headers overridden by the item's; an item `Authorization` is ignored. */
function mergeHeaders(
  base: Record<string, string>,
  own: Record<string, string>,
): Record<string, string> {
  const out = { ...base }
  for (const [name, value] of Object.entries(own)) {
    const key = headerKey(name)
    if (key !== 'authorization') out[key] = value
  }
  return out
}

/** Applies the item URL's `fields` parameter to its response body (reference §0.9). */
function pick(body: unknown, fields: string | undefined): unknown {
  if (!fields || fields.trim() === '' || typeof body !== 'object' || body === null) return body
  try {
    return pickFields(body, fields)
  } catch (err) {
    if (err instanceof PickerError)
      throw badRequest(messages.invalidFields({ reason: err.message }), {}, err)
    throw err
  }
}
