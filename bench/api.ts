/**
 * A minimal JSON client for setting up the benchmark through svcbase's own API (never used to
 * measure: the load goes through autocannon or `fresh-conn.ts`).
 */

/** Calls `method url` with an optional JSON or multipart body and bearer token; throws on non-2xx. */
export async function api<T = any>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  token?: string,
): Promise<T> {
  const headers: Record<string, string> = {}
  if (token) headers.authorization = `Bearer ${token}`
  let payload: string | FormData | undefined
  if (body instanceof FormData) payload = body
  else if (body !== undefined) {
    headers['content-type'] = 'application/json'
    payload = JSON.stringify(body)
  }
  const res = await fetch(base + path, { method, headers, body: payload })
  const text = await res.text()
  if (!res.ok) throw new Error(`${method} ${path} → ${res.status}: ${text.slice(0, 500)}`)
  return (text === '' ? undefined : JSON.parse(text)) as T
}

/** Runs `fn` over `items` with at most `limit` calls in flight; results keep the input order. */
export async function mapLimit<I, O>(
  items: readonly I[],
  limit: number,
  fn: (item: I, index: number) => Promise<O>,
): Promise<O[]> {
  const out = new Array<O>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const i = next++
      out[i] = await fn(items[i]!, i)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return out
}

/** Signs a superuser in on `url`; returns the token. */
export async function superuserToken(
  url: string,
  su: { email: string; password: string },
): Promise<string> {
  const res = await api<{ token: string }>(
    url,
    'POST',
    '/api/collections/_superusers/auth-with-password',
    { identity: su.email, password: su.password },
  )
  return res.token
}
