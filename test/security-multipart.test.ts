/**
 * Security issue #32, point 2: a multipart body whose file part never closes. The client sends
 * the head and part of a file part (Content-Length larger than what it sends, or chunked) and
 * then goes silent without closing. svcbase answers a clear 400 within the body timeout, closes
 * the connection and leaves nothing open or on disk; a client that goes away mid-upload leaves
 * nothing either; a thousand such requests leave the descriptors and the temp space where they
 * were, and uploads still work after them.
 */
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import { startServer, type TestServer } from './helpers/server.js'

const BOUNDARY = 'svcStalledBoundary'
const BODY_TIMEOUT = 300

/** Open descriptors of this process (the in-process server's included). */
const fdCount = () => readdirSync('/proc/self/fd').length

/** The entries of the data folder's upload temp space. */
const uploadEntries = (t: TestServer) => {
  const dir = join(t.dir, '.svc_tmp', 'uploads')
  return existsSync(dir) ? readdirSync(dir) : []
}

interface RawAnswer {
  /** The status of the answer, or null when none came before the deadline. */
  status: number | null
  body: string
  /** Whether the server closed the connection before the deadline. */
  closed: boolean
}

/**
 * Sends a multipart record create whose file part never ends, then goes silent without closing
 * (`chunked`: Transfer-Encoding chunked, else a Content-Length far above what is sent). Resolves
 * once the server closed the connection, or at `deadline` ms (the socket is then destroyed);
 * `gone` destroys the socket itself after `gone` ms instead.
 */
function stalledUpload(
  t: TestServer,
  opts: { chunked?: boolean; deadline?: number; gone?: number; collection?: string } = {},
): Promise<RawAnswer> {
  const url = new URL(t.url)
  const part =
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="title"\r\n\r\nstalled\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="doc"; filename="a.txt"\r\n` +
    `Content-Type: text/plain\r\n\r\n${'x'.repeat(4096)}`
  const head =
    `POST /api/collections/${opts.collection ?? 'docs'}/records HTTP/1.1\r\nHost: ${url.host}\r\n` +
    `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
    (opts.chunked ? 'Transfer-Encoding: chunked\r\n' : 'Content-Length: 1000000\r\n') +
    '\r\n'
  const body = opts.chunked ? `${Buffer.byteLength(part).toString(16)}\r\n${part}\r\n` : part
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname)
    let text = ''
    let done = false
    const finish = (closed: boolean) => {
      if (done) return
      done = true
      clearTimeout(timer)
      socket.destroy()
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text)
      const at = text.indexOf('\r\n\r\n')
      resolve({ status: m ? Number(m[1]) : null, body: at < 0 ? '' : text.slice(at + 4), closed })
    }
    const timer = setTimeout(() => finish(false), opts.gone ?? opts.deadline ?? 5_000)
    socket.on('data', (d: Buffer) => (text += d.toString()))
    socket.on('close', () => finish(true))
    socket.on('error', () => finish(true))
    socket.write(head + body)
  })
}

/** Waits until `check` holds, polling; false when `ms` pass first. */
async function eventually(check: () => boolean, ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms
  while (Date.now() < end) {
    if (check()) return true
    await new Promise((r) => setTimeout(r, 10))
  }
  return check()
}

async function docsCollection(t: TestServer, name = 'docs'): Promise<void> {
  const res = await t.api('POST', '/api/collections', {
    token: t.suToken,
    body: {
      name,
      createRule: '',
      viewRule: '',
      schema: [
        { name: 'title', type: 'text' },
        { name: 'doc', type: 'file', options: { maxSelect: 1, maxSize: 5_000_000 } },
      ],
    },
  })
  expect(res.status).toBe(200)
}

/** A normal upload, answered 200. */
async function upload(t: TestServer, content: string): Promise<number> {
  const form = new FormData()
  form.append('title', 'fine')
  form.append('doc', new Blob([content]), 'fine.txt')
  return (await t.api('POST', '/api/collections/docs/records', { raw: form })).status
}

