/**
 * The contract every push backend (Web Push, FCM, APNs) implements. The push service picks the
 * backend by a subscription's `platform`, asks it whether it is configured (settings are read per
 * send, so changes apply live) and hands it one target and one message at a time.
 */

import type { PushSettings } from './settings.js'

/** What is sent: a title, a body and optional string data. */
export interface PushMessage {
  title: string
  body: string
  data?: Record<string, string>
}

/** One `_push_subscriptions` row, as a backend needs it. */
export interface PushTarget {
  id: string
  platform: 'web' | 'android' | 'ios'
  /** Web: the push service endpoint URL. */
  endpoint?: string
  /** Web: the subscription's public key and auth secret (base64url). */
  keys?: { p256dh: string; auth: string }
  /** Android / iOS: the device registration token. */
  token?: string
}

/** 'sent'; 'gone' (the service says the subscription no longer exists: disable it); or a failure. */
export type PushOutcome =
  { status: 'sent' } | { status: 'gone'; reason: string } | { status: 'failed'; reason: string }

export interface PushBackend {
  readonly platform: 'web' | 'android' | 'ios'
  /** True when the backend's settings are complete and it is switched on. */
  enabled(settings: PushSettings): boolean
  send(target: PushTarget, msg: PushMessage, settings: PushSettings): Promise<PushOutcome>
  /** Releases connections (HTTP/2 sessions, agents) when the server stops. */
  close?(): Promise<void>
}
