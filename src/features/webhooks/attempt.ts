/**
 * One attempt of one outbox delivery: the signed POST through the SSRF guard, and its outcome
 * (delivered, retried later with backoff, or given up), for the deliverer to store.
 */
import type http from 'node:http'
import type { App } from '../../core/app.js'
import { formatDate } from '../../tools/dates.js'
import { guardedRequest } from '../../tools/ssrf.js'
import { BACKOFF_BASE_MS, backoffDelay, retryAfterMs } from './backoff.js'
import { signedHeaders } from './service.js'

/** A due outbox row with its webhook (`url` null: the webhook is gone). */
export interface DueRow {
  id: string
  body: string
  attempts: number
  url: string | null
  secret: string | null
  enabled: unknown
  webhook: string
}

/** One attempt's outcome, waiting to be stored. */
export interface Outcome {
  id: string
  webhook: string
  /** Delivered or given up: the outbox row goes. */
  done: boolean
  next: string
  at: string
  status: string
  error: string
  attempt: number
  gone: boolean
  /** A dropped delivery (webhook deleted or disabled): its webhook row is left alone. */
  silent?: boolean
}

/** What an attempt needs besides the row. */
export interface AttemptOptions {
  backoffBaseMs?: number
  allowAddresses?: readonly string[]
  /** Keep-alive agents per origin, shared by the deliverer's attempts. */
  agents: Map<string, http.Agent>
}

/** POSTs `row` to `url` once and says what to store: done, or when to try again. */
export async function sendOnce(
  app: App,
  row: DueRow,
  url: string,
  options: AttemptOptions,
): Promise<Outcome> {
  const id = row.id
  const settings = app.settings.get().webhooks
  const attempt = Number(row.attempts) + 1
  const timestamp = Math.floor(Date.now() / 1000)
  let status = 0
  let error = ''
  let retryAfter = 0
  try {
    const res = await guardedRequest(url, {
      allowPrivateNetworks: settings.allowPrivateNetworks,
      allowAddresses: options.allowAddresses,
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': 'svcbase-webhooks',
        ...signedHeaders(row.secret ?? '', id, timestamp, row.body),
      },
      body: row.body,
      timeoutMs: settings.timeout * 1000,
      agents: options.agents,
    })
    status = res.status
    if (status >= 300 && status < 400)
      error = `redirect not followed: ${status} to ${String(res.headers.location ?? '')}`
    else if (status < 200 || status >= 300) error = `HTTP ${status}`
    retryAfter = retryAfterMs(res.headers['retry-after'])
  } catch (err) {
    error = err instanceof Error ? err.message : String(err)
  }
  const ok = error === ''
  const gone = status === 410
  const givenUp = !ok && (gone || attempt >= settings.maxAttempts)
  if (givenUp && !gone) error = `${error} (gave up after ${attempt} attempts)`
  if (gone) error = `${error} (410 Gone: webhook disabled)`
  const now = new Date()
  const delay = Math.max(
    backoffDelay(options.backoffBaseMs ?? BACKOFF_BASE_MS, attempt),
    retryAfter,
  )
  return {
    id,
    webhook: row.webhook,
    done: ok || givenUp,
    next: formatDate(new Date(now.getTime() + delay)),
    at: formatDate(now),
    status: status === 0 ? '' : String(status),
    error,
    attempt,
    gone,
  }
}
