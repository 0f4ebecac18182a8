/**
 * Embeddings for auto-embedded vector fields: the network-free echo embedding (deterministic
 * feature hashing of the words, unit length) by default, or an OpenAI-compatible
 * `POST {baseUrl}/embeddings` when `settings.llm` enables a provider and names an
 * `embeddingModel`.
 */
import { createHash } from 'node:crypto'
import type { App } from '../../core/app.js'
import type { Field } from '../../core/collections/model.js'
import { ApiError, messages } from '../../core/errors.js'
import { vectorDimensions } from '../../core/fields/vector.js'
import { isOpenAiCompatible } from '../../tools/openai-compatible.js'

/** The most bytes of a provider's answer read (an error body, or the embeddings). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024
/** The longest provider message passed on to the client. */
const MAX_DETAIL = 500

/** The `llm` settings auto-embedding reads (absent when the LLM feature is disabled). */
interface EmbeddingSettings {
  enabled: boolean
  provider: string
  baseUrl: string
  apiKey: string
  timeout: number
  embeddingModel?: string
}

function fnv1a(text: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193) >>> 0
  }
  return h
}

/**
 * The echo embedding of `text`: each lower-cased word adds ±1 at two hashed positions (feature
 * hashing, so texts sharing words point the same way), then the vector is scaled to unit length.
 * A text without words (or whose words cancel out) gets a dense vector from SHA-256 of the text.
 * Deterministic and network-free.
 */
export function echoEmbedding(text: string, dims: number): number[] {
  const v = new Float64Array(dims)
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    for (const seed of [1, 2]) {
      const h = fnv1a(word, seed)
      const i = h % dims
      v[i] = v[i]! + (h & 0x80000000 ? -1 : 1)
    }
  }
  let sum = v.reduce((s, x) => s + x * x, 0)
  if (sum === 0) {
    for (let i = 0; i < dims; i += 8) {
      const block = createHash('sha256').update(`${i}:${text}`).digest()
      for (let j = 0; j < 8 && i + j < dims; j++) v[i + j] = block.readInt32LE(j * 4) / 2 ** 31
    }
    sum = v.reduce((s, x) => s + x * x, 0) || 1
  }
  const inv = 1 / Math.sqrt(sum)
  return Array.from(v, (x) => x * inv)
}

/** The provider settings when `llm` selects an OpenAI-compatible embeddings API, else null. */
function providerSettings(app: App): EmbeddingSettings | null {
  const llm = (app.settings.get() as { llm?: EmbeddingSettings }).llm
  if (!llm || !llm.enabled || !llm.embeddingModel) return null
  return isOpenAiCompatible(llm.provider) ? llm : null
}

/** Embeddings of `texts` for `field`: the provider's when one is configured, else echo ones. */
export async function embedTexts(app: App, field: Field, texts: string[]): Promise<number[][]> {
  const dims = vectorDimensions(field)
  const settings = providerSettings(app)
  if (!settings) return texts.map((t) => echoEmbedding(t, dims))
  return providerEmbeddings(settings, dims, texts)
}

const clip = (s: string): string => (s.length > MAX_DETAIL ? `${s.slice(0, MAX_DETAIL)}…` : s)

/** Why a fetch failed, from undici's `cause` (`ECONNREFUSED`, a DNS error, …). */
function networkReason(err: unknown): string {
  const cause = (err as { cause?: { code?: unknown; message?: unknown } }).cause
  if (typeof cause?.code === 'string') return clip(cause.code)
  if (typeof cause?.message === 'string') return clip(cause.message)
  return clip(err instanceof Error ? err.message : String(err))
}

/** The body of an answer, at most {@link MAX_ANSWER_BYTES}. */
async function readBody(res: Response): Promise<string> {
  const length = Number(res.headers.get('content-length') ?? 0)
  if (length > MAX_ANSWER_BYTES) {
    await res.body?.cancel()
    throw new ApiError(502, messages.embeddingInvalid({ reason: 'the answer is too large' }))
  }
  return res.text()
}

/** The provider's message from an OpenAI error body, else the body's start. */
function detailOf(text: string): string {
  try {
    const json = JSON.parse(text) as { error?: { message?: unknown } | string; message?: unknown }
    if (typeof json.error === 'string') return clip(json.error)
    if (typeof json.error?.message === 'string') return clip(json.error.message)
    if (typeof json.message === 'string') return clip(json.message)
  } catch {
    // not JSON: the text itself
  }
  return clip(text.trim() || 'no message')
}

/** `POST {baseUrl}/embeddings`; every failure is a 502 naming what went wrong. */
async function providerEmbeddings(
  settings: EmbeddingSettings,
  dims: number,
  texts: string[],
): Promise<number[][]> {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/embeddings`
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`
  const body = JSON.stringify({ model: settings.embeddingModel, input: texts, dimensions: dims })
  const signal = AbortSignal.timeout(settings.timeout * 1000)
  let text: string
  let status: number
  try {
    const res = await fetch(url, { method: 'POST', headers, body, signal, redirect: 'error' })
    status = res.status
    text = await readBody(res)
  } catch (err) {
    if (err instanceof ApiError) throw err
    if (signal.aborted)
      throw new ApiError(502, messages.embeddingTimeout({ seconds: settings.timeout }))
    throw new ApiError(502, messages.embeddingUnreachable({ reason: networkReason(err) }))
  }
  if (status < 200 || status > 299)
    throw new ApiError(502, messages.embeddingFailed({ status, detail: detailOf(text) }))
  return parseEmbeddings(text, dims, texts.length)
}

/** The vectors of an embeddings answer, in input order, each checked. */
export function parseEmbeddings(text: string, dims: number, n: number): number[][] {
  const invalid = (reason: string) => new ApiError(502, messages.embeddingInvalid({ reason }))
  let json: { data?: unknown }
  try {
    json = JSON.parse(text) as { data?: unknown }
  } catch {
    throw invalid('the answer is not JSON')
  }
  const data = json?.data
  if (!Array.isArray(data) || data.length !== n)
    throw invalid(`expected ${n} embedding(s) in "data"`)
  const out = new Array<number[] | undefined>(n)
  for (const [i, item] of data.entries()) {
    const it = item as { index?: unknown; embedding?: unknown }
    const index = typeof it?.index === 'number' ? it.index : i
    let v: unknown = it?.embedding
    if (typeof v === 'string') {
      const bytes = Uint8Array.from(Buffer.from(v, 'base64'))
      v = Array.from(new Float32Array(bytes.buffer, 0, Math.floor(bytes.length / 4)))
    }
    if (!Array.isArray(v) || !v.every((x) => typeof x === 'number' && Number.isFinite(x)))
      throw invalid('an embedding is not a list of finite numbers')
    if (v.length !== dims)
      throw invalid(
        `an embedding has ${v.length} numbers, the field has ${dims} dimensions (set the field's dimensions to the model's)`,
      )
    if (!Number.isInteger(index) || index < 0 || index >= n || out[index])
      throw invalid('the embeddings\' "index" values do not match the inputs')
    out[index] = v as number[]
  }
  return out as number[][]
}
