/**
 * The APNs backend (iOS): the provider API over HTTP/2 (`node:http2`) with token auth. One ES256
 * provider token (`{alg: ES256, kid: keyId}`, `{iss: teamId, iat}`) is reused for 50 minutes
 * (APNs refuses one older than 60 and re-minting more often than every 20); one HTTP/2 session
 * per host is kept open and multiplexed, and dropped on GOAWAY, error or 5 idle minutes. Each send
 * is `POST /3/device/<token>` with `apns-topic` = bundle ID, `apns-push-type: alert`,
 * `apns-priority: 10`. 410 (`Unregistered`, `ExpiredToken`) reports the subscription gone;
 * `BadDeviceToken` and `DeviceTokenNotForTopic` too, but only once this configuration has
 * delivered at least once (so a wrong `apns.production` or `bundleId`, which gives the same
 * answer for every device, fails the sends instead of disabling every iOS subscription).
 * `ExpiredProviderToken` mints a new token and retries once.
 */

import { createHash, createPrivateKey } from 'node:crypto'
import http2 from 'node:http2'
import { SignJWT } from 'jose'
import type { App } from '../../core/app.js'
import type { PushBackend, PushMessage, PushOutcome, PushTarget } from './backend.js'
import type { PushSettings } from './settings.js'

export const APNS_PRODUCTION_URL = 'https://api.push.apple.com'
export const APNS_SANDBOX_URL = 'https://api.sandbox.push.apple.com'
/** How long one send may take (ms). */
export const APNS_TIMEOUT_MS = 10_000
/** A provider token is re-minted after this long (ms): APNs accepts ≤ 60 min, ≥ 20 between. */
export const APNS_TOKEN_REUSE_MS = 50 * 60_000
/** The largest payload APNs accepts for an alert (bytes). */
export const APNS_MAX_PAYLOAD = 4096
const SESSION_IDLE_MS = 5 * 60_000
const DEVICE_TOKEN = /^[0-9a-fA-F]{16,200}$/
const GONE_410 = new Set(['Unregistered', 'ExpiredToken'])
const GONE_ONCE_PROVEN = new Set(['BadDeviceToken', 'DeviceTokenNotForTopic'])

/** Test-only: the CA that the APNs double's self-signed certificate chains to. */
export interface ApnsOptions {
  ca?: string | Buffer
}

/** The APNs JSON payload: the alert, and the message data as top-level custom keys. */
export function apnsPayload(msg: PushMessage): string {
  const custom = { ...msg.data }
  delete custom.aps
  return JSON.stringify({
    aps: { alert: { title: msg.title, body: msg.body }, sound: 'default' },
    ...custom,
  })
}

/** The APNs origin: `apiUrl` when set, else Apple's production or sandbox host (throws on a bad URL). */
export function apnsOrigin(a: PushSettings['apns']): string {
  return new URL(a.apiUrl || (a.production ? APNS_PRODUCTION_URL : APNS_SANDBOX_URL)).origin
}

interface Answer {
  status: number
  reason: string
}

