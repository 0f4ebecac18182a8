/**
 * The image utilities' domain: query parameters validated into normalised ones, the ETag of
 * normalised parameters, avatar and QR code rendering, and a small cache of recent images.
 */
import { createHash } from 'node:crypto'
import { ApiError, badRequest, validationError, type ValidationErrors } from '../../core/errors.js'
import { CPU_POOL_QUEUE, CPU_POOL_THREADS, CpuPoolBusyError } from '../../tools/cpu-pool.js'
import { AVATAR_STYLES, avatarSvg, type AvatarStyle } from './avatar.js'
import { ECC_LEVELS, QR_MAX_BYTES, qrMatrix, qrPng, qrSvg, qrWidth, type EccLevel } from './qr.js'
import type { QrMatrix } from './qr.js'
import { svgToPng } from './sharp.js'
import { utilsMessages } from './messages.js'

/** Bumped whenever the drawing changes, so every ETag changes with it. */
export const RENDER_VERSION = 'utils-1'

export const IMAGE_FORMATS = ['svg', 'png'] as const
export type ImageFormat = (typeof IMAGE_FORMATS)[number]

/** Avatar sizes in pixels: default and bounds. */
export const AVATAR_SIZE = { default: 128, min: 16, max: 1024 } as const
/** QR code sizes in pixels: default and bounds. */
export const QR_SIZE = { default: 256, min: 64, max: 2048 } as const
/** The longest seed, in characters (code points). */
export const MAX_SEED_CHARS = 256

/** Normalised avatar parameters. */
export interface AvatarParams {
  seed: string
  size: number
  format: ImageFormat
  style: AvatarStyle
}

/** Normalised QR code parameters. */
export interface QrParams {
  data: string
  size: number
  format: ImageFormat
  ecc: EccLevel
}

type Query = Record<string, unknown>

/** Validates the query of `GET /api/utils/avatar`; throws a 400 with every field error. */
export function parseAvatar(query: Query): AvatarParams {
  const errors: ValidationErrors = {}
  const seed = text(query, 'seed', errors)
  if (seed === '' || (seed === undefined && !('seed' in errors)))
    errors.seed = validationError('validation_required')
  else if (seed !== undefined && codePoints(seed) > MAX_SEED_CHARS)
    errors.seed = validationError('validation_length_too_long', { max: MAX_SEED_CHARS })
  const size = integer(query, 'size', AVATAR_SIZE, errors)
  const format = oneOf(query, 'format', IMAGE_FORMATS, 'svg', errors, (v) => v.toLowerCase())
  const style = oneOf(query, 'style', AVATAR_STYLES, 'identicon', errors, (v) => v.toLowerCase())
  if (Object.keys(errors).length > 0) throw badRequest(utilsMessages.avatarInvalid, errors)
  return { seed: seed!, size, format, style }
}

/**
 * Validates the query of `GET /api/utils/qr`; throws a 400 with every field error, naming the
 * byte limit of the level when only the data is too long.
 */
export function parseQr(query: Query): QrParams {
  const errors: ValidationErrors = {}
  const data = text(query, 'data', errors)
  if ((data === undefined && !('data' in errors)) || data === '')
    errors.data = validationError('validation_required')
  const size = integer(query, 'size', QR_SIZE, errors)
  const format = oneOf(query, 'format', IMAGE_FORMATS, 'png', errors, (v) => v.toLowerCase())
  const ecc = oneOf(query, 'ecc', ECC_LEVELS, 'M', errors, (v) => v.toUpperCase())
  const max = QR_MAX_BYTES['ecc' in errors ? 'L' : ecc]
  if (data && Buffer.byteLength(data, 'utf8') > max)
    errors.data = validationError('validation_length_too_long', { max })
  const keys = Object.keys(errors)
  if (keys.length === 1 && errors.data?.code === 'validation_length_too_long')
    throw badRequest(utilsMessages.qrDataTooLong({ max, ecc }), errors)
  if (keys.length > 0) throw badRequest(utilsMessages.qrInvalid, errors)
  return { data: data!, size, format, ecc }
}

/** The ETag of normalised parameters: a hash of them and {@link RENDER_VERSION}. */
export function etagOf(kind: 'avatar' | 'qr', params: AvatarParams | QrParams): string {
  const hash = createHash('sha256')
    .update(`${RENDER_VERSION}\n${kind}\n${JSON.stringify(params)}`, 'utf8')
    .digest('base64url')
  return `"${hash.slice(0, 32)}"`
}

/** True when an `If-None-Match` header names `etag` (or is `*`); weak tags compare too. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((tag) => {
    const t = tag.trim()
    return t === '*' || t === etag || t === `W/${etag}`
  })
}

/**
 * At most `running` jobs at once and `waiting` behind them, in order; one more is refused at once
 * with a 503 (`utilsMessages.imagesBusy`).
 */
export class RenderGate {
  private active = 0
  private readonly queue: (() => void)[] = []

