/**
 * Thumbnail scenarios: 1000x800 JPEGs uploaded to `images`, then thumbnails requested once each
 * (every request a cache miss: a new record or size) and again (every request a cache hit).
 */
import sharp from 'sharp'
import { api, mapLimit } from './api.js'
import { cycle, measure, shuffled, type RequestSpec } from './load.js'
import { row } from './report.js'
import type { Context, Step } from './scenarios.js'
import { THUMB_SIZES } from './seed.js'

/** Records uploaded; each has 1 + THUMB_SIZES.length distinct thumbnails to generate. */
const IMAGES = 300

/** A noisy 1000x800 JPEG (noise keeps it from compressing to nothing, like a photo). */
function makeJpeg(): Promise<Buffer> {
  return sharp({
    create: {
      width: 1000,
      height: 800,
      channels: 3,
      background: '#808080',
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  })
    .jpeg({ quality: 80 })
    .toBuffer()
}

async function upload(ctx: Context): Promise<string[]> {
  const jpeg = await makeJpeg()
  const records = await mapLimit(
    Array.from({ length: IMAGES }, (_, i) => i),
    4,
    async (i) => {
      const form = new FormData()
      form.set('title', `image ${i}`)
      form.set('image', new Blob([jpeg], { type: 'image/jpeg' }), 'photo.jpg')
      return api<{ id: string; image: string }>(
        ctx.svc.url,
        'POST',
        '/api/collections/images/records',
        form,
      )
    },
  )
  const urls: string[] = []
  for (const size of ['100x100', ...THUMB_SIZES])
    for (const r of records) urls.push(`/api/files/images/${r.id}/${r.image}?thumb=${size}`)
  ctx.log(`  uploaded ${IMAGES} images of ${(jpeg.length / 1024).toFixed(0)} KiB`)
  return urls
}

/**
 * Fetches one thumbnail and checks it is a JPEG of the asked size: svcbase answers the original
 * for a size it does not allow, which would measure downloads instead of thumbnails.
 */
async function checkThumb(url: string, path: string): Promise<void> {
  const res = await fetch(url + path)
  const body = Buffer.from(await res.arrayBuffer())
  const size = new URL(path, url).searchParams.get('thumb') ?? ''
  const meta = res.ok ? await sharp(body).metadata() : undefined
  if (!meta || `${meta.width}x${meta.height}` !== size) {
    const got = meta ? `${meta.width}x${meta.height}` : `status ${res.status}`
    throw new Error(`thumbnail ${path}: expected ${size}, got ${got}`)
  }
}

/** The thumbnail steps: generation (cache misses), then cached thumbnails. */
export function thumbnailScenarios(): Step[] {
  let generated: string[] = []
  return [
    {
      label: 'thumbnails, first generation',
      async run(ctx) {
        const urls = shuffled(await upload(ctx))
        await checkThumb(ctx.svc.url, urls.pop()!)
        let i = 0
        const next = (): RequestSpec => ({ path: urls[i++ % urls.length]! })
        // No warm-up: it would spend unique thumbnails; sharp's work dominates anyway.
        const m = await measure(ctx.svc.url, { next, connections: 4 }, ctx.durationS, 0)
        generated = urls.slice(0, Math.min(i, urls.length))
        const exhausted = i > urls.length
        return [
          row('thumbnail, first generation (1000x800 JPEG, cache miss)', m, {
            ...(exhausted
              ? { note: 'ran out of unique thumbnails: later requests were cache hits' }
              : {}),
          }),
        ]
      },
    },
    {
      label: 'thumbnails, cached',
      async run(ctx) {
        const next = cycle(generated.map((path): RequestSpec => ({ path })))
        const m = await measure(
          ctx.svc.url,
          { next, connections: ctx.connections },
          ctx.durationS,
          ctx.warmupS,
        )
        return [row('thumbnail, cached', m)]
      },
    },
  ]
}
