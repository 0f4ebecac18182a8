/**
 * Reads a server-sent event stream (the OpenAI-compatible streamed chat answer) into the data of
 * each event. Lines may end in LF, CRLF or CR and arrive split anywhere across chunks; `:`
 * comment lines and other fields are skipped; several `data:` lines of one event are joined with
 * a line feed (the SSE rule), and an event ends at a blank line. No HTTP, no provider knowledge.
 */

/** Thrown when one line exceeds the limit: a provider that never ends its line. */
export class SseLineTooLong extends Error {
  constructor(readonly max: number) {
    super(`an event stream line is longer than ${max} characters`)
  }
}

/**
 * Yields the data of each event of `stream`, in order. A last event not closed by a blank line
 * is still yielded when the stream ends. `maxLine` bounds one line (and one event's data).
 */
export async function* sseEvents(
  stream: AsyncIterable<Uint8Array>,
  maxLine = 1024 * 1024,
): AsyncGenerator<string> {
  const decoder = new TextDecoder()
  let buffer = ''
  let data: string[] | null = null
  let size = 0

  /** Handles one complete line; returns the event's data when the line ends an event. */
  const line = (text: string): string | null => {
    if (text === '') {
      const done = data
      data = null
      size = 0
      return done === null ? null : done.join('\n')
    }
    if (text.startsWith(':')) return null
    const colon = text.indexOf(':')
    const field = colon < 0 ? text : text.slice(0, colon)
    if (field !== 'data') return null
    let value = colon < 0 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    size += value.length
    if (size > maxLine) throw new SseLineTooLong(maxLine)
    ;(data ??= []).push(value)
    return null
  }

  for await (const chunk of stream) {
    buffer += decoder.decode(chunk, { stream: true })
    let start = 0
    for (;;) {
      const lf = buffer.indexOf('\n', start)
      const cr = buffer.indexOf('\r', start)
      let end: number
      let next: number
      if (cr >= 0 && (lf < 0 || cr < lf)) {
        // A CR at the very end may be the first half of a CRLF: wait for the next chunk.
        if (cr === buffer.length - 1) break
        end = cr
        next = buffer[cr + 1] === '\n' ? cr + 2 : cr + 1
      } else if (lf >= 0) {
        end = lf
        next = lf + 1
      } else break
      const event = line(buffer.slice(start, end))
      start = next
      if (event !== null) yield event
    }
    buffer = buffer.slice(start)
    if (buffer.length > maxLine) throw new SseLineTooLong(maxLine)
  }
  buffer += decoder.decode()
  if (buffer.endsWith('\r')) buffer = buffer.slice(0, -1)
  if (buffer !== '') line(buffer)
  const last = line('')
  if (last !== null) yield last
}
