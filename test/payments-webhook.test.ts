/**
 * `POST /api/payments/webhook` against a real server: events signed by the `stripe` package's
 * own test helper (the sender double), every refusal a 400 that stores nothing, a replay stored
 * once, `onPaymentEvent` in the transaction of the insert, the secret never returned.
 */
import { createHmac } from 'node:crypto'
import Stripe from 'stripe'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { PaymentHookEvent } from '../src/core/hooks.js'
import { sql } from '../src/store/sql.js'
import { startServer, type TestServer } from './helpers/server.js'

const SECRET = 'whsec_test_5f1e0c2b9a8d7e6f'
const stripe = new Stripe('sk_test_unused')
const now = () => Math.floor(Date.now() / 1000)

const event = (id: string, type = 'invoice.paid', extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    id,
    object: 'event',
    type,
    created: now(),
    livemode: false,
    api_version: '2024-06-20',
    data: { object: { id: 'in_123', amount_paid: 4200, currency: 'eur' } },
    ...extra,
  })

const sign = (payload: string, opts: { secret?: string; timestamp?: number } = {}) =>
  stripe.webhooks.generateTestHeaderString({
    payload,
    secret: opts.secret ?? SECRET,
    ...(opts.timestamp !== undefined ? { timestamp: opts.timestamp } : {}),
  })

