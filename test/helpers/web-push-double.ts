/**
 * A local Web Push service for the tests: an HTTPS server on 127.0.0.1 (a throwaway self-signed
 * certificate, trusted by this process's global HTTPS agent) that checks what a real push service
 * checks (RFC 8030 headers, the RFC 8292 VAPID JWT: ES256 against `k`, `aud` = the endpoint's
 * origin, `exp` in the future and ≤ 24 h, `sub` mailto:/https:, `k` = the key the subscription
 * was made with and not the message's ECDH key) and decrypts the RFC 8291 `aes128gcm` payload
 * with the subscription's private key. It answers 201, or 410 for a subscription made dead.
 */
import { execFileSync } from 'node:child_process'
import { createECDH, createPublicKey, randomBytes, verify, type ECDH } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import https from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rootCertificates } from 'node:tls'
// @ts-expect-error http_ece ships no types
import ece from 'http_ece'

export interface Received {
  id: string
  payload: unknown
  at: number
  headers: Record<string, string | string[] | undefined>
}

interface Sub {
  ecdh: ECDH
  auth: Buffer
  dead: boolean
  delayMs: number
}

export interface WebPushDouble {
  origin: string
  /** The PEM certificate of the service (for NODE_EXTRA_CA_CERTS of another process). */
  cert: string
  received: Received[]
  /** Every check that failed (a test expects none). */
  rejections: string[]
  /** A browser subscription made with the app's VAPID public key. */
  subscribe(): { id: string; endpoint: string; keys: { p256dh: string; auth: string } }
  kill(id: string): void
  delay(id: string, ms: number): void
  /** Resolves once `n` messages were received (or rejects after `ms`). */
  waitFor(n: number, ms?: number): Promise<void>
  close(): Promise<void>
}

const b64u = (b: Buffer) => b.toString('base64url')

/** Trusts a certificate in this process's global HTTPS agent (what NODE_EXTRA_CA_CERTS does). */
function trust(cert: string): void {
  const opts = https.globalAgent.options as { ca?: string[] }
  opts.ca = [...(opts.ca ?? rootCertificates), cert]
}

export async function startWebPushDouble(vapidPublicKey: () => string): Promise<WebPushDouble> {
  const dir = mkdtempSync(join(tmpdir(), 'webpush-double-'))
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1,DNS:localhost',
      '-days',
      '1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  )
  const key = readFileSync(join(dir, 'key.pem'), 'utf8')
  const cert = readFileSync(join(dir, 'cert.pem'), 'utf8')
  rmSync(dir, { recursive: true, force: true })
  trust(cert)

  const subs = new Map<string, Sub>()
  const received: Received[] = []
  const rejections: string[] = []
  const waiters: (() => void)[] = []
  let origin = ''

  function check(
    id: string,
    headers: Received['headers'],
    body: Buffer,
  ): string | { payload: unknown } {
    const sub = subs.get(id)
    if (!sub) return 'unknown subscription'
    const ttl = headers['ttl']
    if (typeof ttl !== 'string' || !/^\d+$/.test(ttl)) return 'TTL missing or not an integer'
    const urgency = headers['urgency']
    if (urgency !== undefined && !['very-low', 'low', 'normal', 'high'].includes(String(urgency)))
      return 'bad Urgency'
    if (headers['content-encoding'] !== 'aes128gcm') return 'Content-Encoding is not aes128gcm'
    if (body.length > 4096) return 'payload too large'
    const m = /^vapid t=([^,\s]+),\s*k=([A-Za-z0-9_-]+)$/.exec(String(headers['authorization']))
    if (!m) return 'no vapid Authorization'
    const [, jwt, k] = m as unknown as [string, string, string]
    if (k !== vapidPublicKey()) return 'k is not the application server key'
    const kRaw = Buffer.from(k, 'base64url')
    const pub = createPublicKey({
      key: { kty: 'EC', crv: 'P-256', x: b64u(kRaw.subarray(1, 33)), y: b64u(kRaw.subarray(33)) },
      format: 'jwk',
    })
    const [h, c, s] = jwt.split('.') as [string, string, string]
    const ok = verify(
      'sha256',
      Buffer.from(`${h}.${c}`),
      { key: pub, dsaEncoding: 'ieee-p1363' },
      Buffer.from(s, 'base64url'),
    )
    if (!ok) return 'bad ES256 signature'
    const header = JSON.parse(Buffer.from(h, 'base64url').toString()) as Record<string, unknown>
    if (header.alg !== 'ES256') return 'alg is not ES256'
    const claims = JSON.parse(Buffer.from(c, 'base64url').toString()) as Record<string, unknown>
    if (claims.aud !== origin) return `aud ${String(claims.aud)} is not ${origin}`
    const now = Math.floor(Date.now() / 1000)
    if (typeof claims.exp !== 'number' || claims.exp <= now || claims.exp > now + 24 * 3600)
      return 'exp not within 24 h'
    if (typeof claims.sub !== 'string' || !/^(mailto:|https:)/.test(claims.sub)) return 'bad sub'
    if (body.length < 86 || body[20] !== 65 || body[21] !== 4) return 'bad aes128gcm header'
    if (b64u(body.subarray(21, 86)) === k) return 'VAPID key used as the ECDH key'
    let plain: Buffer
    try {
      plain = ece.decrypt(body, {
        version: 'aes128gcm',
        privateKey: sub.ecdh,
        authSecret: b64u(sub.auth),
      }) as Buffer
    } catch (err) {
      return `decryption failed: ${String(err)}`
    }
    return { payload: JSON.parse(plain.toString('utf8')) as unknown }
  }

  const server = https.createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const m = /^\/push\/([A-Za-z0-9_-]+)$/.exec(req.url ?? '')
      const id = m?.[1] ?? ''
      const sub = subs.get(id)
      if (req.method !== 'POST' || !sub) return void res.writeHead(404).end()
      if (sub.dead) return void res.writeHead(410).end()
      const result = check(id, req.headers, Buffer.concat(chunks))
      if (typeof result === 'string') {
        rejections.push(`${id}: ${result}`)
        return void res.writeHead(400).end(result)
      }
      const answer = () => {
        received.push({
          id,
          payload: result.payload,
          at: Date.now(),
          headers: req.headers,
        })
        for (const w of waiters.splice(0)) w()
        res
          .writeHead(201, { location: `${origin}/message/${randomBytes(8).toString('hex')}` })
          .end()
      }
      if (sub.delayMs > 0) setTimeout(answer, sub.delayMs)
      else answer()
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`

  return {
    origin,
    cert,
    received,
    rejections,
    subscribe() {
      const ecdh = createECDH('prime256v1')
      ecdh.generateKeys()
      const auth = randomBytes(16)
      const id = randomBytes(9).toString('base64url')
      subs.set(id, { ecdh, auth, dead: false, delayMs: 0 })
      return {
        id,
        endpoint: `${origin}/push/${id}`,
        keys: { p256dh: b64u(ecdh.getPublicKey()), auth: b64u(auth) },
      }
    },
    kill: (id) => void (subs.get(id)!.dead = true),
    delay: (id, ms) => void (subs.get(id)!.delayMs = ms),
    waitFor(n, ms = 10_000) {
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`only ${received.length} of ${n} pushes`)),
          ms,
        )
        const poll = () => {
          if (received.length >= n) {
            clearTimeout(timer)
            resolve()
          } else waiters.push(poll)
        }
        poll()
      })
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  }
}
