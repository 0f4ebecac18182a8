/**
 * The differential harness against PocketBase (issue 34, docs/pocketbase.md "Differences"): a
 * corpus of requests in groups (`groups/`), each group run in order on a fresh server; its
 * answers normalised (generated ids, timestamps, tokens and random file suffixes masked) so that
 * PocketBase's recorded answers (`answers/<group>.json`, `npm run oracle:record`) and svcbase's
 * can be compared key by key. No oracle is needed to replay.
 */
import { createHash } from 'node:crypto'
import { Stream } from './streams.js'

/** One request of the corpus. Strings may name saved values as `{{name}}`. */
export interface Step {
  /** Unique within its group; the allowed differences name steps by it. */
  name: string
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE' | 'OPTIONS' | 'HEAD'
  path: string
  /** Whose token: a guest (no header), the superuser (`su`), or a saved token's name. */
  as?: string
  /** A JSON body. */
  body?: unknown
  /** A multipart body: text fields, or files given as their content. */
  form?: Record<string, string | string[] | FormFile | FormFile[]>
  /** A raw body sent as is (with `headers['content-type']`). */
  raw?: string
  headers?: Record<string, string>
  /** Values to keep for later steps: name → dotted path in the answer's body (`token`, `id`). */
  save?: Record<string, string>
  /**
   * Realtime (test/pocketbase/streams.ts): `open` an SSE connection on `path` (its client id
   * saved under the name), `read` its events since the last read, or `close` it.
   */
  stream?: { open: string } | { read: string } | { close: string }
}

export interface FormFile {
  file: string
  /** The file's content: text, or base64 when `base64` (an image, say). */
  content: string
  base64?: boolean
  type?: string
}

/** A group: its steps, run in order on a fresh server. */
export interface Group {
  name: string
  steps: Step[]
}

/** A normalised answer. */
export interface Answer {
  name: string
  status: number
  /** JSON (normalised), or for other bodies their content type, length and digest. */
  body: unknown
}

export interface Recording {
  oracle: string
  recorded: string
  group: string
  answers: Answer[]
}

export const ORACLE_VERSION = 'PocketBase 0.40.4 (Debian build of the upstream source)'
export const SUPERUSER = { email: 'admin@example.com', password: 'supersecret123' }

const DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d+)?Z$/
const JWT = /^eyJ[\w-]+\.eyJ[\w-]+\.[\w-]+$/
const GENERATED_ID = /^[a-z0-9]{15}$/
/** PocketBase's field ids: the type and a checksum of the name (deterministic, never masked). */
const FIELD_ID =
  /^(text|number|bool|email|url|editor|date|autodate|select|file|relation|json|geoPoint|password)\d+$/
const FILE_SUFFIX = /_[a-z0-9]{10}(\.[A-Za-z0-9]+)$/

/**
 * Masks what differs by nature between two runs: datetimes within a week of now (fixed dates in
 * the corpus are years away), tokens, ids the corpus did not choose, random file-name suffixes.
 */
export function normalise(
  value: unknown,
  chosenIds: ReadonlySet<string>,
  now = Date.now(),
): unknown {
  if (typeof value === 'string') {
    if (DATETIME.test(value)) {
      const t = Date.parse(value.replace(' ', 'T'))
      return Math.abs(t - now) < 7 * 86_400_000 ? '<now>' : value
    }
    if (JWT.test(value)) return '<token>'
    if (GENERATED_ID.test(value) && !chosenIds.has(value) && !FIELD_ID.test(value)) return '<id>'
    if (FILE_SUFFIX.test(value) && !chosenIds.has(value) && !/^pbc_\d+$/.test(value))
      return value.replace(FILE_SUFFIX, (_m, ext: string) => `_<rand>${ext}`)
    return value
  }
  if (Array.isArray(value)) return value.map((v) => normalise(v, chosenIds, now))
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const key of Object.keys(value).sort())
      out[key] = normalise((value as Record<string, unknown>)[key], chosenIds, now)
    return out
  }
  return value
}

/** The ids a group chooses itself (15 lowercase letters and digits in its paths and bodies). */
export function chosenIds(group: Group): Set<string> {
  const ids = new Set<string>()
  const text = JSON.stringify(group.steps)
  for (const m of text.matchAll(/(?<![A-Za-z0-9])[a-z0-9]{15}(?![A-Za-z0-9])/g)) ids.add(m[0])
  return ids
}

