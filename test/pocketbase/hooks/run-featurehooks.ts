/**
 * Runs one step of the `featurehooks` suite (`cases-featurehooks.ts`) against a server and
 * reads its answer as the fixtures keep it: plain requests through `ask.ts`, uploads,
 * downloads, and a realtime client reading its stream.
 */
import { ask } from './ask.js'
import { SU } from './cases.js'
import type {
  FeatureAnswer,
  FeatureContext,
  FeatureStep,
  RealtimeStep,
} from './cases-featurehooks.js'

/** `{ref}` in `text` replaced by the kept record's id. */
function withRefs(text: string, ctx: FeatureContext): string {
  return text.replace(/\{(\w+)\}/g, (_m, ref: string) => ctx.records[ref]?.id ?? `{${ref}}`)
}

/** The superuser's token. */
async function suToken(base: string): Promise<string> {
  const res = await fetch(`${base}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: SU.identity, password: SU.password }),
  })
  return ((await res.json()) as { token: string }).token
}

/** A body as recorded: JSON parsed, text as it is. */
async function bodyOf(res: Response): Promise<unknown> {
  const text = await res.text()
  try {
    return text === '' ? '' : clean(JSON.parse(text) as unknown)
  } catch {
    return text
  }
}

/**
 * An error body as compared: svcbase adds `code` beside `status`, the same value
 * (docs/pocketbase.md, SPEC §7); it is dropped.
 */
function clean(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return body
  const { code, ...rest } = body as Record<string, unknown>
  return 'status' in rest && code === rest.status ? rest : body
}

/** A backups listing as compared: the keys, sorted (sizes and dates differ). */
const keysOf = (body: unknown): unknown =>
  Array.isArray(body) ? body.map((b: { key?: unknown }) => b.key).sort() : body

/** Runs one step against `base` and reads its answer as the fixtures keep it. */
export async function runStep(
  base: string,
  step: FeatureStep,
  ctx: FeatureContext,
): Promise<FeatureAnswer> {
  if (step.kind === 'http') {
    const c = { ...step.case, path: withRefs(step.case.path, ctx) }
    const a = await ask(base, c)
    const body = c.name === 'backups' ? keysOf(a.body) : clean(a.body)
    return { name: c.name, status: a.status, type: a.type, body }
  }
  if (step.kind === 'upload') {
    const form = new FormData()
    form.set('title', step.title)
    form.set('doc', new Blob([step.file.text], { type: 'text/plain' }), step.file.name)
    const res = await fetch(`${base}/api/collections/notes/records`, {
      method: 'POST',
      headers: { authorization: await suToken(base) },
      body: form,
    })
    const body = (await res.json()) as { id: string; doc: string; title: string }
    ctx.records[step.ref] = { id: body.id, doc: body.doc }
    return { name: step.name, status: res.status, title: body.title }
  }
  if (step.kind === 'download') {
    const r = ctx.records[step.ref]!
    const query = step.query ? `?${withRefs(step.query, ctx)}` : ''
    const res = await fetch(`${base}/api/files/notes/${r.id}/${r.doc}${query}`)
    const disposition = res.headers.get('content-disposition') ?? ''
    const filename = /filename="([^"]*)"/.exec(disposition)?.[1] ?? null
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim()
    const body = await bodyOf(res)
    // The stored name is random: only whether the answer names it is compared.
    return {
      name: step.name,
      status: res.status,
      type,
      body,
      filename: filename === r.doc ? 'the stored name' : filename,
    }
  }
  return realtime(base, step)
}

/** One realtime client's run: what it was answered and what it received. */
async function realtime(base: string, step: RealtimeStep): Promise<FeatureAnswer> {
  const ac = new AbortController()
  const res = await fetch(`${base}/api/realtime`, { signal: ac.signal, headers: step.headers })
  if (res.status !== 200 || !step.subscribe) {
    // PocketBase sends the stream's headers before its hook runs: the type is not compared.
    const body = await bodyOf(res)
    return { name: step.name, status: res.status, body }
  }
  const reader = res.body!.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let clientId = ''
  const events: { event: string; data: unknown }[] = []
  const pump = (async () => {
    for (;;) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true }))
      if (done) return
      text += decoder.decode(value, { stream: true })
      let end: number
      while ((end = text.indexOf('\n\n')) >= 0) {
        const block = text.slice(0, end)
        text = text.slice(end + 2)
        const event = /^event:(.*)$/m.exec(block)?.[1]
        const data = /^data:(.*)$/m.exec(block)?.[1]
        if (event === undefined || data === undefined) continue
        if (event === 'PB_CONNECT') clientId = (JSON.parse(data) as { clientId: string }).clientId
        else if (event !== 'SVC_CONNECT') events.push({ event, data: JSON.parse(data) })
      }
    }
  })()
  for (let i = 0; i < 200 && !clientId; i++) await new Promise((r) => setTimeout(r, 10))
  const subscribed: unknown[] = []
  for (const subscriptions of step.subscribe) {
    const r = await fetch(`${base}/api/realtime`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ clientId, subscriptions }),
    })
    subscribed.push({ status: r.status, body: await bodyOf(r) })
  }
  const answers: unknown[] = []
  for (const c of step.then ?? []) answers.push((await ask(base, c)).status)
  // The messages it should get (waited for, 5 s at most), then any more for 300 ms.
  for (let i = 0; i < 500 && events.length < (step.receive ?? 0); i++)
    await new Promise((r) => setTimeout(r, 10))
  await new Promise((r) => setTimeout(r, 300))
  ac.abort()
  await pump
  const received = events.map(({ event, data }) => {
    const d = data as { action?: string; record?: Record<string, unknown> }
    return { event, action: d.action, title: d.record?.title, hooked: d.record?.hooked ?? null }
  })
  return { name: step.name, connected: clientId.length, subscribed, answers, received }
}
