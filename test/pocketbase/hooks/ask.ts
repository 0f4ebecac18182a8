/** One request of a `*.pb.js` suite, sent to a server, its answer read as the fixtures keep it. */
import type { HookAnswer, HookCase } from './cases.js'

/** Sends one case to `base` and reads the answer as the fixtures keep it. */
export async function ask(base: string, c: HookCase): Promise<HookAnswer> {
  const res = await fetch(base + c.path, {
    method: c.method,
    headers: c.headers,
    redirect: 'manual',
  })
  const text = await res.text()
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
  let body: unknown = text
  if (type === 'application/json' && text !== '') body = JSON.parse(text) as unknown
  const answer: HookAnswer = { ...c, status: res.status, type, body }
  if (c.random) answer.body = null
  const location = res.headers.get('location')
  if (location !== null) {
    const u = new URL(location, base)
    answer.location = u.pathname + u.search
    // Go's redirect body is an HTML link; only the target is compared
    answer.body = null
    answer.type = ''
  }
  return answer
}