describe('a multipart body whose file part never closes', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer({ bodyTimeout: BODY_TIMEOUT })
    await docsCollection(t)
  })
  afterAll(() => t.close())

  it.each([
    ['a Content-Length above what is sent', false],
    ['chunked', true],
  ])('answers 400 within the body timeout and closes (%s)', async (_label, chunked) => {
    const before = fdCount()
    const answer = await stalledUpload(t, { chunked })
    expect(answer.status).toBe(400)
    expect(JSON.parse(answer.body)).toEqual({
      code: 400,
      status: 400,
      message: `Failed to read the submitted data: the multipart body stopped arriving (no data for ${BODY_TIMEOUT / 1000} s).`,
      data: {},
    })
    expect(answer.closed).toBe(true)
    expect(await eventually(() => uploadEntries(t).length === 0)).toBe(true)
    expect(await eventually(() => fdCount() <= before)).toBe(true)
    expect(await upload(t, 'after a stall')).toBe(200)
  })

  it('keeps descriptors and temp space level across 1 000 stalled requests', async () => {
    const before = fdCount()
    const statuses = new Map<number | null, number>()
    let next = 0
    const worker = async () => {
      while (next < 1000) {
        next++
        const { status } = await stalledUpload(t, { chunked: next % 2 === 0 })
        statuses.set(status, (statuses.get(status) ?? 0) + 1)
      }
    }
    await Promise.all(Array.from({ length: 50 }, worker))
    expect(Object.fromEntries(statuses)).toEqual({ 400: 1000 })
    expect(await eventually(() => uploadEntries(t).length === 0)).toBe(true)
    // A few descriptors of margin (the stores' own files); a leak would be a thousand.
    expect(await eventually(() => fdCount() <= before + 5)).toBe(true)
    expect(await upload(t, 'after a thousand stalls')).toBe(200)
  }, 120_000)
})

describe('where uploads are spooled', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer({ bodyTimeout: 2_000 })
    await docsCollection(t)
  })
  afterAll(() => t.close())

  it('spools under <dataDir>/.svc_tmp/uploads/ and removes the folder with the answer', async () => {
    const pending = stalledUpload(t)
    // The file part was received: its folder exists under the data folder while it waits.
    expect(await eventually(() => uploadEntries(t).length === 1, 1_500)).toBe(true)
    expect(uploadEntries(t)[0]).toMatch(new RegExp(`^up-${process.pid}-`))
    expect((await pending).status).toBe(400)
    expect(uploadEntries(t)).toEqual([])
    // A complete upload leaves nothing behind either.
    expect(await upload(t, 'complete')).toBe(200)
    expect(await eventually(() => uploadEntries(t).length === 0)).toBe(true)
  })

  it('spools a storage upload whose file comes before its key there too', async () => {
    const url = new URL(t.url)
    const first =
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f.txt"\r\n` +
      `Content-Type: text/plain\r\n\r\n${'y'.repeat(4096)}`
    const rest =
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="key"\r\n\r\nlate/key.txt\r\n` +
      `--${BOUNDARY}--\r\n`
    const head =
      `POST /api/storage/objects HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${t.suToken}\r\n` +
      `Content-Type: multipart/form-data; boundary=${BOUNDARY}\r\n` +
      `Content-Length: ${Buffer.byteLength(first) + Buffer.byteLength(rest)}\r\nConnection: close\r\n\r\n`
    const socket = connect(Number(url.port), url.hostname)
    let text = ''
    socket.on('data', (d: Buffer) => (text += d.toString()))
    const closed = new Promise((ok) => socket.on('close', ok))
    socket.write(head + first)
    // The file part waits for its key in an upload folder under the data folder.
    expect(await eventually(() => uploadEntries(t).length === 1, 1_500)).toBe(true)
    socket.write(rest)
    await closed
    expect(text).toMatch(/^HTTP\/1\.1 204/)
    expect(await eventually(() => uploadEntries(t).length === 0)).toBe(true)
    const stored = await t.server.app.storage.read('late/key.txt')
    const chunks: Buffer[] = []
    for await (const chunk of stored!.stream) chunks.push(chunk as Buffer)
    expect(Buffer.concat(chunks).toString()).toBe('y'.repeat(4096))
  })

  it('leaves nothing open or on disk when the client goes away mid-upload', async () => {
    const before = fdCount()
    // Gone before the body timeout, once its file part is being spooled: no answer is sent.
    const pending = stalledUpload(t, { gone: 1_500 })
    expect(await eventually(() => uploadEntries(t).length === 1, 1_400)).toBe(true)
    expect((await pending).status).toBe(null)
    expect(await eventually(() => uploadEntries(t).length === 0)).toBe(true)
    expect(await eventually(() => fdCount() <= before)).toBe(true)
  })
})

describe('the bodyTimeout option', () => {
  it('defaults to 10 s', async () => {
    const t = await startServer()
    try {
      expect(t.server.http.svcUploads?.bodyTimeout).toBe(10_000)
    } finally {
      await t.close()
    }
  })

  it.each([0, -1, 1.5, 600_001, '100'])('refuses %j with a clear message', async (value) => {
    const dir = mkdtempSync(join(tmpdir(), 'svcbase-body-timeout-'))
    try {
      await expect(
        createServer({ dataDir: dir, logger: silentLogger }, { bodyTimeout: value as number }),
      ).rejects.toThrow(/^bodyTimeout must be an integer of milliseconds from 1 to 600000, got /)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
