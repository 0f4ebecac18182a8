/**
 * Server-sent events wire format (WHATWG HTML §9.2): `id:`, `event:` and `data:` lines ended by
 * a blank line, and `:` comments for keep-alives. Pure string building, no I/O. As Hono's SSE
 * helper does, `id` and `event` may not hold a line break (it would inject fields) and a
 * multi-line `data` becomes one `data:` line per line. No space follows the colons, as in
 * PocketBase's stream.
 */

/** One event to send. */
export interface SseMessage {
  /** The `lastEventId` the client sees; PocketBase sends the client id on every message. */
  id?: string
  /** The event name (`message` when absent). */
  event?: string
  /** The payload; line breaks split it into several `data:` lines that the client rejoins. */
  data: string
  /** The reconnection delay the client should use, in milliseconds. */
  retry?: number
}

/** An `id` or `event` holding a line break, or a `retry` that is not a non-negative integer. */
export class SseFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SseFormatError'
  }
}

const LINE_BREAK = /\r\n|\r|\n/

function assertSingleLine(what: 'id' | 'event', value: string): void {
  if (/[\r\n]/.test(value)) throw new SseFormatError(`SSE ${what} must not contain \\r or \\n`)
}

/**
 * Formats one event, e.g. `id:abc\nevent:posts\ndata:{"a":1}\n\n`. Throws an
 * {@link SseFormatError} when `id` or `event` holds `\r` or `\n`, or `retry` is invalid.
 */
export function formatSseMessage(message: SseMessage): string {
  let out = ''
  if (message.id !== undefined) {
    assertSingleLine('id', message.id)
    // NB: a NUL in the id makes clients ignore the field; refuse it like a line break.
    if (message.id.includes('\0')) throw new SseFormatError('SSE id must not contain NUL')
    out += `id:${message.id}\n`
  }
  if (message.event !== undefined) {
    assertSingleLine('event', message.event)
    out += `event:${message.event}\n`
  }
  if (message.retry !== undefined) {
    if (!Number.isSafeInteger(message.retry) || message.retry < 0) {
      throw new SseFormatError('SSE retry must be a non-negative integer')
    }
    out += `retry:${message.retry}\n`
  }
  for (const line of message.data.split(LINE_BREAK)) out += `data:${line}\n`
  return `${out}\n`
}

/**
 * Formats a comment, which clients ignore: `:\n\n` for an empty one (a keep-alive that stops
 * proxies from closing an idle stream). A multi-line text becomes several `:` lines.
 */
export function formatSseComment(text = ''): string {
  return `${text
    .split(LINE_BREAK)
    .map((line) => `:${line}`)
    .join('\n')}\n\n`
}
