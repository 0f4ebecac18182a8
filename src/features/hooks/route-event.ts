/**
 * The event of a script route or middleware (`RouteEvent` of `script-api.ts`) built from a
 * Fastify request, the onion that runs middlewares and the handler, and the answer sent.
 */
import { createReadStream } from 'node:fs'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { App } from '../../core/app.js'
import type { UploadedFile } from '../../core/records/files.js'
import { EMPTY_RESPONSE } from '../../core/request-event.js'
import { sendHookResponse } from '../../http/hook-response.js'
import { skipSuccessLog } from '../../http/log-skip.js'
import { requestInfo } from '../../http/request-info.js'
import { markGzip } from './gzip.js'
import type { RouteEvent } from './script-api.js'

/** A route event as this loader builds it: the contract plus the uploads and a redirect target. */
export interface ScriptRouteEvent extends RouteEvent {
  /** The files of a multipart body (spooled to temp files, removed after the answer). */
  files: UploadedFile[]
  /** Where `redirect` sends the client, or null. */
  location: string | null
  /** The media type of a text answer other than `text/plain` (`html`, `blob`), or null. */
  contentType: string | null
  /** PocketBase's `e.html(status, text)`: `text/html; charset=utf-8`. */
  html(status: number, text: string): void
  /** PocketBase's `e.blob(status, contentType, data)`: the text with that media type. */
  blob(status: number, contentType: string, data: string): void
  /** A file to answer with (`$apis.static`), or null. */
  filePath: string | null
  /** Answers the file at `path` (200) with the media type `type`. */
  file(path: string, type: string): void
  /** `$apis.gzip()`: the answer is compressed for a client that accepts gzip (script routes). */
  gzip(): void
  /** `$apis.skipSuccessActivityLog()`: the request is logged only when it fails. */
  skipSuccessLog(): void
  /** The `Set-Cookie` lines `e.setCookie` added, sent with the answer. */
  cookies: string[]
  /** A binary answer (`e.stream`), sent with `contentType`, or null. */
  bytes: Buffer | null
  /** The media type of the request's body ('' when none), for `e.bindBody`. */
  requestType: string
  /** True when the request came over TLS (`e.isTLS()`). */
  tls: boolean
}

/** The first value of a request header, '' when absent. */
function headerOf(req: FastifyRequest, name: string): string {
  const v = req.headers[String(name).toLowerCase()]
  return Array.isArray(v) ? (v[0] ?? '') : (v ?? '')
}

/** Builds the event of `req` with its path values and its read body. */
export function routeEvent(
  app: App,
  req: FastifyRequest,
  params: Record<string, string>,
  body: Record<string, unknown>,
  files: UploadedFile[] = [],
): ScriptRouteEvent {
  const info = requestInfo(req, body)
  const e: ScriptRouteEvent = {
    app,
    request: {
      method: req.method,
      url: req.url,
      pathValue: (name) => params[name] ?? '',
      header: (name) => headerOf(req, name),
      proto: `HTTP/${req.raw.httpVersion}`,
      remoteAddr: `${req.raw.socket.remoteAddress ?? ''}:${req.raw.socket.remotePort ?? 0}`,
    },
    requestInfo: info,
    auth: info.auth?.record ?? null,
    response: null,
    files,
    cookies: [],
    bytes: null,
    requestType: headerOf(req, 'content-type').split(';')[0]?.trim().toLowerCase() ?? '',
    tls: (req.raw.socket as { encrypted?: boolean }).encrypted === true,
    location: null,
    contentType: null,
    filePath: null,
    json: (status, value) => {
      e.filePath = null
      e.location = null
      e.contentType = null
      e.bytes = null
      e.response = { status, kind: 'json', body: value }
    },
    string: (status, text) => {
      e.filePath = null
      e.location = null
      e.contentType = null
      e.bytes = null
      e.response = { status, kind: 'text', body: String(text) }
    },
    html: (status, text) => {
      e.string(status, text)
      e.contentType = 'text/html; charset=utf-8'
    },
    blob: (status, contentType, data) => {
      e.string(status, data)
      e.contentType = String(contentType)
    },
    noContent: (status = 204) => {
      e.filePath = null
      e.location = null
      e.contentType = null
      e.bytes = null
      e.response = { status, kind: 'empty', body: null }
    },
    redirect: (status, url) => {
      if (!Number.isInteger(status) || status < 300 || status > 399)
        throw new Error(`e.redirect: ${String(status)} is not a redirect status (300-399)`)
      e.contentType = null
      e.filePath = null
      e.bytes = null
      e.location = String(url)
      e.response = { status, kind: 'empty', body: null }
    },
    file: (path, type) => {
      e.string(200, '')
      e.contentType = type
      e.filePath = path
    },
    next: () => Promise.resolve(),
    gzip: () => markGzip(req),
    skipSuccessLog: () => skipSuccessLog(req),
  }
  return e
}

/** Sends the answer the chain left: a redirect, the response, or an empty 200. */
export function sendRouteAnswer(reply: FastifyReply, e: ScriptRouteEvent): FastifyReply {
  if (e.cookies.length > 0) reply.header('set-cookie', e.cookies)
  if (e.bytes !== null && e.contentType !== null && e.response)
    return reply.code(e.response.status).type(e.contentType).send(e.bytes)
  if (e.location !== null && e.response) return reply.redirect(e.location, e.response.status)
  if (e.filePath !== null && e.contentType !== null)
    return reply.code(200).type(e.contentType).send(createReadStream(e.filePath))
  if (e.contentType !== null && e.response?.kind === 'text')
    return reply.code(e.response.status).type(e.contentType).send(e.response.body)
  return sendHookResponse(reply, e.response ?? EMPTY_RESPONSE)
}
