import { describe, expect, it } from 'vitest'
import { SseLineTooLong, sseEvents } from './sse.js'

async function* pieces(...parts: string[]): AsyncGenerator<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p)
}

async function all(stream: AsyncIterable<Uint8Array>, maxLine?: number): Promise<string[]> {
  const out: string[] = []
  for await (const data of sseEvents(stream, maxLine)) out.push(data)
  return out
}

describe('sseEvents', () => {
  it('yields the data of each event, whatever the chunking and line endings', async () => {
    const text =
      'data: {"a":1}\n\n: comment\r\n\r\ndata:{"b":2}\r\n\r\nevent: x\nid: 3\ndata: one\ndata: two\n\rdata: [DONE]\n\n'
    const expected = ['{"a":1}', '{"b":2}', 'one\ntwo', '[DONE]']
    expect(await all(pieces(text))).toEqual(expected)
    // Every split point, including inside a CRLF and inside a multi-byte character.
    const bytes = new TextEncoder().encode(`${text}data: é🎉\n\n`)
    for (let i = 1; i < bytes.length; i++) {
      async function* split() {
        yield bytes.subarray(0, i)
        yield bytes.subarray(i)
      }
      expect(await all(split())).toEqual([...expected, 'é🎉'])
    }
  })

  it('yields an unterminated last event, skips events without data, bounds a line', async () => {
    expect(await all(pieces('data: last'))).toEqual(['last'])
    expect(await all(pieces('event: ping\n\n', 'retry: 5\n\n'))).toEqual([])
    await expect(all(pieces('data: ' + 'x'.repeat(100)), 50)).rejects.toBeInstanceOf(SseLineTooLong)
    await expect(all(pieces('data: ' + 'x'.repeat(100) + '\n'), 50)).rejects.toBeInstanceOf(
      SseLineTooLong,
    )
  })
})
