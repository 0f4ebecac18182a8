/**
 * The FCM HTTP v1 backend (Android). The service account's RS256 JWT-bearer assertion is
 * exchanged at the token endpoint for an access token, cached until 60 s before it expires (one
 * token request for many sends, shared by concurrent sends); each send is one
 * `POST <apiUrl>/v1/projects/<project_id>/messages:send`. `push.fcm` is read per send, so a
 * settings change applies to the next one. `UNREGISTERED`, `SENDER_ID_MISMATCH` and an
 * `INVALID_ARGUMENT` about the token report the subscription gone; a 401 refreshes the access
 * token once and retries.
 */

import { createHash, createPrivateKey, type KeyObject } from 'node:crypto'
import { SignJWT } from 'jose'
import type { App } from '../../core/app.js'
import type { PushBackend, PushMessage, PushOutcome, PushTarget } from './backend.js'
import type { PushSettings } from './settings.js'

/** How long one HTTP request (token or send) may take (ms). */
export const FCM_TIMEOUT_MS = 10_000
/** An access token is renewed this long before its `expires_in` runs out (ms). */
export const FCM_TOKEN_MARGIN_MS = 60_000
const SCOPE = 'https://www.googleapis.com/auth/firebase.messaging'
const GRANT = 'urn:ietf:params:oauth:grant-type:jwt-bearer'
const GOOGLE_TOKEN_URL = 'https://oauth2.googleapis.com/token'
const FCM_ERROR_TYPE = 'type.googleapis.com/google.firebase.fcm.v1.FcmError'
/** The longest error text kept in a failure reason. */
const REASON_MAX = 300

interface ServiceAccount {
  projectId: string
  clientEmail: string
  key: KeyObject
  keyId?: string
  tokenUri: string
}

interface AccessToken {
  value: string
  until: number
}

/** Parses the service-account file (the settings check already refused one that cannot work). */
function parseServiceAccount(json: string): ServiceAccount | null {
  try {
    const o = JSON.parse(json) as Record<string, unknown>
    const str = (k: string): string => {
      const v = o[k]
      return typeof v === 'string' ? v.trim() : ''
    }
    if (!str('project_id') || !str('client_email')) return null
    return {
      projectId: str('project_id'),
      clientEmail: str('client_email'),
      key: createPrivateKey(str('private_key')),
      keyId: str('private_key_id') || undefined,
      tokenUri: str('token_uri') || GOOGLE_TOKEN_URL,
    }
  } catch {
    return null
  }
}

const trimmed = (s: string): string => (s.length > REASON_MAX ? `${s.slice(0, REASON_MAX)}…` : s)

/** The FCM error code of a google.rpc error body: the FcmError detail's, else `error.status`. */
function fcmErrorOf(body: unknown): { code: string; message: string; tokenField: boolean } {
  const error = (body as { error?: Record<string, unknown> } | null)?.error
  if (!error || typeof error !== 'object') return { code: '', message: '', tokenField: false }
  const details = Array.isArray(error.details) ? (error.details as Record<string, unknown>[]) : []
  const fcm = details.find((d) => d && d['@type'] === FCM_ERROR_TYPE)
  const violations = details.flatMap((d) =>
    d && Array.isArray(d.fieldViolations) ? (d.fieldViolations as { field?: unknown }[]) : [],
  )
  const message = typeof error.message === 'string' ? error.message : ''
  return {
    code:
      typeof fcm?.errorCode === 'string'
        ? fcm.errorCode
        : typeof error.status === 'string'
          ? error.status
          : '',
    message,
    tokenField:
      violations.some((v) => v.field === 'message.token') || /registration token/i.test(message),
  }
}

