/**
 * Avatars and QR codes (issue 16 part 3, docs/utils.md) through a real server: images checked
 * with sharp (format, size, pixels), QR codes read back with jsQR, caching headers and 304s,
 * every refused parameter, and the routes gone when the feature is switched off.
 */
import jsQRModule from 'jsqr'
import PocketBase from 'pocketbase'
import sharp from 'sharp'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServer, type TestServer } from './helpers/server.js'

let t: TestServer

beforeAll(async () => {
  t = await startServer()
})
afterAll(() => t.close())

interface Got {
  status: number
  headers: Headers
  bytes: Buffer
  json: any
}

/** GET without a token, the body kept as bytes (and parsed when it is JSON). */
async function get(path: string, headers: Record<string, string> = {}): Promise<Got> {
  const res = await fetch(`${t.url}${path}`, { headers })
  const bytes = Buffer.from(await res.arrayBuffer())
  let json: unknown = null
  if ((res.headers.get('content-type') ?? '').startsWith('application/json'))
    json = JSON.parse(bytes.toString('utf8'))
  return { status: res.status, headers: res.headers, bytes, json }
}

const q = (params: Record<string, string | number>) =>
  new URLSearchParams(
    Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
  ).toString()

/** The RGBA pixels of an image (an SVG rasterised by sharp at its own size). */
async function rgba(image: Buffer) {
  const { data, info } = await sharp(image)
    .ensureAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true })
  return { data: new Uint8ClampedArray(data), width: info.width, height: info.height }
}

/** How many distinct RGBA colours an image has (blank images have one). */
async function colours(image: Buffer): Promise<number> {
  const { data } = await rgba(image)
  const seen = new Set<number>()
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength)
  for (let i = 0; i < data.length; i += 4) seen.add(view.getUint32(i))
  return seen.size
}

/** The QR code read back from an image with jsQR. */
async function decode(image: Buffer) {
  const { data, width, height } = await rgba(image)
  return jsQR(data, width, height)
}

/** jsQR is CommonJS: its function is the module itself at run time, `default` in its types. */
const jsQR = ((jsQRModule as { default?: unknown }).default ??
  jsQRModule) as typeof jsQRModule.default

const MAX = { L: 2953, M: 2331, Q: 1663, H: 1273 } as const

