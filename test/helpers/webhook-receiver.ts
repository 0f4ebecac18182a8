import { createHmac, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'

/** One delivery the receiver took, its signatures checked. */
export interface Received {
  id: string
  body: any
  raw: string
  headers: http.IncomingHttpHeaders
  /** X-Svc-Signature matched the hex HMAC-SHA256 of the raw body with the secret. */
  svcOk: boolean
  /** The `standardwebhooks` library verified webhook-id/timestamp/signature. */
  standardOk: boolean
  /** The status answered. */
  status: number
  /** When it arrived (ms). */
  at: number
}

/**
 * A local webhook receiver (node:http on a loopback address) that checks both signatures of each
 * delivery with `secret` and answers with `answer(n)` (n = deliveries so far, from 1): a status,
 * or 'hang' to hold the request open. Only 2xx answers count as acknowledged.
 */
export async function startReceiver(
  secret: string,
  answer: (
    n: number,
    r: Received,
  ) => number | 'hang' | { status: number; headers: Record<string, string> } = () => 200,
  host = '127.0.0.1',
) {
  const received: Received[] = []
  const hanging: { res: http.ServerResponse; r: Received }[] = []
  const verifier = new Webhook(secret)
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8')
      const expected = Buffer.from(
        `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`,
      )
      const got = Buffer.from(String(req.headers['x-svc-signature'] ?? ''))
      const svcOk = got.length === expected.length && timingSafeEqual(got, expected)
      let standardOk = false
      try {
        verifier.verify(raw, req.headers as Record<string, string>)
        standardOk = true
      } catch {
        standardOk = false
      }
      let body: any = null
      try {
        body = JSON.parse(raw)
      } catch {
        // kept raw
      }
      const r: Received = {
        id: String(req.headers['webhook-id'] ?? ''),
        body,
        raw,
        headers: req.headers,
        svcOk,
        standardOk,
        status: 0,
        at: Date.now(),
      }
      received.push(r)
      const a = answer(received.length, r)
      if (a === 'hang') {
        hanging.push({ res, r })
        return
      }
      const { status, headers } = typeof a === 'number' ? { status: a, headers: {} } : a
      r.status = status
      res.writeHead(status, headers).end('ok')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, host, resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `http://${host}:${port}/hook`,
    port,
    received,
    /** Deliveries answered 2xx. */
    acknowledged: () => received.filter((r) => r.status >= 200 && r.status < 300),
    /** Answers the requests held open so far with `status`. */
    finish(status = 200) {
      for (const { res, r } of hanging.splice(0)) {
        r.status = status
        res.writeHead(status).end('ok')
      }
    },
    async close() {
      for (const { res } of hanging) res.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

/** Waits until `check` holds, polling every 20 ms. */
export async function waitFor(check: () => boolean | Promise<boolean>, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`condition not met within ${ms} ms`)
    await new Promise((r) => setTimeout(r, 20))
  }
}
