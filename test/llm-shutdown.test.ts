/**
 * A chat waiting on a stalled provider does not hold up the server's shutdown: closing the
 * server aborts the provider call (the double sees its request closed) and answers 503.
 */
import { describe, expect, it } from 'vitest'
import { startOpenAiDouble } from './helpers/openai-double.js'
import { startServer } from './helpers/server.js'

describe('LLM gateway and server shutdown', () => {
  it('closing the server cancels chats in flight with 503', async () => {
    const double = await startOpenAiDouble({ behaviour: { stall: true } })
    const t = await startServer()
    try {
      const llm = {
        enabled: true,
        provider: 'openai',
        baseUrl: double.url,
        model: 'm',
        timeout: 600,
      }
      expect(
        (await t.api('PATCH', '/api/settings', { token: t.suToken, body: { llm } })).status,
      ).toBe(200)
      const pending = t.api('POST', '/api/llm/chat', {
        token: t.suToken,
        body: { messages: [{ role: 'user', content: 'hello?' }] },
      })
      const seen = await double.request(0)
      const started = Date.now()
      await t.close()
      expect(Date.now() - started).toBeLessThan(5000)
      const res = await pending
      expect(res.status).toBe(503)
      expect(res.body.message).toBe('The server is shutting down: the chat request was cancelled.')
      await double.until(() => seen.closedByCaller)
    } finally {
      await double.close()
    }
  })
})
