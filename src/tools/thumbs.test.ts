import { Readable } from 'node:stream'
import { crc32, deflateSync } from 'node:zlib'
import sharp from 'sharp'
import type { Sharp } from 'sharp'
import { beforeAll, describe, expect, it } from 'vitest'
import {
  generateThumb,
  isThumbable,
  parseThumbSize,
  ThumbGenerator,
  THUMBABLE_TYPES,
  type ThumbSize,
} from './thumbs.js'

type Rgb = [number, number, number]
const RED: Rgb = [255, 0, 0]
const GREEN: Rgb = [0, 255, 0]
const BLUE: Rgb = [0, 0, 255]

/** Raw RGB pixels of a `width`×`height` image made of horizontal bands, top to bottom. */
function bandsRaw(width: number, bands: [Rgb, number][]): { raw: Buffer; height: number } {
  const height = bands.reduce((sum, [, rows]) => sum + rows, 0)
  const raw = Buffer.alloc(width * height * 3)
  let y = 0
  for (const [rgb, rows] of bands) {
    for (let end = y + rows; y < end; y++) {
      for (let x = 0; x < width; x++) raw.set(rgb, (y * width + x) * 3)
    }
  }
  return { raw, height }
}

/** 400x200: rows 0–49 red, 50–149 green, 150–199 blue. */
function bands(): Sharp {
  const { raw, height } = bandsRaw(400, [
    [RED, 50],
    [GREEN, 100],
    [BLUE, 50],
  ])
  return sharp(raw, { raw: { width: 400, height, channels: 3 } })
}

/** Two-frame 100x50 animation: a red frame then a blue one. */
function twoFrames(): Sharp {
  const { raw, height } = bandsRaw(100, [
    [RED, 50],
    [BLUE, 50],
  ])
  return sharp(raw, { raw: { width: 100, height, channels: 3, pageHeight: 50 } })
}

/** Names the dominant channel of a pixel of an encoded image (robust to JPEG noise). */
async function colourAt(data: Buffer, x: number, y: number): Promise<string> {
  const { data: raw, info } = await sharp(data)
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  const i = (y * info.width + x) * info.channels
  const rgb = [raw[i]!, raw[i + 1]!, raw[i + 2]!]
  const max = Math.max(...rgb)
  return ['red', 'green', 'blue'][rgb.indexOf(max)]!
}

/** A PNG whose header claims `width`×`height` pixels but whose data is a few bytes. */
function pngBomb(width: number, height: number): Buffer {
  const chunk = (type: string, body: Buffer): Buffer => {
    const head = Buffer.alloc(4)
    head.writeUInt32BE(body.length)
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), body])
    const crc = Buffer.alloc(4)
    crc.writeUInt32BE(crc32(typed))
    return Buffer.concat([head, typed, crc])
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr.set([8, 2, 0, 0, 0], 8) // 8-bit RGB, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ])
}

type Source =
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'webp'
  | 'tiff'
  | 'animatedGif'
  | 'animatedWebp'
  | 'exifJpeg'
  | 'exifPng'
  | 'strip'

/** Encoded sources, filled once in `beforeAll`. */
const src = {} as Record<Source, Buffer>

beforeAll(async () => {
  src.png = await bands().png().toBuffer()
  src.jpeg = await bands().jpeg({ quality: 95 }).toBuffer()
  src.gif = await bands().gif().toBuffer()
  src.webp = await bands().webp({ lossless: true }).toBuffer()
  src.tiff = await bands().tiff().toBuffer()
  src.animatedGif = await twoFrames().gif().toBuffer()
  src.animatedWebp = await twoFrames().webp({ lossless: true }).toBuffer()
  // Orientation 6: stored 400x200, displayed rotated 90° clockwise as 200x400.
  src.exifJpeg = await bands().jpeg().withMetadata({ orientation: 6 }).toBuffer()
  src.exifPng = await bands().png().withMetadata({ orientation: 6 }).toBuffer()
  src.strip = await sharp({
    create: { width: 1000, height: 10, channels: 3, background: '#888' },
  })
    .png()
    .toBuffer()
})