describe('avatars', () => {
  it('draws an identicon SVG by default, public and cacheable', async () => {
    const res = await get(`/api/utils/avatar?seed=alice`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
    expect(res.headers.get('etag')).toMatch(/^"[\w-]{32}"$/)
    expect(res.headers.get('content-security-policy')).toContain("default-src 'none'")
    expect(res.headers.get('x-content-type-options')).toBe('nosniff')
    const svg = res.bytes.toString('utf8')
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www.w3.org\/2000\/svg" width="128" height="128"/)
    expect(svg).not.toContain('<text')
    const meta = await sharp(res.bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['svg', 128, 128])
    expect(await colours(res.bytes)).toBeGreaterThan(1)
  })

  it('draws PNGs of exactly the asked size, deterministic per seed and not blank', async () => {
    for (const size of [16, 128, 1024]) {
      const a = await get(`/api/utils/avatar?${q({ seed: 'alice', size, format: 'png' })}`)
      expect(a.status).toBe(200)
      expect(a.headers.get('content-type')).toBe('image/png')
      const meta = await sharp(a.bytes).metadata()
      expect([meta.format, meta.width, meta.height]).toEqual(['png', size, size])
      expect(await colours(a.bytes)).toBeGreaterThan(1)
      const again = await get(`/api/utils/avatar?${q({ seed: 'alice', size, format: 'png' })}`)
      expect(again.bytes.equals(a.bytes)).toBe(true)
      expect(again.headers.get('etag')).toBe(a.headers.get('etag'))
      const bob = await get(`/api/utils/avatar?${q({ seed: 'bob', size, format: 'png' })}`)
      expect(bob.status).toBe(200)
      expect(bob.bytes.equals(a.bytes)).toBe(false)
      expect(bob.headers.get('etag')).not.toBe(a.headers.get('etag'))
    }
    // Different seeds draw different identicons (not just different bytes of one picture).
    const svgs = new Set<string>()
    for (const seed of ['a', 'b', 'c', 'd', 'e', 'f'])
      svgs.add((await get(`/api/utils/avatar?${q({ seed })}`)).bytes.toString('utf8'))
    expect(svgs.size).toBe(6)
  })

  it('draws initials: text in SVG (Unicode, escaped), pixel glyphs in PNG', async () => {
    const svgOf = async (seed: string) => {
      const res = await get(`/api/utils/avatar?${q({ seed, style: 'initials' })}`)
      expect(res.status, seed).toBe(200)
      // sharp parses it: the SVG is well-formed whatever the seed.
      const meta = await sharp(res.bytes).metadata()
      expect(meta.width).toBe(128)
      return res.bytes.toString('utf8')
    }
    const text = (svg: string) => /<text[^>]*>(.*)<\/text>/.exec(svg)?.[1]
    expect(text(await svgOf('Jean Dupont'))).toBe('JD')
    expect(text(await svgOf('ada lovelace byron'))).toBe('AB')
    expect(text(await svgOf('john.doe@example.com'))).toBe('JD')
    expect(text(await svgOf('émile zola'))).toBe('ÉZ')
    expect(text(await svgOf('Жанна Д’Арк'))).toBe('ЖД')
    expect(text(await svgOf('张 伟'))).toBe('张伟')
    expect(text(await svgOf('👩‍💻 coder'))).toBe('👩‍💻C')
    expect(text(await svgOf('alice'))).toBe('A')
    const hostile = await svgOf(`<script>alert(1)</script> >"&'`)
    expect(text(hostile)).toBe('&lt;&gt;')
    expect(hostile).not.toContain('<script')
    // Nothing drawable: the background alone.
    expect(await svgOf('\u0000 --- ...')).not.toContain('<text')

    const png = await get(
      `/api/utils/avatar?${q({ seed: 'Jean Dupont', style: 'initials', format: 'png', size: 256 })}`,
    )
    expect(png.status).toBe(200)
    const meta = await sharp(png.bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['png', 256, 256])
    expect(await colours(png.bytes)).toBeGreaterThan(1)
    const identicon = await get(
      `/api/utils/avatar?${q({ seed: 'Jean Dupont', format: 'png', size: 256 })}`,
    )
    expect(identicon.bytes.equals(png.bytes)).toBe(false)
    const other = await get(
      `/api/utils/avatar?${q({ seed: 'Ada Lovelace', style: 'initials', format: 'png', size: 256 })}`,
    )
    expect(other.bytes.equals(png.bytes)).toBe(false)
    // The centre holds white glyph pixels and the corner the background colour.
    const { data, width } = await rgba(png.bytes)
    const at = (x: number, y: number) =>
      Array.from(data.slice((y * width + x) * 4, (y * width + x) * 4 + 3))
    expect(at(2, 2)).not.toEqual([255, 255, 255])
    let white = 0
    for (let y = 80; y < 176; y++)
      for (let x = 40; x < 216; x++) if (at(x, y).every((c) => c === 255)) white++
    expect(white).toBeGreaterThan(500)
    // Characters outside the pixel font still draw (a block), never fail.
    for (const seed of ['张 伟', '🎉', 'ß'])
      expect(
        (await get(`/api/utils/avatar?${q({ seed, style: 'initials', format: 'png' })}`)).status,
      ).toBe(200)
  })

  it('answers 304 to If-None-Match with its ETag, with no body', async () => {
    const first = await get(`/api/utils/avatar?${q({ seed: 'carol', format: 'png' })}`)
    const etag = first.headers.get('etag')!
    for (const header of [etag, `W/${etag}`, `"nope", ${etag}`, '*']) {
      const res = await get(`/api/utils/avatar?${q({ seed: 'carol', format: 'png' })}`, {
        'if-none-match': header,
      })
      expect(res.status, header).toBe(304)
      expect(res.bytes.length).toBe(0)
      expect(res.headers.get('etag')).toBe(etag)
    }
    // Same normalised parameters, same tag: defaults spelt out, case of format and style.
    const spelt = await get(
      `/api/utils/avatar?${q({ seed: 'carol', format: 'PNG', size: 128, style: 'Identicon' })}`,
    )
    expect(spelt.headers.get('etag')).toBe(etag)
    const other = await get(`/api/utils/avatar?${q({ seed: 'carol', format: 'png' })}`, {
      'if-none-match': '"something-else"',
    })
    expect(other.status).toBe(200)
    expect(other.bytes.equals(first.bytes)).toBe(true)
  })
})

describe('QR codes', () => {
  it('draws a PNG of exactly the asked size that reads back as the data', async () => {
    for (const [data, size] of [
      ['https://example.com/?a=1&b=2', 256],
      ['héllo wörld, 世界 🎉', 64 * 2],
      ['HELLO WORLD 123', 64],
      ['with\u0000nul\u0000bytes', 300],
    ] as const) {
      const res = await get(`/api/utils/qr?${q({ data, size })}`)
      expect(res.status, data).toBe(200)
      expect(res.headers.get('content-type')).toBe('image/png')
      expect(res.headers.get('cache-control')).toBe('public, max-age=31536000, immutable')
      const meta = await sharp(res.bytes).metadata()
      expect([meta.format, meta.width, meta.height]).toEqual(['png', size, size])
      expect((await decode(res.bytes))?.data, data).toBe(data)
    }
  })

  it('draws an SVG that reads back as the data once rasterised', async () => {
    const data = 'svcbase QR — ünïcödé ✓'
    const res = await get(`/api/utils/qr?${q({ data, format: 'svg', size: 400 })}`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/svg+xml')
    expect(res.headers.get('content-security-policy')).toContain('sandbox')
    const meta = await sharp(res.bytes).metadata()
    expect([meta.format, meta.width, meta.height]).toEqual(['svg', 400, 400])
    expect((await decode(res.bytes))?.data).toBe(data)
    // An SVG has no pixel grid: any size in bounds fits any data.
    const big = await get(
      `/api/utils/qr?${q({ data: 'z'.repeat(MAX.H), format: 'svg', size: 64, ecc: 'H' })}`,
    )
    expect(big.status).toBe(200)
  })

  it('holds up to the byte limit of each ECC level and refuses one byte more, naming it', async () => {
    for (const ecc of ['L', 'M', 'Q', 'H'] as const) {
      // Bytes that no denser mode can take (mixed case and punctuation), exactly at the limit.
      const data = Array.from({ length: MAX[ecc] }, (_, i) => 'aZ!~q'[i % 5]).join('')
      const res = await get(`/api/utils/qr?${q({ data, ecc, size: 1024 })}`)
      expect(res.status, ecc).toBe(200)
      const read = await decode(res.bytes)
      expect(read?.data, ecc).toBe(data)
      expect(read?.version).toBe(40)

      const over = await get(`/api/utils/qr?${q({ data: `${data}x`, ecc, size: 1024 })}`)
      expect(over.status).toBe(400)
      expect(over.json).toEqual({
        code: 400,
        status: 400,
        message: `Invalid QR code parameters: data is at most ${MAX[ecc]} bytes of UTF-8 at error correction level ${ecc}.`,
        data: {
          data: {
            code: 'validation_length_too_long',
            message: `The length must be no more than ${MAX[ecc]}.`,
            params: { max: MAX[ecc] },
          },
        },
      })
    }
    // Far over: the same answer, quickly (the encoder never sees it).
    const huge = await get(`/api/utils/qr?${q({ data: '🎉'.repeat(50_000) })}`)
    expect(huge.status).toBe(400)
    expect(huge.json.message).toBe(
      'Invalid QR code parameters: data is at most 2331 bytes of UTF-8 at error correction level M.',
    )
    // Bytes of UTF-8, not characters: 1165 two-byte letters and one more byte make 2331 (M).
    const unicode = `${'é'.repeat(1165)}a`
    const ok = await get(`/api/utils/qr?${q({ data: unicode, size: 1024 })}`)
    expect(ok.status).toBe(200)
    expect((await decode(ok.bytes))?.data).toBe(unicode)
    const over = await get(`/api/utils/qr?${q({ data: `${unicode}a`, size: 1024 })}`)
    expect(over.status).toBe(400)
    expect(over.json.message).toContain('at most 2331 bytes')
    // SVG near the limit at H reads back too.
    const data = 'Q'.repeat(40) + 'x'.repeat(MAX.H - 40)
    const svg = await get(`/api/utils/qr?${q({ data, ecc: 'H', format: 'svg', size: 1024 })}`)
    expect((await decode(svg.bytes))?.data).toBe(data)
  })

  it('uses the asked ECC level: more correction, a larger code for the same data', async () => {
    const data = 'the same data at every level of error correction'
    const versions: number[] = []
    for (const ecc of ['L', 'M', 'Q', 'H', 'h']) {
      const res = await get(`/api/utils/qr?${q({ data, ecc })}`)
      expect(res.status).toBe(200)
      const read = await decode(res.bytes)
      expect(read?.data).toBe(data)
      versions.push(read!.version)
    }
    // 49 bytes: byte-mode capacities are 53 at 3-L, 62 at 4-M, 60 at 5-Q, 58 at 6-H (ISO 18004).
    expect(versions).toEqual([3, 4, 5, 6, 6])
  })

  it('refuses a PNG smaller than the code, naming the smallest size', async () => {
    const data = 'x'.repeat(MAX.M)
    const res = await get(`/api/utils/qr?${q({ data, size: 100 })}`)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      code: 400,
      status: 400,
      message:
        'Invalid QR code parameters: this code is 185 modules wide with its margin, so a PNG needs a size of at least 185.',
      data: {
        size: {
          code: 'validation_min_greater_equal_than_required',
          message: 'Must be no less than 185.',
          params: { threshold: 185 },
        },
      },
    })
    expect(res.headers.get('etag')).toBeNull()
    expect(res.headers.get('cache-control') ?? '').not.toContain('immutable')
    // A tag guessed for those parameters does not turn the refusal into a 304.
    const ok = await get(`/api/utils/qr?${q({ data, size: 185 })}`)
    expect(ok.status).toBe(200)
    expect((await decode(ok.bytes))?.data).toBe(data)
  })

  it('answers 304 to If-None-Match, and is public even with a bad token', async () => {
    const path = `/api/utils/qr?${q({ data: 'cache me' })}`
    const first = await get(path, { authorization: 'Bearer not-a-token' })
    expect(first.status).toBe(200)
    const res = await get(path, { 'if-none-match': first.headers.get('etag')! })
    expect(res.status).toBe(304)
    expect(res.bytes.length).toBe(0)
    const asSu = await get(path, { authorization: `Bearer ${t.suToken}` })
    expect(asSu.bytes.equals(first.bytes)).toBe(true)
    // HEAD answers the same headers.
    const head = await fetch(`${t.url}${path}`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.headers.get('etag')).toBe(first.headers.get('etag'))
  })
})

