/**
 * The dashboard's one API client: the official `pocketbase` SDK, so everything the dashboard does
 * is an API call any client could make. The superuser's auth is kept in localStorage under a key
 * of its own (two dashboards of one origin at different paths do not clash), and every request
 * says it comes from the dashboard (`x-request-source: dashboard`).
 */
import PocketBase, { LocalAuthStore, type RecordModel } from 'pocketbase'
import { signal } from '@preact/signals'

/** The API's root: the folder above `/_/`. */
export const apiBase = new URL('../', window.location.origin + window.location.pathname).href

/** The SDK instance every page uses. */
export const pb = new PocketBase(
  apiBase,
  new LocalAuthStore(`__svc_superusers__${window.location.pathname}`),
)
pb.autoCancellation(false)
pb.beforeSend = (url, options) => {
  options.headers = {
    ...(options.headers as Record<string, string>),
    'x-request-source': 'dashboard',
  }
  return { url, options }
}

/** The signed-in superuser, or null (kept in step with the SDK's auth store). */
export const superuser = signal<RecordModel | null>(
  pb.authStore.isSuperuser ? pb.authStore.record : null,
)
pb.authStore.onChange(() => {
  superuser.value = pb.authStore.isSuperuser ? pb.authStore.record : null
})

/** The message of an API error (or any error), for toasts and forms. */
export function errorMessage(err: unknown): string {
  if (err && typeof err === 'object') {
    const e = err as { response?: { message?: unknown }; message?: unknown; status?: number }
    if (typeof e.response?.message === 'string' && e.response.message) return e.response.message
    if (e.status === 0) return 'The server cannot be reached.'
    if (typeof e.message === 'string' && e.message) return e.message
  }
  return String(err)
}

/** The field errors of an API error (`data.<field>.message`), by field name. */
export function fieldErrors(err: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  const data = (err as { response?: { data?: unknown } } | null)?.response?.data
  if (data && typeof data === 'object') {
    for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
      const message = (v as { message?: unknown } | null)?.message
      if (typeof message === 'string') out[k] = message
    }
  }
  return out
}

/** Signs out when the server says the token is no longer good. */
export async function refreshAuth(): Promise<void> {
  if (!pb.authStore.isValid || !pb.authStore.isSuperuser) return
  try {
    await pb.collection('_superusers').authRefresh()
  } catch (err) {
    const status = (err as { status?: number }).status
    if (status === 401 || status === 403 || status === 404) pb.authStore.clear()
  }
}
