/** One request of a `*.pb.js` suite, sent to a server, its answer read as the fixtures keep it. */
import type { TestSmtp } from '../../helpers/smtp.js'
import type { HookAnswer, HookCase, SentMail } from './cases.js'

/** One part of a multipart body: a field's text, or a file (its name, text content, type). */
export interface MultipartPart {
  name: string
  value?: string
  file?: { filename: string; content: string; type?: string }
}

/**
 * A case with the optional extras of this file: a multipart body (`multipart`: its parts, in
 * order), a urlencoded one (`form`) or a raw text (`text`) instead of JSON, and `cookies`: the answer's `Set-Cookie`
 * lines kept (as `setCookie`).
 */
export type MultipartCase = HookCase & {
  multipart?: MultipartPart[]
  /** A raw text body (its media type from `headers`, text/plain by default). */
  text?: string
  form?: Record<string, string>
  cookies?: true
}

/** The `FormData` of a case's multipart parts. */
function formOf(parts: MultipartPart[]): FormData {
  const form = new FormData()
  for (const p of parts)
    if (p.file)
      form.append(
        p.name,
        new Blob([p.file.content], { type: p.file.type ?? 'application/octet-stream' }),
        p.file.filename,
      )
    else form.append(p.name, p.value ?? '')
  return form
}

/** A signed-in token for a case's `auth`. */
async function tokenOf(base: string, auth: NonNullable<HookCase['auth']>): Promise<string> {
  const res = await fetch(`${base}/api/collections/${auth.collection}/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: auth.identity, password: auth.password }),
  })
  const body = (await res.json()) as { token?: string }
  if (typeof body.token !== 'string') throw new Error(`cannot sign in as ${auth.identity}`)
  return body.token
}

/** Only the `paths` (`a.b`) of `v`, where present. */
function pick(v: unknown, paths: readonly string[]): unknown {
  if (!v || typeof v !== 'object') return v
  const out: Record<string, unknown> = {}
  for (const path of paths) {
    const keys = path.split('.')
    let from: unknown = v
    for (const k of keys)
      from = from && typeof from === 'object' ? (from as Record<string, unknown>)[k] : undefined
    if (from === undefined) continue
    let to = out
    for (const k of keys.slice(0, -1)) to = (to[k] ??= {}) as Record<string, unknown>
    to[keys[keys.length - 1] as string] = from
  }
  return out
}

/** Points the server's mail at `smtp` (signed in as the superuser both servers have). */
export async function useSmtp(base: string, smtp: TestSmtp, su: NonNullable<HookCase['auth']>) {
  const res = await fetch(`${base}/api/settings`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json', authorization: await tokenOf(base, su) },
    body: JSON.stringify({
      meta: {
        appName: 'Acme',
        appURL: 'http://localhost:8090',
        senderAddress: 'sender@example.com',
        senderName: 'Sender',
      },
      smtp: { enabled: true, host: smtp.host, port: smtp.port, tls: false },
    }),
  })
  if (!res.ok) throw new Error(`the settings were not saved: ${await res.text()}`)
}

/**
 * A mail as compared: JWTs masked, the HTML's spacing normalised, and only the inside of its
 * `<body>` (PocketBase wraps an auth mail's template in a layout of its own; svcbase does not).
 */
function sentMail(m: TestSmtp['mails'][number]): SentMail {
  const mask = (t: string) =>
    (/<body>([\s\S]*)<\/body>/.exec(t)?.[1] ?? t)
      .replace(/eyJ[\w-]+\.[\w-]+\.[\w-]+/g, 'TOKEN')
      .replace(/\s+/g, ' ')
      .trim()
  return {
    from: m.from,
    fromHeader: m.fromHeader,
    to: m.to,
    subject: m.subject,
    html: mask(m.html),
    ...(m.ccHeader !== '' ? { cc: m.ccHeader } : {}),
    ...(m.bccHeader !== '' ? { bcc: m.bccHeader } : {}),
    ...(m.attachments.length > 0 ? { attachments: m.attachments } : {}),
  }
}

/** The mails the server sends from now on: `count` of them (waited for), then any more. */
async function mailsAfter(smtp: TestSmtp, before: number, count: number): Promise<SentMail[]> {
  for (let i = 0; i < 100 && smtp.mails.length < before + count; i++)
    await new Promise((r) => setTimeout(r, 50))
  await new Promise((r) => setTimeout(r, 300))
  return smtp.mails.slice(before).map(sentMail)
}

/** The values cases saved (`save`), per server. */
const saved = new Map<string, Record<string, string>>()

/** `v` with each `{{name}}` of a saved value replaced (others left as written). */
function withSaved<T>(v: T, values: Record<string, string>): T {
  if (typeof v === 'string')
    return v.replace(/\{\{(\w+)\}\}/g, (m, n: string) => values[n] ?? m) as T
  if (Array.isArray(v)) return v.map((x: unknown) => withSaved(x, values)) as T
  if (v && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, withSaved(x, values)])) as T
  return v
}

/** Keeps the values a case's `save` names, from its JSON answer or the mails it sent. */
function save(c: HookCase, values: Record<string, string>, body: unknown, mails: string[]) {
  for (const [name, from] of Object.entries(c.save ?? {})) {
    const v = from.startsWith('body:')
      ? from
          .slice(5)
          .split('.')
          .reduce<unknown>(
            (o, k) => (o && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
            body,
          )
      : mails.map((html) => new RegExp(from.slice(5)).exec(html)?.[1]).find(Boolean)
    if (typeof v !== 'string') throw new Error(`case "${c.name}": nothing to save as ${name}`)
    values[name] = v
  }
}

/** Sends one case to `base` and reads the answer as the fixtures keep it. */
export async function ask(base: string, c: HookCase, smtp?: TestSmtp): Promise<HookAnswer> {
  const before = smtp?.mails.length ?? 0
  if (c.wait) await new Promise((r) => setTimeout(r, c.wait))
  const values = saved.get(base) ?? {}
  saved.set(base, values)
  const headers: Record<string, string> = withSaved({ ...c.headers }, values)
  if (c.auth) headers.authorization = await tokenOf(base, c.auth)
  if (c.send !== undefined) headers['content-type'] = 'application/json'
  const { multipart: parts, form, cookies, text: raw } = c as MultipartCase
  const res = await fetch(base + withSaved(c.path, values), {
    method: c.method,
    headers,
    body: parts
      ? formOf(parts)
      : raw !== undefined
        ? new Blob([raw], { type: headers['content-type'] ?? 'text/plain' })
        : form
          ? new URLSearchParams(form)
          : c.send === undefined
            ? undefined
            : JSON.stringify(withSaved(c.send, values)),
    redirect: 'manual',
  })
  const text = await res.text()
  const type = (res.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? ''
  let body: unknown = text
  if (type === 'application/json' && text !== '') body = JSON.parse(text) as unknown
  const full = body
  if (c.keep) body = pick(body, c.keep)
  const answer: HookAnswer = { ...c, status: res.status, type, body }
  if (cookies) Object.assign(answer, { setCookie: res.headers.getSetCookie() })
  if (smtp && c.mails !== undefined) answer.sent = await mailsAfter(smtp, before, c.mails)
  if (c.save) save(c, values, full, smtp?.mails.slice(before).map((m) => m.html) ?? [])
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