describe('refused parameters', () => {
  /** A row with a test title that stays readable for long queries. */
  type Row = [query: string, data: Record<string, unknown>]
  const short = ([query, data]: Row): [string, string, Record<string, unknown>] => [
    query.length > 60 ? `${query.slice(0, 40)}…(${query.length} chars)` : query,
    query,
    data,
  ]
  const field = (code: string, message: string, params?: Record<string, unknown>) =>
    params ? { code, message, params } : { code, message }

  it.each(
    (
      [
        ['', { seed: field('validation_required', 'Cannot be blank.') }],
        ['seed=', { seed: field('validation_required', 'Cannot be blank.') }],
        ['seed[]=a', { seed: field('validation_required', 'Cannot be blank.') }],
        [
          `seed=${'a'.repeat(257)}`,
          {
            seed: field('validation_length_too_long', 'The length must be no more than 256.', {
              max: 256,
            }),
          },
        ],
        [
          `seed=${'🎉'.repeat(257)}`,
          {
            seed: field('validation_length_too_long', 'The length must be no more than 256.', {
              max: 256,
            }),
          },
        ],
        [
          `seed=${'x'.repeat(200_000)}`,
          {
            seed: field('validation_length_too_long', 'The length must be no more than 256.', {
              max: 256,
            }),
          },
        ],
        ['seed=a&seed=b', { seed: field('validation_invalid_value', 'Must be a string.') }],
        ['seed=a&size=abc', { size: field('validation_invalid_value', 'Must be an integer.') }],
        ['seed=a&size=12.5', { size: field('validation_invalid_value', 'Must be an integer.') }],
        ['seed=a&size=-20', { size: field('validation_invalid_value', 'Must be an integer.') }],
        ['seed=a&size=1e3', { size: field('validation_invalid_value', 'Must be an integer.') }],
        ['seed=a&size=%00', { size: field('validation_invalid_value', 'Must be an integer.') }],
        ['seed=a&size=1&size=2', { size: field('validation_invalid_value', 'Must be a string.') }],
        [
          'seed=a&size=15',
          {
            size: field('validation_min_greater_equal_than_required', 'Must be no less than 16.', {
              threshold: 16,
            }),
          },
        ],
        [
          'seed=a&size=1025',
          {
            size: field(
              'validation_max_less_equal_than_required',
              'Must be no greater than 1024.',
              {
                threshold: 1024,
              },
            ),
          },
        ],
        [
          'seed=a&size=99999999999999999999999',
          {
            size: field(
              'validation_max_less_equal_than_required',
              'Must be no greater than 1024.',
              {
                threshold: 1024,
              },
            ),
          },
        ],
        [
          'seed=a&format=gif',
          {
            format: field('validation_in_invalid', 'Must be a valid value.', {
              values: ['svg', 'png'],
            }),
          },
        ],
        [
          'seed=a&style=robot',
          {
            style: field('validation_in_invalid', 'Must be a valid value.', {
              values: ['identicon', 'initials'],
            }),
          },
        ],
        [
          'size=0&format=jpg',
          {
            seed: field('validation_required', 'Cannot be blank.'),
            size: field('validation_min_greater_equal_than_required', 'Must be no less than 16.', {
              threshold: 16,
            }),
            format: field('validation_in_invalid', 'Must be a valid value.', {
              values: ['svg', 'png'],
            }),
          },
        ],
      ] as Row[]
    ).map(short),
  )('avatar ?%s: 400 naming the field', async (_label, query, data) => {
    const res = await get(`/api/utils/avatar?${query}`)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      code: 400,
      status: 400,
      message: 'Invalid avatar parameters.',
      data,
    })
  })

  it.each(
    (
      [
        ['', { data: field('validation_required', 'Cannot be blank.') }],
        ['data=', { data: field('validation_required', 'Cannot be blank.') }],
        ['data=a&data=b', { data: field('validation_invalid_value', 'Must be a string.') }],
        [
          'data=a&size=63',
          {
            size: field('validation_min_greater_equal_than_required', 'Must be no less than 64.', {
              threshold: 64,
            }),
          },
        ],
        [
          'data=a&size=2049',
          {
            size: field(
              'validation_max_less_equal_than_required',
              'Must be no greater than 2048.',
              {
                threshold: 2048,
              },
            ),
          },
        ],
        ['data=a&size=0x40', { size: field('validation_invalid_value', 'Must be an integer.') }],
        [
          'data=a&format=jpg',
          {
            format: field('validation_in_invalid', 'Must be a valid value.', {
              values: ['svg', 'png'],
            }),
          },
        ],
        [
          'data=a&ecc=X',
          {
            ecc: field('validation_in_invalid', 'Must be a valid value.', {
              values: ['L', 'M', 'Q', 'H'],
            }),
          },
        ],
        ['data=a&ecc=M&ecc=H', { ecc: field('validation_invalid_value', 'Must be a string.') }],
        [
          // Too long for every level and a bad level: both named, the limit checked is L's (the largest).
          `data=${'x'.repeat(10_000)}&ecc=Z`,
          {
            data: field('validation_length_too_long', 'The length must be no more than 2953.', {
              max: 2953,
            }),
            ecc: field('validation_in_invalid', 'Must be a valid value.', {
              values: ['L', 'M', 'Q', 'H'],
            }),
          },
        ],
      ] as Row[]
    ).map(short),
  )('qr ?%s: 400 naming the field', async (_label, query, data) => {
    const res = await get(`/api/utils/qr?${query}`)
    expect(res.status).toBe(400)
    expect(res.json).toEqual({
      code: 400,
      status: 400,
      message: 'Invalid QR code parameters.',
      data,
    })
  })

  it('takes the edges of every bound, and ignores unknown parameters', async () => {
    for (const path of [
      `/api/utils/avatar?seed=${'a'.repeat(256)}`,
      `/api/utils/avatar?seed=${'🎉'.repeat(256)}`,
      '/api/utils/avatar?seed=a&size=16&format=png',
      '/api/utils/avatar?seed=a&size=1024&format=png',
      '/api/utils/avatar?seed=a&size=&format=&style=',
      '/api/utils/avatar?seed=a&v=2&utm_source=x',
      '/api/utils/qr?data=a&size=64',
      '/api/utils/qr?data=a&size=2048',
      '/api/utils/qr?data=a&size=2048&format=svg',
      '/api/utils/qr?data=%F0%9F%8E%89&size=&format=&ecc=',
      '/api/utils/avatar?seed=%FF%FE',
      '/api/utils/qr?data=%FF%FE%00',
    ]) {
      const res = await get(path)
      expect(res.status, path).toBe(200)
    }
    const a = await get('/api/utils/avatar?seed=a&v=2')
    const b = await get('/api/utils/avatar?seed=a')
    expect(a.headers.get('etag')).toBe(b.headers.get('etag'))
  })

  it('has no other paths under /api/utils', async () => {
    expect((await get('/api/utils/other')).status).toBe(404)
    expect((await get('/api/utils')).status).toBe(404)
  })
})

