/**
 * `onPaymentEvent` from a hook script (`app.onPaymentEvent(handler)` in a `*.mjs` file of the
 * hooks dir) on a real server: the handler's writes commit with the `_payment_events` row, and
 * a handler that throws rolls both back (500 for a fault, its own status for an `ApiError`).
 */
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const SECRET = 'whsec_scripts_1b2c3d4e'
const stripe = new Stripe('sk_test_unused')

const SCRIPT = `
export default (app) => {
  app.onPaymentEvent(async (e) => {
    const orders = e.app.collections.get('orders')
    await e.app.records.create(
      orders,
      { invoice: e.payload.data.object.id, eventType: e.type },
      app.internalRequest(),
    )
    if (e.type === 'invoice.crash') throw new Error('the handler crashed')
    if (e.type === 'invoice.later') throw new app.ApiError(409, 'Not ready for this invoice yet.')
    await e.next()
  })
}
`

describe('onPaymentEvent in a hook script', () => {
  let hs: HooksServer

  const send = async (id: string, type: string) => {
    const payload = JSON.stringify({
      id,
      type,
      object: 'event',
      data: { object: { id: `in_${id}` } },
    })
    const res = await fetch(`${hs.url}/api/payments/webhook`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
      },
      body: payload,
    })
    return { status: res.status, body: (await res.json()) as any }
  }
  const list = async (collection: string) => {
    const res = await hs.api('GET', `/api/collections/${collection}/records?perPage=100`, {
      token: hs.suToken,
    })
    expect(res.status).toBe(200)
    return res.body.items as Record<string, unknown>[]
  }

  beforeAll(async () => {
    hs = await startHooksServer({ 'payments.mjs': SCRIPT })
    const created = await hs.api('POST', '/api/collections', {
      token: hs.suToken,
      body: {
        name: 'orders',
        createRule: '',
        type: 'base',
        fields: [
          { name: 'invoice', type: 'text' },
          { name: 'eventType', type: 'text' },
        ],
      },
    })
    expect(created.status).toBe(200)
    const patched = await hs.api('PATCH', '/api/settings', {
      token: hs.suToken,
      body: { payments: { webhookSecret: SECRET } },
    })
    expect(patched.status).toBe(200)
  })
  afterAll(() => hs.close())

  it('the handler writes in the same transaction as the stored event', async () => {
    expect(await send('evt_s1', 'invoice.paid')).toEqual({ status: 200, body: { received: true } })
    expect((await list('orders')).map((o) => [o.invoice, o.eventType])).toEqual([
      ['in_evt_s1', 'invoice.paid'],
    ])
    // A replay reaches no handler: still one order.
    expect((await send('evt_s1', 'invoice.paid')).status).toBe(200)
    expect(await list('orders')).toHaveLength(1)
    expect((await list('_payment_events')).map((r) => r.eventId)).toEqual(['evt_s1'])
  })

  it('a crashing handler rolls back its own write and the event row: 500', async () => {
    const res = await send('evt_s2', 'invoice.crash')
    expect(res.status).toBe(500)
    expect(await list('orders')).toHaveLength(1)
    expect((await list('_payment_events')).map((r) => r.eventId)).toEqual(['evt_s1'])
  })

  it('an ApiError from the handler answers with its own status and message, nothing kept', async () => {
    const res = await send('evt_s3', 'invoice.later')
    expect(res).toEqual({
      status: 409,
      body: { code: 409, status: 409, message: 'Not ready for this invoice yet.', data: {} },
    })
    expect(await list('orders')).toHaveLength(1)
    expect((await list('_payment_events')).map((r) => r.eventId)).toEqual(['evt_s1'])
  })
})
