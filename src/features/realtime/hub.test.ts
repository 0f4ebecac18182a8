import { describe, expect, it } from 'vitest'
import { RealtimeHub, type SseSink } from './hub.js'
import { parseSubscribeForm, parseSubscription, recordTopic, topicsOf } from './subscriptions.js'

/** A sink that records writes; `writableLength` is whatever the test sets. */
class FakeSink implements SseSink {
  chunks: string[] = []
  writableLength = 0
  ended = false
  write(chunk: string): boolean {
    this.chunks.push(chunk)
    return true
  }
  end(): void {
    this.ended = true
  }
}

const sub = (name: string) => parseSubscription(name)

describe('RealtimeHub', () => {
  it('writes messages with the client id and drops a client whose buffer is full', () => {
    const hub = new RealtimeHub({ maxBufferedBytes: 100 })
    const sink = new FakeSink()
    const c = hub.connect(sink, '1.2.3.4')
    expect(c.id).toMatch(/^[A-Za-z0-9]{40}$/)
    expect(hub.sendToClient(c.id, 'llm_done', { text: 'a\nb' })).toBe(true)
    expect(sink.chunks).toEqual([`id:${c.id}\nevent:llm_done\ndata:{"text":"a\\nb"}\n\n`])
    sink.writableLength = 101
    expect(hub.sendToClient(c.id, 'llm_done', {})).toBe(false)
    expect(sink.ended).toBe(true)
    expect(hub.get(c.id)).toBeUndefined()
    expect(hub.sendToClient(c.id, 'llm_done', {})).toBe(false)
    hub.close()
  })

  it('indexes subscriptions by topic and replaces them as a whole', () => {
    const hub = new RealtimeHub()
    const a = hub.connect(new FakeSink(), '')
    const b = hub.connect(new FakeSink(), '')
    hub.subscribe(a, [sub('posts'), sub('posts?options=%7B%7D'), sub('posts/x')])
    hub.subscribe(b, [sub('posts/*')])
    expect(hub.subscribers('posts').map((s) => s.subscription.name)).toEqual([
      'posts',
      'posts?options=%7B%7D',
    ])
    expect(hub.subscribers('posts/*').map((s) => s.client)).toEqual([b])
    hub.subscribe(a, [sub('tags')])
    expect(hub.subscribers('posts')).toEqual([])
    expect(hub.subscribers('posts/x')).toEqual([])
    hub.disconnect(b)
    expect(hub.subscribers('posts/*')).toEqual([])
    expect(hub.size).toBe(1)
    hub.close()
    expect(hub.size).toBe(0)
  })

  it('runs a client’s deliveries in order and drops a client with too many pending', async () => {
    const hub = new RealtimeHub({ maxPendingTasks: 3 })
    const c = hub.connect(new FakeSink(), '')
    const seen: number[] = []
    const slow = (n: number, ms: number) => () =>
      new Promise<void>((r) =>
        setTimeout(() => {
          seen.push(n)
          r()
        }, ms),
      )
    c.enqueue(slow(1, 30))
    c.enqueue(slow(2, 1))
    c.enqueue(() => Promise.reject(new Error('logged, not fatal')))
    await new Promise((r) => setTimeout(r, 60))
    expect(seen).toEqual([1, 2])
    for (let i = 0; i < 4; i++) c.enqueue(slow(9, 50))
    expect(c.closed).toBe(true)
    expect(hub.get(c.id)).toBeUndefined()
    hub.close()
  })

  it('pings every client with a comment', async () => {
    const hub = new RealtimeHub({ keepAliveMs: 10 })
    const sink = new FakeSink()
    hub.connect(sink, '')
    await new Promise((r) => setTimeout(r, 35))
    expect(sink.chunks.length).toBeGreaterThanOrEqual(2)
    expect(new Set(sink.chunks)).toEqual(new Set([':\n\n']))
    hub.close()
  })
})

describe('subscriptions', () => {
  it('parses topics and options', () => {
    const options = {
      query: { filter: "a = 'b'", perPage: 5, x: { y: 1 } },
      headers: { 'X-Key': 1 },
    }
    const s = sub(`posts/*?options=${encodeURIComponent(JSON.stringify(options))}`)
    expect(s.topic).toBe('posts/*')
    expect(s.query).toEqual({ filter: "a = 'b'", perPage: '5', x: '' })
    expect(s.headers).toEqual({ x_key: '1' })
    expect(sub('custom?a=b')).toMatchObject({ topic: 'custom', query: {}, headers: {} })
    expect(recordTopic('posts')).toEqual({ collection: 'posts', recordId: null })
    expect(recordTopic('posts/*')).toEqual({ collection: 'posts', recordId: null })
    expect(recordTopic('posts/abc')).toEqual({ collection: 'posts', recordId: 'abc' })
    const bad = ['%7B', '%5B%5D', encodeURIComponent('{"query":[]}')]
    for (const o of bad) expect(() => sub(`posts?options=${o}`)).toThrow(TypeError)
    expect(() => sub(`p?options=${encodeURIComponent('{"query":{"fields":"a:x("}}')}`)).toThrow(
      /invalid fields/,
    )
  })

  it('lists the topics of a record change with their rules', () => {
    expect(topicsOf({ id: 'c1', name: 'posts' }, 'r1')).toEqual([
      { topic: 'posts/r1', rule: 'viewRule' },
      { topic: 'c1/r1', rule: 'viewRule' },
      { topic: 'posts/*', rule: 'listRule' },
      { topic: 'c1/*', rule: 'listRule' },
      { topic: 'posts', rule: 'listRule' },
      { topic: 'c1', rule: 'listRule' },
    ])
  })

  it('validates the subscribe body', () => {
    expect(parseSubscribeForm({ clientId: 'c', subscriptions: ['a', '', 'a', 'b'] })).toMatchObject(
      {
        clientId: 'c',
        subscriptions: [{ name: 'a' }, { name: 'b' }],
      },
    )
    expect(parseSubscribeForm({ clientId: 'c' }).subscriptions).toEqual([])
    const fails = (body: unknown) => {
      try {
        parseSubscribeForm(body)
      } catch (err) {
        return (err as { status: number; data: unknown }).data
      }
      throw new Error('expected a 400')
    }
    expect(fails(null)).toMatchObject({ clientId: { code: 'validation_required' } })
    expect(fails({ clientId: 'x'.repeat(256) })).toMatchObject({
      clientId: { code: 'validation_length_out_of_range', params: { min: 1, max: 255 } },
    })
    expect(fails({ clientId: 5 })).toMatchObject({ clientId: { code: 'validation_invalid_value' } })
  })
})
