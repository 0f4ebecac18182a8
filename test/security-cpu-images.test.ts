/**
 * Security #32, images drawn on the event loop: a 2048 px QR code of a long mixed text (the
 * `qrcode` package spends tens of milliseconds on its matrix) and 1024 px PNG avatars. The
 * matrix is now made on the CPU worker pool and the PNG compressed on libuv's threads; avatars
 * (sharp) are gated. The server runs in this thread: the gaps of a 10 ms timer are the stalls of
 * its event loop while guests, a child process, ask for images at once. The bytes are those the
 * server drew before the change (their SHA-256, recorded from b94733f).
 */
import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { trackLoopGaps } from './helpers/loop-gaps.js'
import { startServer, type TestServer } from './helpers/server.js'

/** Far below the base's stall (the sum of the codes drawn), far above a hiccup. */
const STALL_BOUND_MS = 400
const GUESTS = 16

/** The guests: a child process fetching every path at once, printing status and SHA-256 of each. */
const GUESTS_SCRIPT = `
const { createHash } = require('node:crypto')
const [url, ...paths] = JSON.parse(process.argv[1])
Promise.all(paths.map(async (p) => {
  const res = await fetch(url + p)
  const bytes = Buffer.from(await res.arrayBuffer())
  return { status: res.status, type: res.headers.get('content-type'), sha: createHash('sha256').update(bytes).digest('hex') }
})).then((out) => process.stdout.write(JSON.stringify(out)))
`

/** A long text that mixes QR modes (the slowest matrices), distinct per guest. */
const qrData = (i: number): string => `${'A1a'.repeat(980)}${String(i).padStart(3, '0')}`
const qrPath = (i: number): string =>
  `/api/utils/qr?size=2048&ecc=L&data=${encodeURIComponent(qrData(i))}`
const avatarPath = (i: number): string =>
  `/api/utils/avatar?size=1024&format=png&style=${i % 2 ? 'initials' : 'identicon'}&seed=guest%20${i}`

describe('security #32: QR codes and avatars', () => {
  let t: TestServer

  async function guests(paths: string[]) {
    const gaps = trackLoopGaps()
    const { stdout } = await promisify(execFile)(process.execPath, [
      '-e',
      GUESTS_SCRIPT,
      JSON.stringify([t.url, ...paths]),
    ])
    return {
      worst: gaps.stop(),
      answers: JSON.parse(stdout) as { status: number; type: string; sha: string }[],
    }
  }

  beforeAll(async () => {
    t = await startServer()
    // Loaded once (sharp, the worker pool): not what the guests measure.
    expect((await t.api('GET', avatarPath(999))).status).toBe(200)
    expect((await t.api('GET', '/api/utils/qr?data=warm')).status).toBe(200)
  })
  afterAll(async () => {
    await t.close()
  })

  it('guests asking for 2048 px QR codes at once do not hold the event loop', async () => {
    const { worst, answers } = await guests(Array.from({ length: GUESTS }, (_, i) => qrPath(i)))
    for (const a of answers) {
      expect(a.status).toBe(200)
      expect(a.type).toBe('image/png')
    }
    expect(worst).toBeLessThan(STALL_BOUND_MS)
  })

  it('guests asking for 1024 px PNG avatars at once do not hold the event loop', async () => {
    const { worst, answers } = await guests(Array.from({ length: GUESTS }, (_, i) => avatarPath(i)))
    for (const a of answers) expect(a.status).toBe(200)
    expect(worst).toBeLessThan(STALL_BOUND_MS)
  })

  it('draws the same bytes as before', async () => {
    const { answers } = await guests([qrPath(0), qrPath(7), avatarPath(0), avatarPath(1)])
    const svg = await t.api('GET', `/api/utils/qr?format=svg&data=${encodeURIComponent(qrData(3))}`)
    expect(answers.map((a) => a.sha)).toEqual(GOLDEN.slice(0, 4))
    expect(createHash('sha256').update(String(svg.body)).digest('hex')).toBe(GOLDEN[4])
  })
})

/** SHA-256 of the images above as b94733f drew them. */
const GOLDEN = [
  'c8ae4af3524d1179d589605360045ad8533eae03fcf788ac9185e0f28beb4561',
  '655bd9e0ae6c81b07a269c78ad1d1dd929b2003ac427a9e94d1c53ee7b2c1f25',
  'd84f9030f9e188fbe5911dd7088664d32f94a2d26712e6006344ed469430f57f',
  'd7620e2929b678047139a74aa5ffa741f172ef1850c4d7028b6a0ac488bc0c7c',
  'b28c94b2195c8ed259f0b415aaee3f39b0b2920a4537611499fa044956917a21',
]
