import type { FastifyRequest } from 'fastify'
import { badRequest } from '../core/errors.js'

/** A file part of a multipart body, buffered. */
export interface UploadedFile {
  field: string
  filename: string
  mimetype: string
  data: Buffer
}

/** A parsed request body. */
export interface ParsedBody {
  values: Record<string, unknown>
  files: UploadedFile[]
}

/**
 * Infers a form value's type as PocketBase does (reference §0.5): `true`/`false` become
 * booleans and minimal number representations become numbers; everything else stays text.
 */
export function inferFormValue(value: string): unknown {
  if (value === 'true') return true
  if (value === 'false') return false
  if (/^-?(0|[1-9]\d*)(\.\d*[1-9])?$/.test(value) && Number.isFinite(Number(value)))
    return Number(value)
  return value
}

/** Adds a form value; repeated keys become arrays. */
function addValue(target: Record<string, unknown>, key: string, value: unknown): void {
  if (!(key in target)) target[key] = value
  else if (Array.isArray(target[key])) (target[key] as unknown[]).push(value)
  else target[key] = [target[key], value]
}

/** Applies `@jsonPayload` values (JSON objects merged on top, in order). */
function applyJsonPayload(values: Record<string, unknown>): Record<string, unknown> {
  const payload = values['@jsonPayload']
  if (payload === undefined) return values
  const { ['@jsonPayload']: _drop, ...rest } = values
  for (const item of Array.isArray(payload) ? payload : [payload]) {
    let parsed: unknown
    try {
      parsed = JSON.parse(String(item))
    } catch {
      throw badRequest('Failed to read the submitted data: @jsonPayload is not valid JSON.')
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw badRequest('Failed to read the submitted data: @jsonPayload must be a JSON object.')
    }
    Object.assign(rest, parsed)
  }
  return rest
}

/** Turns urlencoded text into inferred values. */
export function parseUrlEncoded(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of new URLSearchParams(text)) addValue(out, k, inferFormValue(v))
  return applyJsonPayload(out)
}

/**
 * Reads the body of a request: JSON and urlencoded bodies were parsed by the content-type
 * parsers; multipart bodies are read here, part by part.
 */
export async function readBody(req: FastifyRequest): Promise<ParsedBody> {
  if (req.isMultipart()) {
    const values: Record<string, unknown> = {}
    const files: UploadedFile[] = []
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        files.push({
          field: part.fieldname,
          filename: part.filename,
          mimetype: part.mimetype,
          data: await part.toBuffer(),
        })
      } else {
        addValue(
          values,
          part.fieldname,
          part.fieldname === '@jsonPayload'
            ? String(part.value)
            : inferFormValue(String(part.value)),
        )
      }
    }
    return { values: applyJsonPayload(values), files }
  }
  const body = req.body
  if (body === undefined || body === null || body === '') return { values: {}, files: [] }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest('Failed to read the submitted data: the body must be a JSON object.')
  }
  return { values: body as Record<string, unknown>, files: [] }
}