describe('parseThumbSize', () => {
  const valid: [string, ThumbSize][] = [
    ['100x100', { width: 100, height: 100, mode: 'center' }],
    ['100x50t', { width: 100, height: 50, mode: 'top' }],
    ['100x50b', { width: 100, height: 50, mode: 'bottom' }],
    ['100x50f', { width: 100, height: 50, mode: 'fit' }],
    ['0x300', { width: 0, height: 300, mode: 'center' }],
    ['200x0', { width: 200, height: 0, mode: 'center' }],
    ['0x300f', { width: 0, height: 300, mode: 'fit' }],
    ['1x1', { width: 1, height: 1, mode: 'center' }],
    ['010x020', { width: 10, height: 20, mode: 'center' }],
    ['10000x10000', { width: 10000, height: 10000, mode: 'center' }],
  ]
  it.each(valid)('%s', (size, expected) => {
    expect(parseThumbSize(size)).toEqual(expected)
  })

  const invalid = [
    '',
    '0x0',
    '0x0t',
    '0x0b',
    '0x0f',
    '00x000',
    '100',
    'x100',
    '100x',
    '100X100',
    '100*100',
    '100x100c',
    '100x100tt',
    '100x100T',
    ' 100x100',
    '100x100 ',
    '100x100\n',
    '-1x100',
    '1.5x100',
    '10001x1',
    '1x10001',
    '99999999999999999999x1',
    '１00x100', // full-width digit
  ]
  it.each(invalid)('rejects %j', (size) => {
    expect(parseThumbSize(size)).toBeNull()
  })
})

describe('isThumbable', () => {
  const cases: [string, boolean][] = [
    ...THUMBABLE_TYPES.map((t): [string, boolean] => [t, true]),
    ['IMAGE/PNG', true],
    ['image/jpeg; charset=binary', true],
    ['image/svg+xml', false],
    ['image/tiff', false],
    ['image/bmp', false],
    ['image/heic', false],
    ['application/pdf', false],
    ['text/plain', false],
    ['', false],
  ]
  it.each(cases)('%j → %s', (type, expected) => {
    expect(isThumbable(type)).toBe(expected)
  })

  it('lists exactly the PocketBase types', () => {
    expect([...THUMBABLE_TYPES].sort()).toEqual([
      'image/gif',
      'image/jpeg',
      'image/jpg',
      'image/png',
      'image/webp',
    ])
  })
})

describe('generateThumb sizes (400x200 PNG source)', () => {
  const cases: [string, number, number][] = [
    ['100x100', 100, 100],
    ['100x100t', 100, 100],
    ['100x100b', 100, 100],
    ['100x100f', 100, 50],
    ['100x200f', 100, 50],
    ['300x100f', 200, 100],
    ['1000x1000f', 400, 200], // fit never enlarges
    ['99x99f', 99, 49], // the other side truncated, as PocketBase's imaging.Fit (not 50)
    ['33x100f', 33, 16],
    ['400x200f', 400, 200],
    ['0x100', 200, 100],
    ['100x0', 100, 50],
    ['0x400', 800, 400], // one-side resizes enlarge
    ['800x0', 800, 400],
    ['0x100f', 200, 100],
    ['800x800', 800, 800], // fill enlarges to the exact box
    ['30x300b', 30, 300],
    ['1x1', 1, 1],
  ]
  it.each(cases)('%s → %ix%i', async (size, width, height) => {
    const thumb = await generateThumb(src.png, parseThumbSize(size)!)
    const meta = await sharp(thumb.data).metadata()
    expect([meta.width, meta.height, meta.format]).toEqual([width, height, 'png'])
    expect(thumb.contentType).toBe('image/png')
  })
})

describe('generateThumb output format', () => {
  const cases: { source: Source; format: string; contentType: string }[] = [
    { source: 'png', format: 'png', contentType: 'image/png' },
    { source: 'jpeg', format: 'jpeg', contentType: 'image/jpeg' },
    { source: 'gif', format: 'gif', contentType: 'image/gif' },
    { source: 'webp', format: 'png', contentType: 'image/png' },
    { source: 'tiff', format: 'tiff', contentType: 'image/tiff' },
  ]
  for (const size of ['60x40', '60x40t', '60x40b', '60x40f', '0x40', '60x0']) {
    it.each(cases)(`$source → $format (${size})`, async ({ source, format, contentType }) => {
      const parsed = parseThumbSize(size)!
      const thumb = await generateThumb(src[source], parsed)
      const meta = await sharp(thumb.data).metadata()
      expect(thumb.contentType).toBe(contentType)
      expect(meta.format).toBe(format)
      const expected = { '60x40f': [60, 30], '0x40': [80, 40], '60x0': [60, 30] }[size] ?? [60, 40]
      expect([meta.width, meta.height]).toEqual(expected)
    })
  }
})

