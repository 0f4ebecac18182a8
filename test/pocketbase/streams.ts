/**
 * Realtime in the differential corpus: SSE connections a group opens, reads and closes as steps
 * (`Step.stream`). A read waits until the stream has been quiet for 300 ms (at most 3 s) and
 * answers the events since the last read, sorted (PocketBase sends one event per matching
 * subscription in no fixed order).
 */

export interface StreamEvent {
  event: string
  data: unknown
}

/** One open SSE connection. */
export class Stream {
  private events: StreamEvent[] = []
  private last = Date.now()
  private readonly abort = new AbortController()
  status = 0

  private constructor() {}

  /** Opens `url` and waits for its first event (the connect event with the client id). */
  static async open(url: string, headers: Record<string, string>): Promise<Stream> {
    const s = new Stream()
    const res = await fetch(url, { headers, signal: s.abort.signal })
    s.status = res.status
    if (!res.ok || !res.body) return s
    void s.pump(res.body)
    const deadline = Date.now() + 5000
    while (s.events.length === 0 && Date.now() < deadline) await sleep(10)
    return s
  }

  private async pump(body: ReadableStream<Uint8Array>): Promise<void> {
    const decoder = new TextDecoder()
    let buffer = ''
    try {
      for await (const chunk of body) {
        buffer += decoder.decode(chunk, { stream: true })
        let end: number
        while ((end = buffer.indexOf('\n\n')) >= 0) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          let event = 'message'
          const data: string[] = []
          for (const line of block.split('\n')) {
            if (line.startsWith('event:')) event = line.slice(6).trim()
            else if (line.startsWith('data:')) data.push(line.slice(5).replace(/^ /, ''))
          }
          let parsed: unknown = data.join('\n')
          try {
            parsed = JSON.parse(parsed as string)
          } catch {
            // not JSON: keep the text
          }
          this.events.push({ event, data: parsed })
          this.last = Date.now()
        }
      }
    } catch {
      // aborted
    }
  }

  /** Takes the connect event (the first): its name and client id. */
  takeConnect(): { event: string | null; clientId: string | undefined } {
    const first = this.events.shift()
    return {
      event: first?.event ?? null,
      clientId: (first?.data as { clientId?: string } | undefined)?.clientId,
    }
  }

  /** The events since the last read, once the stream has been quiet for 300 ms. */
  async read(): Promise<StreamEvent[]> {
    const deadline = Date.now() + 3000
    await sleep(50)
    while (Date.now() - this.last < 300 && Date.now() < deadline) await sleep(20)
    const out = this.events
    this.events = []
    return out.sort((a, b) =>
      `${a.event}\n${JSON.stringify(a.data)}`.localeCompare(
        `${b.event}\n${JSON.stringify(b.data)}`,
      ),
    )
  }

  close(): void {
    this.abort.abort()
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
