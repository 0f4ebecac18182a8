/**
 * The docs/llm.md sample as a test: the official `pocketbase` SDK subscribes to the `llm_*`
 * events (its realtime connection bound to the signed-in user) and calls `POST /api/llm/chat`
 * with `pb.send`; the deltas it receives add up to the reply.
 */
import { EventSource } from 'eventsource'
import PocketBase from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

describe('LLM gateway through the pocketbase SDK', () => {
  let t: TestServer
  const saved = globalThis.EventSource
  beforeAll(async () => {
    ;(globalThis as { EventSource: unknown }).EventSource = EventSource
    t = await startServer()
    const created = await t.api('POST', '/api/collections/users/records', {
      body: { email: 'alice@example.com', password: 'password123', passwordConfirm: 'password123' },
    })
    expect(created.status).toBe(200)
  })
  afterAll(async () => {
    ;(globalThis as { EventSource: unknown }).EventSource = saved
    await t.close()
  })

  it('streams llm_chunk then llm_done to the SDK’s realtime connection', async () => {
    const pb = new PocketBase(t.url)
    await pb.collection('users').authWithPassword('alice@example.com', 'password123')
    let text = ''
    const done: { requestId: string; text: string }[] = []
    await pb.realtime.subscribe('llm_chunk', (e: { delta: string }) => (text += e.delta))
    await pb.realtime.subscribe('llm_done', (e: { requestId: string; text: string }) =>
      done.push(e),
    )
    try {
      const answer = await pb.send('/api/llm/chat', {
        method: 'POST',
        body: {
          messages: [{ role: 'user', content: 'Tell me a joke about databases.' }],
          clientId: pb.realtime.clientId,
        },
      })
      expect(answer.reply).toBe('Echo: Tell me a joke about databases.')
      for (let i = 0; i < 100 && done.length === 0; i++) await new Promise((r) => setTimeout(r, 20))
      expect(done).toEqual([{ requestId: answer.requestId, text: answer.reply }])
      expect(text).toBe(answer.reply)
      // Signed out, the SDK's call is refused.
      pb.authStore.clear()
      await expect(
        pb.send('/api/llm/chat', {
          method: 'POST',
          body: { messages: [{ role: 'user', content: 'x' }] },
        }),
      ).rejects.toMatchObject({ status: 401 })
    } finally {
      await pb.realtime.unsubscribe()
    }
  })
})
