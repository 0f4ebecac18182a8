/**
 * Write-only secrets of system collections (`_webhooks.secret`) are never serialised, for
 * superusers neither: every answer (lists, views, expands, realtime) goes through
 * `serializeRecord`.
 */
import { afterAll, beforeAll, expect, it } from 'vitest'
import { serializeRecord } from '../src/core/records/serialize.js'
import { internalRequest } from '../src/core/request-info.js'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer
beforeAll(async () => {
  t = await startServer()
})
afterAll(() => t.close())

it('leaves _webhooks.secret out of a record serialised for a superuser', async () => {
  const webhooks = t.server.app.collections.find('_webhooks')!
  const superusers = t.server.app.collections.find('_superusers')!
  const info = internalRequest({ auth: { collection: superusers, record: { id: 'su1' } } })
  const out = serializeRecord(
    webhooks,
    { id: 'w1', name: 'n', secret: 'top-secret-value-123' },
    info,
  )
  expect(out.name).toBe('n')
  expect(out).not.toHaveProperty('secret')
  expect(JSON.stringify(out)).not.toContain('top-secret')
})