function substitute(text: string, saved: Map<string, string>): string {
  return text.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    const v = saved.get(name)
    if (v === undefined) throw new Error(`no saved value "${name}"`)
    return v
  })
}

function substituteDeep(value: unknown, saved: Map<string, string>): unknown {
  if (typeof value === 'string') return substitute(value, saved)
  if (Array.isArray(value)) return value.map((v) => substituteDeep(v, saved))
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [substitute(k, saved), substituteDeep(v, saved)]),
    )
  return value
}

function pick(body: unknown, path: string): string | undefined {
  let v: unknown = body
  for (const part of path.split('.')) {
    if (v === null || typeof v !== 'object') return undefined
    v = (v as Record<string, unknown>)[part]
  }
  if (v === undefined || v === null) return undefined
  return typeof v === 'string' ? v : JSON.stringify(v)
}

/**
 * Runs a group against `baseUrl` (the superuser's token first, then the `seed` values), returning
 * its raw answers.
 */
export async function runGroup(
  baseUrl: string,
  group: Group,
  seed: ReadonlyMap<string, string> = new Map(),
): Promise<Array<{ name: string; status: number; body: unknown }>> {
  const saved = new Map<string, string>(seed)
  const login = await fetch(`${baseUrl}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: SUPERUSER.email, password: SUPERUSER.password }),
  })
  if (login.status !== 200) throw new Error(`superuser sign-in: ${login.status}`)
  saved.set('su', ((await login.json()) as { token: string }).token)
  const out: Array<{ name: string; status: number; body: unknown }> = []
  const streams = new Map<string, Stream>()
  try {
    for (const step of group.steps) out.push(await runStep(baseUrl, step, saved, streams))
  } finally {
    for (const s of streams.values()) s.close()
  }
  return out
}

async function runStep(
  baseUrl: string,
  step: Step,
  saved: Map<string, string>,
  streams: Map<string, Stream>,
): Promise<{ name: string; status: number; body: unknown }> {
  {
    const headers: Record<string, string> = {}
    for (const [k, v] of Object.entries(step.headers ?? {})) headers[k] = substitute(v, saved)
    if (step.as) {
      const token = saved.get(step.as)
      if (token === undefined) throw new Error(`${step.name}: no saved token "${step.as}"`)
      headers.authorization = token
    }
    if (step.stream) return streamStep(baseUrl, step, headers, saved, streams)
    let body: string | FormData | undefined
    if (step.raw !== undefined) body = substitute(step.raw, saved)
    else if (step.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = JSON.stringify(substituteDeep(step.body, saved))
    } else if (step.form) {
      const form = new FormData()
      for (const [key, value] of Object.entries(step.form)) {
        for (const v of Array.isArray(value) ? value : [value]) {
          if (typeof v === 'string') form.append(key, substitute(v, saved))
          else
            form.append(
              key,
              new Blob([v.base64 ? Buffer.from(v.content, 'base64') : v.content], {
                type: v.type ?? 'text/plain',
              }),
              v.file,
            )
        }
      }
      body = form
    }
    const res = await fetch(`${baseUrl}${substitute(step.path, saved)}`, {
      method: step.method,
      headers,
      body,
      redirect: 'manual',
    })
    const bytes = Buffer.from(await res.arrayBuffer())
    const type = res.headers.get('content-type') ?? ''
    let parsed: unknown
    if (/json/.test(type) || (bytes.length > 0 && /^[[{]/.test(bytes.toString('utf8', 0, 1)))) {
      try {
        parsed = JSON.parse(bytes.toString('utf8'))
      } catch {
        parsed = undefined
      }
    }
    if (parsed === undefined) {
      parsed = bytes.length === 0 ? null : describeBytes(type.split(';')[0] ?? '', bytes)
    }
    for (const [name, path] of Object.entries(step.save ?? {})) {
      const v = pick(parsed, path)
      if (v !== undefined) saved.set(name, v)
    }
    return { name: step.name, status: res.status, body: parsed }
  }
}

async function streamStep(
  baseUrl: string,
  step: Step,
  headers: Record<string, string>,
  saved: Map<string, string>,
  streams: Map<string, Stream>,
): Promise<{ name: string; status: number; body: unknown }> {
  const s = step.stream!
  if ('open' in s) {
    const stream = await Stream.open(`${baseUrl}${substitute(step.path, saved)}`, headers)
    streams.set(s.open, stream)
    const { event, clientId } = stream.takeConnect()
    if (clientId !== undefined) saved.set(s.open, clientId)
    return {
      name: step.name,
      status: stream.status,
      body: { event, clientId: clientId ? '<client>' : null },
    }
  }
  const key = 'read' in s ? s.read : s.close
  const stream = streams.get(key)
  if (!stream) throw new Error(`${step.name}: no open stream "${key}"`)
  if ('close' in s) {
    stream.close()
    streams.delete(key)
    return { name: step.name, status: 0, body: null }
  }
  return { name: step.name, status: 0, body: await stream.read() }
}

/**
 * A body that is not JSON: its type, length and digest; an image (thumbs differ byte for byte
 * between image libraries) by its type and size in pixels instead.
 */
function describeBytes(contentType: string, bytes: Buffer): Record<string, unknown> {
  const size = imageSize(bytes)
  if (size) return { contentType, ...size }
  const sha256 = createHash('sha256').update(bytes).digest('hex').slice(0, 16)
  return { contentType, bytes: bytes.length, sha256 }
}

/** The width and height of a PNG, GIF or JPEG, read from its header. */
export function imageSize(b: Buffer): { image: string; width: number; height: number } | null {
  if (b.length > 24 && b.readUInt32BE(0) === 0x89504e47)
    return { image: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
  if (b.length > 10 && b.toString('latin1', 0, 3) === 'GIF')
    return { image: 'gif', width: b.readUInt16LE(6), height: b.readUInt16LE(8) }
  if (b.length > 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2
    while (i + 9 < b.length && b[i] === 0xff) {
      const marker = b[i + 1]!
      const length = b.readUInt16BE(i + 2)
      // SOF0–SOF15 carry the size, except DHT (C4), JPG (C8) and DAC (CC).
      if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
        return { image: 'jpeg', width: b.readUInt16BE(i + 7), height: b.readUInt16BE(i + 5) }
      i += 2 + length
    }
  }
  return null
}

/** The differences between PocketBase's answer and svcbase's, as `path: pb → svc` lines. */
export function diff(pb: unknown, svc: unknown, path = ''): string[] {
  if (JSON.stringify(pb) === JSON.stringify(svc)) return []
  const isObj = (v: unknown) => v !== null && typeof v === 'object' && !Array.isArray(v)
  if (isObj(pb) && isObj(svc)) {
    const a = pb as Record<string, unknown>
    const b = svc as Record<string, unknown>
    const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
    return keys.flatMap((k) => {
      const p = path ? `${path}.${k}` : k
      if (!(k in a)) return [`${p}: (absent) → ${short(b[k])}`]
      if (!(k in b)) return [`${p}: ${short(a[k])} → (absent)`]
      return diff(a[k], b[k], p)
    })
  }
  if (Array.isArray(pb) && Array.isArray(svc)) {
    // Lists of named or identified objects (fields, records) are compared by that key, so that
    // one extra element does not shift every other; the order is compared apart.
    const key = ['name', 'id'].find((k) =>
      [...pb, ...svc].every(
        (v) => isObj(v) && typeof (v as Record<string, unknown>)[k] === 'string',
      ),
    )
    if (key && pb.length > 0 && svc.length > 0) {
      const byKey = (list: unknown[]) =>
        new Map(list.map((v) => [String((v as Record<string, unknown>)[key]), v]))
      const a = byKey(pb)
      const b = byKey(svc)
      if (a.size === pb.length && b.size === svc.length) {
        const out: string[] = []
        for (const [k, v] of a) {
          const p = `${path}[${key}=${k}]`
          out.push(...(b.has(k) ? diff(v, b.get(k), p) : [`${p}: ${short(v)} → (absent)`]))
        }
        for (const [k, v] of b)
          if (!a.has(k)) out.push(`${path}[${key}=${k}]: (absent) → ${short(v)}`)
        const order = (m: Map<string, unknown>, other: Map<string, unknown>) =>
          [...m.keys()].filter((k) => other.has(k))
        if (order(a, b).join() !== order(b, a).join())
          out.push(`${path}(order of ${key}): ${short(order(a, b))} → ${short(order(b, a))}`)
        return out
      }
    }
    if (pb.length === svc.length) return pb.flatMap((v, i) => diff(v, svc[i], `${path}[${i}]`))
  }
  return [`${path || '(root)'}: ${short(pb)} → ${short(svc)}`]
}

function short(v: unknown): string {
  const s = JSON.stringify(v) ?? 'undefined'
  return s.length > 160 ? `${s.slice(0, 157)}...` : s
}