  constructor(
    readonly running = CPU_POOL_THREADS,
    readonly waiting = CPU_POOL_QUEUE,
  ) {}

  async run<T>(job: () => Promise<T>): Promise<T> {
    if (this.active >= this.running) {
      if (this.queue.length >= this.waiting) throw new ApiError(503, utilsMessages.imagesBusy)
      await new Promise<void>((resolve) => this.queue.push(resolve))
    } else this.active++
    try {
      return await job()
    } finally {
      const next = this.queue.shift()
      if (next) next()
      else this.active--
    }
  }
}

/**
 * PNG avatars drawn at once by sharp (on libuv's thread pool, which file reads share) and waiting:
 * a burst of guests cannot take every thread of the pool.
 */
const avatarGate = new RenderGate()

/** The image of avatar parameters. */
export async function renderAvatar(p: AvatarParams): Promise<Buffer> {
  if (p.format === 'svg') return Buffer.from(avatarSvg(p.seed, p.size, p.style, 'text'), 'utf8')
  return avatarGate.run(() => svgToPng(avatarSvg(p.seed, p.size, p.style, 'glyphs')))
}

/**
 * The image of a QR code; throws a 400 when a PNG of it cannot be `size` pixels wide (fewer
 * pixels than modules, quiet zone included).
 */
export async function renderQr(params: QrParams): Promise<Buffer> {
  const { data, size, format, ecc } = params
  let matrix: QrMatrix
  try {
    matrix = await qrMatrix(data, ecc)
  } catch (err) {
    if (err instanceof CpuPoolBusyError) throw new ApiError(503, utilsMessages.imagesBusy, {}, err)
    // Within the byte limit the encoder always fits; should it ever refuse, it is the data's length.
    const max = QR_MAX_BYTES[ecc]
    throw badRequest(
      utilsMessages.qrDataTooLong({ max, ecc }),
      { data: validationError('validation_length_too_long', { max }) },
      err,
    )
  }
  if (format === 'svg') return Buffer.from(qrSvg(matrix, size), 'utf8')
  const width = qrWidth(matrix)
  if (size < width)
    throw badRequest(utilsMessages.qrSizeTooSmall({ min: width, modules: width }), {
      size: validationError('validation_min_greater_equal_than_required', { threshold: width }),
    })
  return qrPng(matrix, size)
}

/** A least-recently-used cache of rendered images by ETag, bounded in bytes. */
export class ImageCache {
  private readonly entries = new Map<string, Buffer>()
  private bytes = 0

  constructor(
    readonly maxBytes = 16 * 1024 * 1024,
    readonly maxEntryBytes = 1024 * 1024,
  ) {}

  get(etag: string): Buffer | undefined {
    const hit = this.entries.get(etag)
    if (hit) {
      this.entries.delete(etag)
      this.entries.set(etag, hit)
    }
    return hit
  }

  set(etag: string, image: Buffer): void {
    if (image.length > this.maxEntryBytes || this.entries.has(etag)) return
    this.entries.set(etag, image)
    this.bytes += image.length
    for (const [key, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(key)
      this.bytes -= old.length
    }
  }

  /** Bytes held now. */
  get size(): number {
    return this.bytes
  }
}

/** Code points of a string, counted only as far as needed (a URL may hold megabytes). */
function codePoints(value: string): number {
  // Each code point is one or two UTF-16 units.
  if (value.length > 2 * MAX_SEED_CHARS) return value.length
  return [...value].length
}

/** A string parameter: undefined when absent, a field error when repeated or not a string. */
function text(query: Query, name: string, errors: ValidationErrors): string | undefined {
  const value = query[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string') {
    errors[name] = validationError('validation_invalid_value:string')
    return undefined
  }
  return value
}

/** An integer parameter within bounds; absent or empty gives the default. */
function integer(
  query: Query,
  name: string,
  bounds: { default: number; min: number; max: number },
  errors: ValidationErrors,
): number {
  const raw = text(query, name, errors)
  if (raw === undefined || raw === '') return bounds.default
  if (!/^\d+$/.test(raw)) {
    errors[name] = validationError('validation_invalid_value:integer')
    return bounds.default
  }
  const n = raw.length > 9 ? Number.MAX_SAFE_INTEGER : Number(raw)
  if (n < bounds.min)
    errors[name] = validationError('validation_min_greater_equal_than_required', {
      threshold: bounds.min,
    })
  else if (n > bounds.max)
    errors[name] = validationError('validation_max_less_equal_than_required', {
      threshold: bounds.max,
    })
  return n
}

/** One of `values` (after `normalise`); absent or empty gives the default. */
function oneOf<T extends string>(
  query: Query,
  name: string,
  values: readonly T[],
  fallback: T,
  errors: ValidationErrors,
  normalise: (v: string) => string,
): T {
  const raw = text(query, name, errors)
  if (raw === undefined || raw === '') return fallback
  const value = normalise(raw) as T
  if (values.includes(value)) return value
  errors[name] = validationError('validation_in_invalid', { values })
  return fallback
}
