/**
 * Image thumbnails for file downloads (`?thumb=WxH`): size parsing, generation with sharp and a
 * small single-flight concurrency limiter. Pure: no store, core or http imports.
 */
import { availableParallelism } from 'node:os'
import type { Readable } from 'node:stream'
import { createRequire } from 'node:module'
import type SharpModule from 'sharp'
import type { FormatEnum, Sharp } from 'sharp'

/** How a thumb fits its box: fill and crop (`center`, `top`, `bottom`) or fit inside (`fit`). */
export type ThumbMode = 'center' | 'top' | 'bottom' | 'fit'

/** A parsed thumb size; a zero `width` or `height` means "scale to the other side". */
export interface ThumbSize {
  width: number
  height: number
  mode: ThumbMode
}

/** A generated thumb and the content type of its encoding. */
export interface Thumb {
  data: Buffer
  contentType: string
}

/** Options for {@link generateThumb}. */
export interface GenerateThumbOptions {
  /** Refuse sources with more pixels than this (decompression bombs); default 100 megapixels. */
  maxInputPixels?: number
}

/** Largest accepted thumb side, in pixels, for both the requested and the computed side. */
export const MAX_THUMB_SIDE = 10_000

/** Default source pixel limit of {@link generateThumb}: 100 megapixels. */
export const DEFAULT_MAX_INPUT_PIXELS = 100_000_000

/** Source content types that get thumbs; anything else is served as the original file. */
export const THUMBABLE_TYPES: readonly string[] = Object.freeze([
  'image/png',
  'image/jpg',
  'image/jpeg',
  'image/gif',
  'image/webp',
])

const SIZE_RE = /^(\d+)x(\d+)(t|b|f)?$/
const MODES: Record<string, ThumbMode> = { t: 'top', b: 'bottom', f: 'fit' }

/** Source formats that are encoded back to themselves; every other source becomes PNG. */
const KEPT_FORMATS = new Set<keyof FormatEnum>(['jpeg', 'gif', 'tiff'])

/** Decoders we accept; NB: sharp also reads SVG, PDF, HEIF… which a thumb never should. */
const SOURCE_FORMATS = new Set<keyof FormatEnum>(['jpeg', 'png', 'gif', 'webp', 'tiff'])

const CONTENT_TYPES: Partial<Record<keyof FormatEnum, string>> = {
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  tiff: 'image/tiff',
  png: 'image/png',
}

/** sharp (libvips), loaded on the first thumbnail: an app that never makes one never pays for it. */
let sharpModule: typeof SharpModule | null = null
function loadSharp(): typeof SharpModule {
  sharpModule ??= createRequire(import.meta.url)('sharp') as typeof SharpModule
  return sharpModule
}

/**
 * Parses a thumb size such as `100x100`, `200x0`, `0x300`, `100x50t`, `100x50b` or `100x50f`.
 * Returns `null` for anything else, for `0x0…` and for sides above {@link MAX_THUMB_SIDE}.
 */
export function parseThumbSize(size: string): ThumbSize | null {
  const m = SIZE_RE.exec(size)
  if (!m) return null
  const width = Number(m[1])
  const height = Number(m[2])
  if (width === 0 && height === 0) return null
  if (width > MAX_THUMB_SIDE || height > MAX_THUMB_SIDE) return null
  return { width, height, mode: MODES[m[3] ?? ''] ?? 'center' }
}

/** Reports whether a file of this content type gets thumbs (parameters like `; charset` ignored). */
export function isThumbable(contentType: string): boolean {
  const base = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? ''
  return THUMBABLE_TYPES.includes(base)
}

/**
 * Generates a thumb the way PocketBase does: `WxH` fills the box and crops from the centre (`t`
 * top, `b` bottom), `WxHf` fits inside without cropping or enlarging, `0xH`/`Wx0` scale to one
 * side keeping the aspect ratio. Fill and one-side modes enlarge small sources. EXIF orientation
 * is applied and animated sources use their first frame. JPEG, GIF and TIFF sources keep their
 * format; everything else (PNG, WebP) is encoded as PNG. Rejects corrupt or unsupported input,
 * sources above `maxInputPixels`, and results with a side above {@link MAX_THUMB_SIDE}.
 */