describe('with the pocketbase SDK', () => {
  it('builds the image URLs with pb.buildURL, as docs/utils.md shows', async () => {
    const pb = new PocketBase(t.url)
    const user = await pb.collection('users').create({
      email: 'sdk-avatar@example.com',
      password: 'password123',
      passwordConfirm: 'password123',
    })
    const avatar = `${pb.buildURL('/api/utils/avatar')}?${q({ seed: user.id, size: 64, format: 'png' })}`
    const res = await fetch(avatar)
    expect(res.status).toBe(200)
    const meta = await sharp(Buffer.from(await res.arrayBuffer())).metadata()
    expect([meta.format, meta.width]).toEqual(['png', 64])
    const link = `https://example.com/u/${user.id}`
    const qr = await fetch(`${pb.buildURL('/api/utils/qr')}?${q({ data: link })}`)
    expect((await decode(Buffer.from(await qr.arrayBuffer())))?.data).toBe(link)
  })
})

describe('rate limits', () => {
  it('the routes carry the tag `utils`: a `*:utils` rule limits each of them and nothing else', async () => {
    const limited = await startServer()
    try {
      const res = await limited.api('PATCH', '/api/settings', {
        token: limited.suToken,
        body: {
          rateLimits: {
            enabled: true,
            excludedIPs: [],
            rules: [
              { label: '*:utils', audience: '', duration: 60, maxRequests: 2 },
              { label: '/api/', audience: '', duration: 60, maxRequests: 100 },
            ],
          },
        },
      })
      expect(res.status).toBe(200)
      // Counted per route, as every tag rule is: the avatar's third request is refused, the QR
      // code keeps its own count.
      const statuses: number[] = []
      for (const path of [
        '/api/utils/avatar?seed=a',
        '/api/utils/avatar?seed=b',
        '/api/utils/avatar?seed=c',
        '/api/utils/qr?data=a',
      ])
        statuses.push((await limited.api('GET', path)).status)
      expect(statuses).toEqual([200, 200, 429, 200])
      expect((await limited.api('GET', '/api/health')).status).toBe(200)
    } finally {
      await limited.close()
    }
  })
})

describe('switched off', () => {
  it("disable: ['utils'] removes both routes", async () => {
    const off = await startServer({ disable: ['utils'] })
    try {
      for (const path of ['/api/utils/avatar?seed=a', '/api/utils/qr?data=a']) {
        const res = await off.api('GET', path)
        expect(res.status, path).toBe(404)
        expect(res.body).toMatchObject({ code: 404 })
      }
      expect((await off.api('GET', '/api/health')).status).toBe(200)
    } finally {
      await off.close()
    }
  })
})
