/**
 * The Web Push backend (RFC 8030 delivery, RFC 8291 `aes128gcm` payload encryption, RFC 8292
 * VAPID) on the `web-push` package. `push.vapid` is read per send, so a settings change applies
 * to the next one. The VAPID `Authorization` header is signed once per push-service origin and
 * reused for 12 hours (its JWT expires after 24 hours: `exp` ≤ 24 h is what services accept).
 *
 * Unless `push.allowPrivateNetworks`, every send resolves the endpoint's host and checks each
 * address with the webhooks' SSRF guard (`tools/ssrf.ts`), then connects to exactly the checked
 * address (an agent with a pinned `lookup`), so a name that resolves, or rebinds, to loopback,
 * a private network or a metadata address is never connected to.
 */

import https from 'node:https'
import type webpush from 'web-push'
import { lazyPackage } from '../../tools/lazy-module.js'
import { checkTarget, pinnedLookup, SsrfError, type PinnedAddress } from '../../tools/ssrf.js'
import type { PushBackend, PushMessage, PushOutcome, PushTarget } from './backend.js'
import type { PushSettings } from './settings.js'

/** How long a message may wait at the push service for an offline browser (seconds). */
export const WEB_PUSH_TTL = 86_400
/** How long one send may take before it counts as failed (ms). */
export const WEB_PUSH_TIMEOUT_MS = 10_000
const VAPID_REUSE_MS = 12 * 3600_000
const VAPID_EXPIRY_S = 24 * 3600 - 60
/** Keep-alive agents pinned to a checked address kept at once (the oldest is closed first). */
const MAX_AGENTS = 64

/** `web-push`, loaded with the first Web Push message (tools/lazy-module.ts). */
const loadWebPush = lazyPackage<typeof webpush>('web-push')

/** The JSON a service worker receives: `{title, body, data?}`. */
export function webPayload(msg: PushMessage): string {
  return JSON.stringify(msg.data ? { title: msg.title, body: msg.body, data: msg.data } : msg)
}

/** The Web Push backend of one app. */
export function webBackend(): PushBackend {
  const headers = new Map<string, { value: string; until: number }>()
  const agents = new Map<string, https.Agent>()

  /** A keep-alive agent that connects `origin` to the checked address only. */
  function pinnedAgent(origin: string, pin: PinnedAddress): https.Agent {
    const key = `${origin}@${pin.address}`
    let agent = agents.get(key)
    if (!agent) {
      if (agents.size >= MAX_AGENTS) {
        const [oldest, old] = agents.entries().next().value as [string, https.Agent]
        agents.delete(oldest)
        old.destroy()
      }
      // The process's TLS options (trusted CAs and the like) with the pinned lookup.
      agent = new https.Agent({
        ...https.globalAgent.options,
        keepAlive: true,
        lookup: pinnedLookup(pin),
      })
      agents.set(key, agent)
    }
    return agent
  }

  /** The endpoint's host resolved and checked, within the send's time. */
  async function checkEndpoint(url: URL): Promise<PinnedAddress> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new SsrfError(`resolving ${url.hostname} timed out`)),
        WEB_PUSH_TIMEOUT_MS,
      )
    })
    try {
      return await Promise.race([checkTarget(url, { allowPrivateNetworks: false }), timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  function vapidHeader(origin: string, v: PushSettings['vapid']): string {
    const key = `${origin} ${v.publicKey} ${v.privateKey} ${v.subject}`
    const now = Date.now()
    const cached = headers.get(key)
    if (cached && cached.until > now) return cached.value
    const exp = Math.floor(now / 1000) + VAPID_EXPIRY_S
    const value = loadWebPush().getVapidHeaders(
      origin,
      v.subject,
      v.publicKey,
      v.privateKey,
      'aes128gcm',
      exp,
    ).Authorization
    if (headers.size > 1000) headers.clear()
    headers.set(key, { value, until: now + VAPID_REUSE_MS })
    return value
  }

  return {
    platform: 'web',
    enabled: (s) =>
      s.vapid.enabled &&
      s.vapid.publicKey !== '' &&
      s.vapid.privateKey !== '' &&
      s.vapid.subject !== '',
    async send(target: PushTarget, msg: PushMessage, s: PushSettings): Promise<PushOutcome> {
      if (!target.endpoint || !target.keys)
        return { status: 'failed', reason: 'no endpoint or keys' }
      let url: URL
      try {
        url = new URL(target.endpoint)
      } catch {
        return { status: 'failed', reason: 'invalid endpoint' }
      }
      const origin = url.origin
      let agent: https.Agent | undefined
      if (!s.allowPrivateNetworks) {
        try {
          agent = pinnedAgent(origin, await checkEndpoint(url))
        } catch (err) {
          return { status: 'failed', reason: err instanceof Error ? err.message : String(err) }
        }
      }
      try {
        await loadWebPush().sendNotification(
          { endpoint: target.endpoint, keys: target.keys },
          webPayload(msg),
          {
            headers: { Authorization: vapidHeader(origin, s.vapid) },
            TTL: WEB_PUSH_TTL,
            urgency: 'normal',
            contentEncoding: 'aes128gcm',
            timeout: WEB_PUSH_TIMEOUT_MS,
            ...(agent ? { agent } : {}),
          },
        )
        return { status: 'sent' }
      } catch (err) {
        const status = (err as { statusCode?: unknown }).statusCode
        if (status === 404 || status === 410)
          return { status: 'gone', reason: `push service answered ${status}` }
        if (typeof status === 'number')
          return { status: 'failed', reason: `push service answered ${status}` }
        return { status: 'failed', reason: err instanceof Error ? err.message : String(err) }
      }
    },
    async close() {
      for (const agent of agents.values()) agent.destroy()
      agents.clear()
    },
  }
}