export async function generateThumb(
  input: Readable | Buffer,
  size: ThumbSize,
  options: GenerateThumbOptions = {},
): Promise<Thumb> {
  if (size.width === 0 && size.height === 0) throw new RangeError('thumb size 0x0 is not allowed')
  const source = Buffer.isBuffer(input) ? input : await readAll(input)
  const image = loadSharp()(source, {
    limitInputPixels: options.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS,
    animated: false,
  })
  const meta = await image.metadata()
  if (!SOURCE_FORMATS.has(meta.format)) {
    throw new Error(`unsupported thumb source format: ${meta.format}`)
  }
  checkScaledSide(meta.autoOrient.width, meta.autoOrient.height, size)

  resize(image.rotate(), size, meta.autoOrient.width, meta.autoOrient.height)
  const format = KEPT_FORMATS.has(meta.format) ? meta.format : 'png'
  encode(image, format)
  const data = await image.toBuffer()
  return { data, contentType: CONTENT_TYPES[format] ?? 'image/png' }
}

/** Refuses a one-side resize whose computed side would be absurd (e.g. `0x10000` of a strip). */
function checkScaledSide(srcWidth: number, srcHeight: number, size: ThumbSize): void {
  let other = 0
  if (size.width === 0) other = Math.round((srcWidth * size.height) / srcHeight)
  else if (size.height === 0) other = Math.round((srcHeight * size.width) / srcWidth)
  if (other > MAX_THUMB_SIDE) {
    throw new RangeError(`thumb side ${other}px exceeds ${MAX_THUMB_SIDE}px`)
  }
}

function resize(image: Sharp, size: ThumbSize, srcWidth: number, srcHeight: number): void {
  if (size.width === 0) {
    image.resize({ height: size.height })
  } else if (size.height === 0) {
    image.resize({ width: size.width })
  } else if (size.mode === 'fit') {
    // PocketBase's imaging.Fit: a source inside the box is kept; else the side that binds is the
    // box's and the other is truncated (Go's int()), not rounded as sharp's `inside` would.
    if (srcWidth <= size.width && srcHeight <= size.height) return
    const aspect = srcWidth / srcHeight
    const wide = aspect > size.width / size.height
    const width = wide ? size.width : Math.max(1, Math.trunc(size.height * aspect))
    const height = wide ? Math.max(1, Math.trunc(size.width / aspect)) : size.height
    image.resize(width, height, { fit: 'fill' })
  } else {
    image.resize(size.width, size.height, { fit: 'cover', position: size.mode })
  }
}

function encode(image: Sharp, format: keyof FormatEnum): void {
  if (format === 'jpeg')
    image.jpeg({ quality: 95 }) // PocketBase's imaging default
  else if (format === 'gif') image.gif()
  else if (format === 'tiff') image.tiff()
  else image.png()
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  }
  return Buffer.concat(chunks)
}

/**
 * Runs thumb producers with single-flight per key and a concurrency cap: concurrent `get()`
 * calls for the same key share one in-flight promise, and at most `maxConcurrent` producers
 * run at once while the rest wait in FIFO order. A settled key is forgotten, so a failed
 * producer is retried by the next call (caching finished thumbs is the caller's job).
 */
export class ThumbGenerator<T = Thumb> {
  readonly #max: number
  readonly #inFlight = new Map<string, Promise<T>>()
  readonly #waiting: (() => void)[] = []
  #running = 0

  /** Creates a generator running at most `maxConcurrent` producers (default: CPU count). */
  constructor(maxConcurrent: number = availableParallelism()) {
    if (!Number.isInteger(maxConcurrent) || maxConcurrent < 1) {
      throw new RangeError(`maxConcurrent must be a positive integer, got ${maxConcurrent}`)
    }
    this.#max = maxConcurrent
  }

  /** Number of producers running now. */
  get running(): number {
    return this.#running
  }

  /** Number of producers waiting for a free slot. */
  get waiting(): number {
    return this.#waiting.length
  }

  /** Returns the in-flight result for `key`, or starts `produce` once a slot is free. */
  get(key: string, produce: () => Promise<T>): Promise<T> {
    const existing = this.#inFlight.get(key)
    if (existing) return existing
    const promise = this.#run(produce).finally(() => this.#inFlight.delete(key))
    this.#inFlight.set(key, promise)
    return promise
  }

  async #run(produce: () => Promise<T>): Promise<T> {
    if (this.#running >= this.#max) {
      await new Promise<void>((resolve) => this.#waiting.push(resolve))
    } else {
      this.#running++
    }
    try {
      return await produce()
    } finally {
      const next = this.#waiting.shift()
      // Hand the slot straight to the next waiter so a newcomer cannot jump the queue.
      if (next) next()
      else this.#running--
    }
  }
}