describe('generateThumb crop gravity', () => {
  // 400x200 → 200x50 scales to 200x100 and keeps 50 of its rows.
  const cases: { size: string; top: string; bottom: string }[] = [
    { size: '200x50', top: 'green', bottom: 'green' },
    { size: '200x50t', top: 'red', bottom: 'green' },
    { size: '200x50b', top: 'green', bottom: 'blue' },
    { size: '200x50f', top: 'red', bottom: 'blue' }, // fit: 100x50, nothing cropped
  ]
  for (const source of ['png', 'jpeg', 'webp'] as const) {
    it.each(cases)(`${source} $size: top $top, bottom $bottom`, async ({ size, top, bottom }) => {
      const thumb = await generateThumb(src[source], parseThumbSize(size)!)
      const meta = await sharp(thumb.data).metadata()
      expect(await colourAt(thumb.data, meta.width >> 1, 2)).toBe(top)
      expect(await colourAt(thumb.data, meta.width >> 1, meta.height - 3)).toBe(bottom)
    })
  }
})

describe('generateThumb sources', () => {
  it.each(['exifJpeg', 'exifPng'] as const)('%s applies EXIF orientation', async (source) => {
    expect((await sharp(src[source]).metadata()).orientation).toBe(6)
    const thumb = await generateThumb(src[source], parseThumbSize('0x100')!)
    const meta = await sharp(thumb.data).metadata()
    expect([meta.width, meta.height]).toEqual([50, 100])
    expect(meta.orientation).toBeUndefined()
    // Rotated clockwise, the red top band becomes the right edge.
    expect(await colourAt(thumb.data, 47, 50)).toBe('red')
    expect(await colourAt(thumb.data, 2, 50)).toBe('blue')
  })

  const animated: { source: Source; format: string }[] = [
    { source: 'animatedGif', format: 'gif' },
    { source: 'animatedWebp', format: 'png' },
  ]
  it.each(animated)('$source keeps only the first frame as $format', async ({ source, format }) => {
    expect((await sharp(src[source]).metadata()).pages).toBe(2)
    const thumb = await generateThumb(src[source], parseThumbSize('50x50')!)
    const meta = await sharp(thumb.data, { animated: true }).metadata()
    expect([meta.format, meta.width, meta.height, meta.pages ?? 1]).toEqual([format, 50, 50, 1])
    expect(await colourAt(thumb.data, 25, 25)).toBe('red')
  })

  it('reads a stream', async () => {
    const half = src.png.length >> 1
    const stream = Readable.from([src.png.subarray(0, half), src.png.subarray(half)])
    const thumb = await generateThumb(stream, parseThumbSize('100x100')!)
    const meta = await sharp(thumb.data).metadata()
    expect([meta.width, meta.height, meta.format]).toEqual([100, 100, 'png'])
  })
})

describe('generateThumb failures', () => {
  const size = parseThumbSize('100x100')!
  const cases: { name: string; input: () => Buffer | Readable; size?: string; error: RegExp }[] = [
    {
      name: 'not an image',
      input: () => Buffer.from('definitely not an image'),
      error: /unsupported image format/,
    },
    { name: 'empty input', input: () => Buffer.alloc(0), error: /Input Buffer is empty/ },
    {
      name: 'truncated PNG',
      input: () => src.png.subarray(0, src.png.length >> 1),
      error: /libpng read error/,
    },
    {
      name: 'decompression bomb (30000x30000 header)',
      input: () => pngBomb(30_000, 30_000),
      error: /pixel limit/,
    },
    {
      name: 'SVG is not a thumb source',
      input: () =>
        Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>'),
      error: /unsupported thumb source format: svg/,
    },
    {
      name: 'computed side too large (1000x10 at 0x1000)',
      input: () => src.strip,
      size: '0x1000',
      error: /100000px exceeds 10000px/,
    },
    {
      name: 'failing stream',
      input: () =>
        new Readable({
          read() {
            this.destroy(new Error('disk gone'))
          },
        }),
      error: /disk gone/,
    },
  ]
  it.each(cases)('$name rejects', async ({ input, size: s, error }) => {
    await expect(generateThumb(input(), s ? parseThumbSize(s)! : size)).rejects.toThrow(error)
  })

  it('maxInputPixels refuses a source above the limit', async () => {
    await expect(generateThumb(src.png, size, { maxInputPixels: 79_999 })).rejects.toThrow(
      /pixel limit/,
    )
    const thumb = await generateThumb(src.png, size, { maxInputPixels: 80_000 })
    expect((await sharp(thumb.data).metadata()).width).toBe(100)
  })

  it('refuses a 0x0 size built by hand', async () => {
    await expect(generateThumb(src.png, { width: 0, height: 0, mode: 'center' })).rejects.toThrow(
      RangeError,
    )
  })
})

