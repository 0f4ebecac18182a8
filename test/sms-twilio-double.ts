/**
 * A local Twilio-style Messages API (integrations.md §4) on 127.0.0.1 that checks what Twilio
 * checks: the AccountSid of the path equals the Basic username, the credentials match (else 401
 * code 20003), the body is form-encoded, `To` is E.164 (else 400 code 21211), exactly one of
 * `From`/`MessagingServiceSid`, `Body` 1-1600 characters. Success is 201 with an `SM…` sid.
 */
import { randomBytes } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/** One message the double accepted. */
export interface Received {
  sid: string
  to: string
  from: string
  body: string
}

export interface TwilioDouble {
  url: string
  accountSid: string
  authToken: string
  /** Accepted messages, in order. */
  received: Received[]
  /** Every request seen (accepted or refused), with the status answered. */
  requests: { path: string; status: number }[]
  /** Numbers answered with 400 21610 (the recipient replied STOP). */
  stopped: Set<string>
  /** Resolves with the next accepted message. */
  next(): Promise<Received>
  close(): Promise<void>
}

const E164 = /^\+[1-9]\d{1,14}$/

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}

export async function startTwilioDouble(): Promise<TwilioDouble> {
  const accountSid = `AC${randomBytes(16).toString('hex')}`
  const authToken = randomBytes(16).toString('hex')
  const received: Received[] = []
  const requests: { path: string; status: number }[] = []
  const waiting: ((m: Received) => void)[] = []
  const stopped = new Set<string>()
  const server: Server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req)
      const path = req.url ?? ''
      const answer = (status: number, json: Record<string, unknown>) => {
        requests.push({ path, status })
        res.writeHead(status, { 'content-type': 'application/json' })
        res.end(JSON.stringify(json))
      }
      const error = (status: number, code: number, message: string) =>
        answer(status, {
          code,
          message,
          more_info: `https://www.twilio.com/docs/errors/${code}`,
          status,
        })
      const m = /^\/2010-04-01\/Accounts\/([^/]+)\/Messages\.json$/.exec(path)
      if (req.method !== 'POST' || !m)
        return error(404, 20404, 'The requested resource was not found')
      const auth = /^Basic (.+)$/.exec(req.headers.authorization ?? '')
      const [user, pass] = auth
        ? Buffer.from(auth[1]!, 'base64').toString('utf8').split(':')
        : ['', '']
      if (user !== accountSid || pass !== authToken || decodeURIComponent(m[1]!) !== user)
        return error(401, 20003, 'Authenticate')
      if (!/^application\/x-www-form-urlencoded/.test(req.headers['content-type'] ?? ''))
        return error(400, 20001, 'Content type must be form-encoded')
      const form = new URLSearchParams(body)
      const to = form.get('To') ?? ''
      const from = form.get('From')
      const text = form.get('Body') ?? ''
      if (!E164.test(to))
        return error(400, 21211, `The 'To' number ${to} is not a valid phone number.`)
      if ((from === null) === (form.get('MessagingServiceSid') === null))
        return error(400, 21603, "A 'From' or 'MessagingServiceSid' parameter is required.")
      if (text === '' || text.length > 1600)
        return error(400, 21602, 'Message body is required and at most 1600 characters.')
      if (stopped.has(to)) return error(400, 21610, 'Attempt to send to unsubscribed recipient')
      const sid = `SM${randomBytes(16).toString('hex')}`
      const message = { sid, to, from: from ?? '', body: text }
      received.push(message)
      answer(201, {
        sid,
        account_sid: accountSid,
        to,
        from,
        body: text,
        status: 'queued',
        num_segments: String(Math.ceil(text.length / 153) || 1),
        direction: 'outbound-api',
        error_code: null,
        error_message: null,
      })
      waiting.shift()?.(message)
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    received,
    requests,
    stopped,
    next: () => new Promise((resolve) => waiting.push(resolve)),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