describe('payment webhooks', () => {
  let t: TestServer
  const seen: { eventId: string; type: string; payload: unknown; inTx: boolean }[] = []
  let throwFor = ''

  const post = (body: string | Buffer, signature?: string, headers: Record<string, string> = {}) =>
    t.api('POST', '/api/payments/webhook', {
      raw: body,
      headers: {
        'content-type': 'application/json; charset=utf-8',
        ...(signature === undefined ? {} : { 'stripe-signature': signature }),
        ...headers,
      },
    })

  const stored = async () => {
    const res = await t.api('GET', '/api/collections/_payment_events/records?perPage=200', {
      token: t.suToken,
    })
    expect(res.status).toBe(200)
    return res.body.items as { eventId: string; type: string; payload: any; created: string }[]
  }

  const setSecret = (webhookSecret: string) =>
    t.api('PATCH', '/api/settings', { token: t.suToken, body: { payments: { webhookSecret } } })

  beforeAll(async () => {
    t = await startServer()
    expect((await setSecret(SECRET)).status).toBe(200)
    t.server.app.hooks.onPaymentEvent.bind(async (e: PaymentHookEvent) => {
      // The row is there inside the transaction the handler runs in.
      const row = await e.app.db.get(
        sql`SELECT 1 AS one FROM _payment_events WHERE "eventId" = ${e.eventId}`,
      )
      seen.push({ eventId: e.eventId, type: e.type, payload: e.payload, inTx: !!row })
      if (e.type === throwFor) throw new Error('handler failed on purpose')
      await e.next()
    })
  })
  afterAll(() => t.close())
  beforeEach(() => {
    seen.length = 0
    throwFor = ''
  })

  it('stores a good event once, passes it to onPaymentEvent, answers {received: true}', async () => {
    const body = event('evt_good_1')
    const res = await post(body, sign(body))
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ received: true })
    const rows = (await stored()).filter((r) => r.eventId === 'evt_good_1')
    expect(rows).toHaveLength(1)
    expect(rows[0]!.type).toBe('invoice.paid')
    expect(rows[0]!.payload).toEqual(JSON.parse(body))
    expect(rows[0]!.created).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(seen).toEqual([
      { eventId: 'evt_good_1', type: 'invoice.paid', payload: JSON.parse(body), inTx: true },
    ])
  })

  it('accepts any matching v1 of several (secret rolling) and ignores v0', async () => {
    const body = event('evt_rolled')
    const t0 = now()
    const good = sign(body, { timestamp: t0 }).split(',v1=')[1]!
    const other = createHmac('sha256', 'whsec_old').update(`${t0}.${body}`).digest('hex')
    const header = `t=${t0},v0=${'0'.repeat(64)},v1=${other},v1=${good}`
    const res = await post(body, header)
    expect(res.status).toBe(200)
    expect(seen.map((s) => s.eventId)).toEqual(['evt_rolled'])
  })

  it('a replay of the same event id answers 200, stores nothing new, calls no hook', async () => {
    const body = event('evt_replayed')
    expect((await post(body, sign(body))).status).toBe(200)
    const again = event('evt_replayed', 'invoice.paid', { created: now() + 1 })
    const res = await post(again, sign(again))
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ received: true })
    expect((await post(body, sign(body))).status).toBe(200)
    expect((await stored()).filter((r) => r.eventId === 'evt_replayed')).toHaveLength(1)
    expect(seen.map((s) => s.eventId)).toEqual(['evt_replayed'])
  })

  it('deduplicates concurrent deliveries of one event', async () => {
    const body = event('evt_concurrent')
    const results = await Promise.all(Array.from({ length: 8 }, () => post(body, sign(body))))
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(200))
    expect((await stored()).filter((r) => r.eventId === 'evt_concurrent')).toHaveLength(1)
    expect(seen.filter((s) => s.eventId === 'evt_concurrent')).toHaveLength(1)
  })

  describe('refusals: 400 with a precise message, nothing stored, no hook', () => {
    const refused = async (
      res: { status: number; body: any },
      message: string | RegExp,
      status = 400,
    ) => {
      expect(res.status).toBe(status)
      expect(res.body.code).toBe(status)
      if (typeof message === 'string') expect(res.body.message).toBe(message)
      else expect(res.body.message).toMatch(message)
      expect(res.body.data).toEqual({})
      expect(seen).toEqual([])
    }
    let before: number
    beforeEach(async () => {
      before = (await stored()).length
    })
    const nothingNew = async () => expect((await stored()).length).toBe(before)

    it('bad signature', async () => {
      const body = event('evt_bad_sig')
      const header = `t=${now()},v1=${'ab'.repeat(32)}`
      await refused(
        await post(body, header),
        'No signatures found matching the expected signature for payload: sign the exact raw request body with the endpoint secret.',
      )
      await nothingNew()
    })

    it('signed with a wrong secret', async () => {
      const body = event('evt_wrong_secret')
      await refused(
        await post(body, sign(body, { secret: 'whsec_someone_else' })),
        /^No signatures found matching the expected signature/,
      )
      await nothingNew()
    })

    it('body altered after signing (one byte, and re-serialised JSON)', async () => {
      const body = event('evt_altered')
      const header = sign(body)
      await refused(
        await post(body.replace('4200', '4201'), header),
        /^No signatures found matching/,
      )
      // Same JSON value, other bytes: the signature is over the bytes, not the value.
      const reformatted = JSON.stringify(JSON.parse(body), null, 2)
      await refused(await post(reformatted, header), /^No signatures found matching/)
      await nothingNew()
    })

    it('stale timestamp: older than 5 minutes, and more than 5 minutes ahead', async () => {
      const body = event('evt_stale')
      const message =
        "Timestamp outside the tolerance zone: the Stripe-Signature header must be signed within 300 seconds of the server's time."
      await refused(await post(body, sign(body, { timestamp: now() - 301 })), message)
      await refused(await post(body, sign(body, { timestamp: now() + 301 })), message)
      await nothingNew()
      // Inside the window both ways is fine.
      seen.length = 0
      expect((await post(body, sign(body, { timestamp: now() - 290 }))).status).toBe(200)
      const ahead = event('evt_ahead')
      expect((await post(ahead, sign(ahead, { timestamp: now() + 290 }))).status).toBe(200)
      expect(seen.map((s) => s.eventId)).toEqual(['evt_stale', 'evt_ahead'])
    })

    it('missing, empty and garbled Stripe-Signature headers', async () => {
      const body = event('evt_header')
      await refused(await post(body), 'No Stripe-Signature header value was provided.')
      await refused(await post(body, ''), 'No Stripe-Signature header value was provided.')
      const garbled = 'Unable to extract timestamp and signatures from the Stripe-Signature header.'
      await refused(await post(body, 'v1=abc'), garbled)
      await refused(await post(body, 'nonsense'), garbled)
      await refused(await post(body, `t=soon,v1=${'ab'.repeat(32)}`), garbled)
      const good = sign(body)
      // A valid signature buried in an oversize header is still refused.
      await refused(await post(body, `${good}${',v1=00'.repeat(1000)}`), garbled)
      await refused(
        await post(body, `t=${now()},v0=${'ab'.repeat(32)}`),
        'No signatures found with expected scheme v1 in the Stripe-Signature header.',
      )
      await nothingNew()
    })

    it('no secret configured', async () => {
      expect((await setSecret('')).status).toBe(200)
      try {
        const body = event('evt_no_secret')
        // Even a header signed with the empty string is refused.
        const header = sign(body, { secret: '' })
        await refused(
          await post(body, header),
          'Payment webhooks are not configured: set payments.webhookSecret in the settings.',
        )
        await nothingNew()
      } finally {
        expect((await setSecret(SECRET)).status).toBe(200)
      }
    })

    it('malformed JSON, validly signed', async () => {
      const body = '{"id": "evt_malformed", "type": '
      await refused(
        await post(body, sign(body)),
        /^Failed to read the submitted data: invalid JSON \(/,
      )
      const notObject = '["evt_array"]'
      await refused(
        await post(notObject, sign(notObject)),
        'Failed to read the submitted data: the body must be a JSON object.',
      )
      await nothingNew()
    })

    it('missing or empty id / type, validly signed', async () => {
      const noId = JSON.stringify({ object: 'event', type: 'invoice.paid' })
      await refused(
        await post(noId, sign(noId)),
        'The payment event must be a JSON object with a non-empty string id.',
      )
      const emptyId = JSON.stringify({ id: '', type: 'invoice.paid' })
      await refused(
        await post(emptyId, sign(emptyId)),
        'The payment event must be a JSON object with a non-empty string id.',
      )
      const noType = JSON.stringify({ id: 'evt_no_type' })
      await refused(
        await post(noType, sign(noType)),
        'The payment event must be a JSON object with a non-empty string type.',
      )
      const numType = JSON.stringify({ id: 'evt_num_type', type: 5 })
      await refused(
        await post(numType, sign(numType)),
        'The payment event must be a JSON object with a non-empty string type.',
      )
      await nothingNew()
    })

    it('oversize body (over 1 MiB) is 413, even validly signed', async () => {
      const body = event('evt_big', 'invoice.paid', { pad: 'x'.repeat(1024 * 1024) })
      await refused(await post(body, sign(body)), 'Request entity too large.', 413)
      await nothingNew()
    })

    it('a throwing handler rolls the insert back and answers 500, so Stripe retries', async () => {
      throwFor = 'charge.failed'
      const body = event('evt_throws', 'charge.failed')
      const res = await post(body, sign(body))
      expect(res.status).toBe(500)
      expect(res.body.message).toBe('Something went wrong while processing your request.')
      await nothingNew()
      // The retry, once the handler works, stores it and runs the hook again.
      throwFor = ''
      seen.length = 0
      expect((await post(body, sign(body))).status).toBe(200)
      expect((await stored()).filter((r) => r.eventId === 'evt_throws')).toHaveLength(1)
      expect(seen.map((s) => s.eventId)).toEqual(['evt_throws'])
    })
  })

  it('any content type is taken as raw bytes (the signature decides)', async () => {
    const body = event('evt_text_plain')
    const res = await post(body, sign(body), { 'content-type': 'text/plain' })
    expect(res.status).toBe(200)
    const urlencoded = event('evt_form')
    const res2 = await post(urlencoded, sign(urlencoded), {
      'content-type': 'application/x-www-form-urlencoded',
    })
    expect(res2.status).toBe(200)
    expect(seen.map((s) => s.eventId)).toEqual(['evt_text_plain', 'evt_form'])
  })

  it('needs no token: a guest and a bad token are accepted alike', async () => {
    const body = event('evt_guest')
    const res = await post(body, sign(body), { authorization: 'Bearer not-a-token' })
    expect(res.status).toBe(200)
  })

  it('the secret is write-only: never in GET /api/settings', async () => {
    const res = await t.api('GET', '/api/settings', { token: t.suToken })
    expect(res.status).toBe(200)
    expect(JSON.stringify(res.body)).not.toContain(SECRET)
    expect(res.body.payments?.webhookSecret ?? '').toBe('')
  })

  it('_payment_events: superusers read it; nobody writes it through the records API', async () => {
    const body = event('evt_ro')
    expect((await post(body, sign(body))).status).toBe(200)
    const row = (await stored()).find((r) => r.eventId === 'evt_ro') as any
    const msg =
      'The _payment_events records are written only by the payment webhook and cannot be changed through the records API.'
    const base = '/api/collections/_payment_events/records'
    const create = await t.api('POST', base, {
      token: t.suToken,
      body: { eventId: 'evt_forged', type: 'x', payload: {} },
    })
    expect(create.status).toBe(403)
    expect(create.body.message).toBe(msg)
    const update = await t.api('PATCH', `${base}/${row.id}`, {
      token: t.suToken,
      body: { type: 'forged' },
    })
    expect(update.status).toBe(403)
    const del = await t.api('DELETE', `${base}/${row.id}`, { token: t.suToken })
    expect(del.status).toBe(403)
    const batchOn = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { batch: { enabled: true } },
    })
    expect(batchOn.status).toBe(200)
    const batch = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: {
        requests: [{ method: 'POST', url: base, body: { eventId: 'evt_b', type: 'x' } }],
      },
    })
    expect(batch.status).toBe(400)
    expect(batch.body.data.requests['0'].response).toEqual({
      code: 403,
      status: 403,
      message: msg,
      data: {},
    })
    // Guests cannot even read it.
    expect((await t.api('GET', base)).status).toBe(403)
    const after = await stored()
    expect(after.find((r) => r.eventId === 'evt_forged' || r.eventId === 'evt_b')).toBeUndefined()
    expect(after.find((r) => r.eventId === 'evt_ro')?.type).toBe('invoice.paid')
  })

  it('dedupes across an in-process restart; the secret and the route survive it', async () => {
    const s = await startServer()
    try {
      const patched = await s.api('PATCH', '/api/settings', {
        token: s.suToken,
        body: { payments: { webhookSecret: SECRET } },
      })
      expect(patched.status).toBe(200)
      const send = (body: string) =>
        s.api('POST', '/api/payments/webhook', {
          raw: body,
          headers: { 'content-type': 'application/json', 'stripe-signature': sign(body) },
        })
      const body = event('evt_restart')
      expect((await send(body)).status).toBe(200)
      await s.server.restart()
      let calls = 0
      s.server.app.hooks.onPaymentEvent.bind(async (e) => {
        calls++
        await e.next()
      })
      expect((await send(body)).status).toBe(200)
      const next = event('evt_after_restart')
      expect((await send(next)).status).toBe(200)
      expect(calls).toBe(1)
      const rows = await s.api('GET', '/api/collections/_payment_events/records?sort=created', {
        token: s.suToken,
      })
      expect(rows.body.items.map((r: any) => r.eventId)).toEqual([
        'evt_restart',
        'evt_after_restart',
      ])
    } finally {
      await s.close()
    }
  })

  it('with the feature disabled, the route is gone', async () => {
    const off = await startServer({ disable: ['payments'] })
    try {
      const body = event('evt_off')
      const res = await off.api('POST', '/api/payments/webhook', {
        raw: body,
        headers: { 'content-type': 'application/json', 'stripe-signature': sign(body) },
      })
      expect(res.status).toBe(404)
    } finally {
      await off.close()
    }
  })
})