/** A promise with its resolve/reject exposed. */
function deferred<T>(): {
  promise: Promise<T>
  resolve: (v: T) => void
  reject: (e: Error) => void
} {
  let resolve!: (v: T) => void
  let reject!: (e: Error) => void
  const promise = new Promise<T>((res, rej) => {
    resolve = res
    reject = rej
  })
  return { promise, resolve, reject }
}

const tick = (): Promise<void> => new Promise((r) => setImmediate(r))

describe('ThumbGenerator', () => {
  it('shares one in-flight producer among concurrent calls for the same key', async () => {
    const gen = new ThumbGenerator<{ n: number }>(2)
    const gate = deferred<{ n: number }>()
    let calls = 0
    const produce = (): Promise<{ n: number }> => {
      calls++
      return gate.promise
    }
    const results = Array.from({ length: 10 }, () => gen.get('a/100x100', produce))
    await tick()
    expect(calls).toBe(1)
    gate.resolve({ n: 1 })
    const settled = await Promise.all(results)
    expect(calls).toBe(1)
    for (const r of settled) expect(r).toBe(settled[0])

    // Once settled the key is forgotten: a later call produces again.
    await gen.get('a/100x100', async () => {
      calls++
      return { n: 2 }
    })
    expect(calls).toBe(2)
  })

  it('shares a failure, then retries on the next call', async () => {
    const gen = new ThumbGenerator<string>(1)
    let calls = 0
    const failing = async (): Promise<string> => {
      calls++
      await tick()
      throw new Error('boom')
    }
    const all = await Promise.allSettled([gen.get('k', failing), gen.get('k', failing)])
    expect(all.map((r) => r.status)).toEqual(['rejected', 'rejected'])
    expect(calls).toBe(1)
    expect(await gen.get('k', async () => 'ok')).toBe('ok')
    expect([gen.running, gen.waiting]).toEqual([0, 0])
  })

  it('turns a synchronous throw into a rejection and frees the slot', async () => {
    const gen = new ThumbGenerator<string>(1)
    const bad = (): Promise<string> => {
      throw new Error('sync')
    }
    await expect(gen.get('x', bad)).rejects.toThrow('sync')
    expect(await gen.get('y', async () => 'free')).toBe('free')
  })

  it.each([1, 3, 4])('runs at most %i producers at once, in FIFO order', async (max) => {
    const gen = new ThumbGenerator<number>(max)
    let active = 0
    let peak = 0
    const started: number[] = []
    const gates = Array.from({ length: 10 }, () => deferred<void>())
    const results = gates.map((gate, i) =>
      gen.get(`k${i}`, async () => {
        started.push(i)
        active++
        peak = Math.max(peak, active)
        await gate.promise
        active--
        return i
      }),
    )
    await tick()
    expect([gen.running, gen.waiting]).toEqual([max, 10 - max])
    // Release in reverse order so FIFO is judged by start order, not by finish order.
    for (let i = gates.length - 1; i >= 0; i--) {
      gates[i]!.resolve()
      await tick()
    }
    expect(await Promise.all(results)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect(peak).toBe(max)
    expect(started).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9])
    expect([gen.running, gen.waiting]).toEqual([0, 0])
  })

  it('limits real thumb generation too', async () => {
    const gen = new ThumbGenerator(2)
    let active = 0
    let peak = 0
    const sizes = ['10x10', '20x20', '30x30', '40x40', '50x50', '60x60']
    const thumbs = await Promise.all(
      sizes.map((s) =>
        gen.get(s, async () => {
          active++
          peak = Math.max(peak, active)
          try {
            return await generateThumb(src.png, parseThumbSize(s)!)
          } finally {
            active--
          }
        }),
      ),
    )
    expect(peak).toBeLessThanOrEqual(2)
    const widths = await Promise.all(
      thumbs.map(async (t) => (await sharp(t.data).metadata()).width),
    )
    expect(widths).toEqual([10, 20, 30, 40, 50, 60])
  })

  it('defaults to a positive limit and rejects invalid ones', () => {
    expect(() => new ThumbGenerator()).not.toThrow()
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => new ThumbGenerator(bad)).toThrow(RangeError)
    }
  })
})