/** The APNs backend of one app: its provider tokens and HTTP/2 sessions live as long as it. */
export function apnsBackend(app: App, options: ApnsOptions = {}): PushBackend {
  const tokens = new Map<string, { value: Promise<string>; minted: number }>()
  const sessions = new Map<string, http2.ClientHttp2Session>()
  /** Configurations (key, ids, topic, host) that have delivered at least once. */
  const proven = new Set<string>()
  const inFlight = new WeakMap<http2.ClientHttp2Session, number>()

  /**
   * The provider token of these settings: the cached one (concurrent sends share one minting),
   * or a new one when it is 50 minutes old or is the token APNs just refused as expired.
   */
  async function providerToken(a: PushSettings['apns'], expired?: string): Promise<string> {
    const key = `${a.keyId}\n${a.teamId}\n${a.key}`
    const cached = tokens.get(key)
    if (cached && Date.now() - cached.minted < APNS_TOKEN_REUSE_MS) {
      const value = await cached.value
      if (expired === undefined || value !== expired) return value
      if (tokens.get(key) !== cached) return providerToken(a, expired)
    }
    const value = new SignJWT({})
      .setProtectedHeader({ alg: 'ES256', kid: a.keyId })
      .setIssuer(a.teamId)
      .setIssuedAt()
      .sign(createPrivateKey(a.key))
    if (tokens.size > 20) tokens.clear()
    const entry = { value, minted: Date.now() }
    tokens.set(key, entry)
    value.catch(() => tokens.get(key) === entry && tokens.delete(key))
    return value
  }

  function session(origin: string): http2.ClientHttp2Session {
    const open = sessions.get(origin)
    if (open && !open.closed && !open.destroyed) return open
    const s = http2.connect(origin, options.ca ? { ca: options.ca } : {})
    const drop = () => {
      if (sessions.get(origin) === s) sessions.delete(origin)
    }
    s.on('goaway', drop)
    s.on('close', drop)
    s.on('error', (err) => {
      drop()
      app.logger.debug('push: APNs connection failed', { origin, error: String(err) })
    })
    s.setTimeout(SESSION_IDLE_MS, () => s.close())
    s.unref()
    sessions.set(origin, s)
    return s
  }

  function post(origin: string, headers: http2.OutgoingHttpHeaders, body: string) {
    return new Promise<Answer>((resolve, reject) => {
      const s = session(origin)
      // The session keeps the process alive only while a request is under way.
      if (inFlight.set(s, (inFlight.get(s) ?? 0) + 1).get(s) === 1) s.ref()
      const req = s.request({ ':method': 'POST', ...headers })
      let status = 0
      const chunks: Buffer[] = []
      let finished = false
      const done = () => {
        if (finished) return
        finished = true
        const n = (inFlight.get(s) ?? 1) - 1
        inFlight.set(s, n)
        if (n === 0 && !s.destroyed) s.unref()
      }
      req.setTimeout(APNS_TIMEOUT_MS, () => {
        req.close(http2.constants.NGHTTP2_CANCEL)
        done()
        reject(new Error(`APNs did not answer within ${APNS_TIMEOUT_MS} ms`))
      })
      req.on('response', (h) => (status = Number(h[':status'])))
      req.on('data', (c: Buffer) => chunks.length < 64 && chunks.push(c))
      req.on('end', () => {
        done()
        let reason = ''
        try {
          const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { reason?: unknown }
          if (typeof parsed.reason === 'string') reason = parsed.reason
        } catch {
          // an empty (success) or non-JSON body
        }
        resolve({ status, reason })
      })
      req.on('error', (err: Error) => {
        done()
        reject(err)
      })
      req.end(body)
    })
  }

  return {
    platform: 'ios',
    enabled: (s) =>
      s.apns.enabled &&
      s.apns.key !== '' &&
      s.apns.keyId !== '' &&
      s.apns.teamId !== '' &&
      s.apns.bundleId !== '',
    async send(target: PushTarget, msg: PushMessage, s: PushSettings): Promise<PushOutcome> {
      const a = s.apns
      if (!target.token || !DEVICE_TOKEN.test(target.token))
        return { status: 'gone', reason: 'BadDeviceToken: not a hexadecimal device token' }
      const payload = apnsPayload(msg)
      if (Buffer.byteLength(payload) > APNS_MAX_PAYLOAD)
        return { status: 'failed', reason: `payload over ${APNS_MAX_PAYLOAD} bytes` }
      let origin: string
      try {
        origin = apnsOrigin(a)
      } catch {
        return { status: 'failed', reason: 'push.apns.apiUrl is not a URL' }
      }
      const config = createHash('sha256')
        .update([origin, a.bundleId, a.keyId, a.teamId, a.key].join('\n'))
        .digest('hex')
      try {
        let answer: Answer = { status: 0, reason: '' }
        let expired: string | undefined
        for (let attempt = 0; attempt < 2; attempt++) {
          const jwt = await providerToken(a, expired)
          answer = await post(
            origin,
            {
              ':path': `/3/device/${target.token.toLowerCase()}`,
              authorization: `bearer ${jwt}`,
              'apns-topic': a.bundleId,
              'apns-push-type': 'alert',
              'apns-priority': '10',
              'content-type': 'application/json',
            },
            payload,
          )
          if (answer.status !== 403 || answer.reason !== 'ExpiredProviderToken') break
          expired = jwt
        }
        if (answer.status === 200) {
          proven.add(config)
          return { status: 'sent' }
        }
        const reason = `APNs answered ${answer.status}${answer.reason ? ` ${answer.reason}` : ''}`
        if (answer.status === 410 && (GONE_410.has(answer.reason) || answer.reason === ''))
          return { status: 'gone', reason }
        if (answer.status === 400 && GONE_ONCE_PROVEN.has(answer.reason) && proven.has(config))
          return { status: 'gone', reason }
        return { status: 'failed', reason }
      } catch (err) {
        return { status: 'failed', reason: err instanceof Error ? err.message : String(err) }
      }
    },
    async close() {
      const open = [...sessions.values()]
      sessions.clear()
      tokens.clear()
      await Promise.all(
        open.map(
          (s) =>
            new Promise<void>((resolve) => {
              if (s.closed || s.destroyed) return resolve()
              const t = setTimeout(() => (s.destroy(), resolve()), 2000)
              s.close(() => (clearTimeout(t), resolve()))
            }),
        ),
      )
    },
  }
}
