import type { Hook, HookEvent } from '../tools/hook.js'
import type { App } from './app.js'
import type { RecordData, RequestInfo } from './request-info.js'

/**
 * The answer of a request hook: a status and a body. `json` bodies are sent as JSON (a string
 * too), `text` as plain text, and `null` sends no body.
 */
export type HookResponse =
  | { status: number; kind: 'json'; body: unknown }
  | { status: number; kind: 'text'; body: string }
  | { status: number; kind: 'empty'; body: null }

/**
 * What every request hook event carries (PocketBase's `core.RequestEvent`): the app (the
 * transaction's app inside a batch), the request as the domain sees it, and a way to answer.
 * The built-in action answers through the same methods; a handler that skips `e.next()` answers
 * itself (without an answer the response is an empty 200, as PocketBase's router sends).
 */
export interface RequestEvent extends HookEvent {
  app: App
  /** The request: auth, query, body, headers, method, context, ip (`e.requestInfo()` in PB). */
  requestInfo: RequestInfo
  /** The authenticated record, or null for a guest (PocketBase's `e.auth`). */
  auth: RecordData | null
  /** The answer given so far, or null. */
  response: HookResponse | null
  /** Answers with a JSON body. */
  json(status: number, body: unknown): void
  /** Answers with a plain-text body. */
  string(status: number, text: string): void
  /** Answers with no body (204 by default). */
  noContent(status?: number): void
}

/** The fields of a request event before the hook adds `next`. */
export type RequestEventInit<T> = Omit<RequestEvent, 'next'> & T

/**
 * Builds a request event for `info` with a family's own fields; its answer methods write to the
 * event itself, so handlers and the built-in action share one answer.
 */
export function requestEvent<T extends object>(
  app: App,
  info: RequestInfo,
  fields: T,
): RequestEventInit<T> {
  const base: Omit<RequestEvent, 'next'> = {
    app,
    requestInfo: info,
    auth: info.auth?.record ?? null,
    response: null,
    json: (status, body) => {
      base.response = { status, kind: 'json', body }
    },
    string: (status, text) => {
      base.response = { status, kind: 'text', body: text }
    },
    noContent: (status = 204) => {
      base.response = { status, kind: 'empty', body: null }
    },
  }
  return Object.assign(base, fields)
}

/** The answer of an event that has none: an empty 200. */
export const EMPTY_RESPONSE: HookResponse = { status: 200, kind: 'empty', body: null }

/**
 * Triggers a request hook with `action` as its built-in action and returns the answer the
 * handlers and the action left on the event (an empty 200 when none).
 */
export async function triggerRequest<E extends RequestEvent>(
  hook: Hook<E>,
  event: Omit<E, 'next'>,
  action: (e: E) => Promise<void> | void,
  tags: readonly string[] = [],
): Promise<HookResponse> {
  await hook.trigger(event, action, tags)
  return event.response ?? EMPTY_RESPONSE
}