/** The FCM backend of one app: its token cache lives as long as the backend. */
export function fcmBackend(app: App): PushBackend {
  const accounts = new Map<string, ServiceAccount | null>()
  const tokens = new Map<string, AccessToken>()
  const pending = new Map<string, Promise<AccessToken>>()

  function account(json: string): ServiceAccount | null {
    let a = accounts.get(json)
    if (a === undefined) {
      a = parseServiceAccount(json)
      if (accounts.size > 20) accounts.clear()
      accounts.set(json, a)
    }
    return a
  }

  async function requestToken(sa: ServiceAccount, tokenUrl: string): Promise<AccessToken> {
    const now = Math.floor(Date.now() / 1000)
    const assertion = await new SignJWT({ scope: SCOPE })
      .setProtectedHeader({ alg: 'RS256', typ: 'JWT', ...(sa.keyId ? { kid: sa.keyId } : {}) })
      .setIssuer(sa.clientEmail)
      .setAudience(tokenUrl)
      .setIssuedAt(now)
      .setExpirationTime(now + 3600)
      .sign(sa.key)
    const res = await fetch(tokenUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: GRANT, assertion }).toString(),
      signal: AbortSignal.timeout(FCM_TIMEOUT_MS),
    })
    const text = await res.text()
    let body: Record<string, unknown> = {}
    try {
      body = JSON.parse(text) as Record<string, unknown>
    } catch {
      // not JSON: reported below
    }
    const value = body.access_token
    if (!res.ok || typeof value !== 'string' || value === '') {
      const why = [body.error, body.error_description].filter((x) => typeof x === 'string')
      throw new Error(
        trimmed(`token endpoint answered ${res.status}${why.length ? `: ${why.join(': ')}` : ''}`),
      )
    }
    const expiresIn = typeof body.expires_in === 'number' ? body.expires_in : 3600
    return { value, until: Date.now() + expiresIn * 1000 - FCM_TOKEN_MARGIN_MS }
  }

  /** A cached access token, or one fresh token request shared by every send waiting for it. */
  async function accessToken(sa: ServiceAccount, tokenUrl: string, json: string) {
    const key = createHash('sha256').update(`${tokenUrl}\n${json}`).digest('hex')
    const cached = tokens.get(key)
    if (cached && cached.until > Date.now()) return { key, token: cached.value }
    let p = pending.get(key)
    if (!p) {
      p = requestToken(sa, tokenUrl).finally(() => pending.delete(key))
      pending.set(key, p)
    }
    const fresh = await p
    if (tokens.size > 20) tokens.clear()
    tokens.set(key, fresh)
    return { key, token: fresh.value }
  }

  async function sendOnce(
    sa: ServiceAccount,
    s: PushSettings['fcm'],
    target: PushTarget,
    msg: PushMessage,
    retried: boolean,
  ): Promise<PushOutcome> {
    const tokenUrl = s.tokenUrl || sa.tokenUri
    const { key, token } = await accessToken(sa, tokenUrl, s.serviceAccountJson)
    const base = (s.apiUrl || 'https://fcm.googleapis.com').replace(/\/+$/, '')
    const url = `${base}/v1/projects/${encodeURIComponent(sa.projectId)}/messages:send`
    const message: Record<string, unknown> = {
      token: target.token,
      notification: { title: msg.title, body: msg.body },
    }
    if (msg.data && Object.keys(msg.data).length > 0) message.data = msg.data
    const res = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ message }),
      signal: AbortSignal.timeout(FCM_TIMEOUT_MS),
    })
    const text = await res.text()
    if (res.ok) return { status: 'sent' }
    let body: unknown = null
    try {
      body = JSON.parse(text)
    } catch {
      // an HTML error page: only the status says something
    }
    const err = fcmErrorOf(body)
    if (res.status === 401 && !retried && err.code !== 'THIRD_PARTY_AUTH_ERROR') {
      tokens.delete(key)
      return sendOnce(sa, s, target, msg, true)
    }
    const reason = trimmed(
      `FCM answered ${res.status}${err.code ? ` ${err.code}` : ''}${err.message ? `: ${err.message}` : ''}`,
    )
    if (
      err.code === 'UNREGISTERED' ||
      err.code === 'SENDER_ID_MISMATCH' ||
      (err.code === 'INVALID_ARGUMENT' && err.tokenField)
    )
      return { status: 'gone', reason }
    return { status: 'failed', reason }
  }

  return {
    platform: 'android',
    enabled: (s) => s.fcm.enabled && s.fcm.serviceAccountJson !== '',
    async send(target: PushTarget, msg: PushMessage, s: PushSettings): Promise<PushOutcome> {
      if (!target.token) return { status: 'gone', reason: 'no registration token' }
      const sa = account(s.fcm.serviceAccountJson)
      if (!sa) return { status: 'failed', reason: 'push.fcm.serviceAccountJson is not usable' }
      try {
        return await sendOnce(sa, s.fcm, target, msg, false)
      } catch (err) {
        const reason = err instanceof Error ? err.message : String(err)
        app.logger.debug('push: FCM send failed', { subscription: target.id, reason })
        return { status: 'failed', reason: trimmed(reason) }
      }
    },
    async close() {
      tokens.clear()
      pending.clear()
      accounts.clear()
    },
  }
}
