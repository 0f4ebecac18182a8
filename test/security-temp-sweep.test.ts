/**
 * Security issue #32, point 14: `kill -9` in the middle of uploads leaves upload folders and the
 * local storage's `.svcbase-tmp-*` files behind. svcbase (the real CLI as a child process) spools
 * uploads under `<dataDir>/.svc_tmp/uploads/`, and the next start removes what a gone process
 * left there and in `storage/`, and nothing else: names svcbase does not make, and the names of a
 * process still running, stay; the files that were complete are intact.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { waitFor } from './helpers/webhook-receiver.js'

const CLI = ['--import', 'tsx', 'src/cli.ts']
const root = mkdtempSync(join(tmpdir(), 'svcbase-temp-sweep-'))
const children = new Set<ChildProcess>()
afterAll(() => {
  for (const child of children) child.kill('SIGKILL')
  rmSync(root, { recursive: true, force: true })
})

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex')

/** Every path under `dir` (relative, `/`-separated), or [] when it does not exist. */
function tree(dir: string): string[] {
  try {
    return (readdirSync(dir, { recursive: true }) as string[]).map((p) => p.split('\\').join('/'))
  } catch {
    return []
  }
}

/** Starts `svcbase serve` on `dir`; resolves with the child, its URL and a superuser token. */
async function serve(dir: string) {
  const child = spawn(process.execPath, [...CLI, 'serve', '--http=127.0.0.1:0', `--dir=${dir}`], {
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  children.add(child)
  let out = ''
  child.stdout.on('data', (d: Buffer) => (out += d.toString()))
  child.stderr.on('data', (d: Buffer) => (out += d.toString()))
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  await waitFor(() => SVCBASE_READY.test(out), 30_000)
  const url = SVCBASE_READY.exec(out)![1]!
  const login = await fetch(`${url}/api/collections/_superusers/auth-with-password`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ identity: 'admin@example.com', password: 'supersecret123' }),
  })
  const token = ((await login.json()) as { token: string }).token
  return { child, url, token, exited, output: () => out }
}

/** Creates a `docs` record with `content` as its file; resolves with the record. */
async function upload(url: string, content: Buffer, name = 'doc.bin') {
  const form = new FormData()
  form.append('doc', new Blob([content]), name)
  const res = await fetch(`${url}/api/collections/docs/records`, { method: 'POST', body: form })
  return { status: res.status, body: (await res.json()) as { id: string; doc: string } }
}

/** Opens a multipart upload that sends part of its file part and then waits (never closes). */
function hangingUpload(url: string): Socket {
  const u = new URL(url)
  const b = 'svcCrashBoundary'
  const socket = connect(Number(u.port), u.hostname)
  socket.on('error', () => undefined)
  socket.write(
    `POST /api/collections/docs/records HTTP/1.1\r\nHost: ${u.host}\r\n` +
      `Content-Type: multipart/form-data; boundary=${b}\r\nContent-Length: 10000000\r\n\r\n` +
      `--${b}\r\nContent-Disposition: form-data; name="doc"; filename="h.bin"\r\n\r\n` +
      'y'.repeat(64 * 1024),
  )
  return socket
}

/** The id of a process that has exited. */
function deadPid(): number {
  return spawnSync(process.execPath, ['-e', '']).pid
}

describe('the sweep at start after kill -9', () => {
  it('removes what the killed process left, and only that; complete files stay intact', async () => {
    const dir = join(root, 'data')
    const created = spawnSync(
      process.execPath,
      [...CLI, 'superuser', 'create', 'admin@example.com', 'supersecret123', `--dir=${dir}`],
      { stdio: 'ignore' },
    )
    expect(created.status).toBe(0)

    const first = await serve(dir)
    const coll = await fetch(`${first.url}/api/collections`, {
      method: 'POST',
      headers: { authorization: first.token, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'docs',
        createRule: '',
        viewRule: '',
        fields: [{ name: 'doc', type: 'file', maxSelect: 1, maxSize: 100_000_000 }],
      }),
    })
    expect(coll.status).toBe(200)
    const collectionId = ((await coll.json()) as { id: string }).id

    // Files that are complete before the crash.
    const complete: { id: string; doc: string; hash: string }[] = []
    for (let i = 0; i < 3; i++) {
      const content = Buffer.alloc(100_000 + i, i + 1)
      const r = await upload(first.url, content)
      expect(r.status).toBe(200)
      complete.push({ id: r.body.id, doc: r.body.doc, hash: sha(content) })
    }

    // In the middle of uploads: some spooled and waiting for the rest of their body, some large
    // ones being written to storage; killed once a storage temp file is seen (or after 5 s).
    const hanging = Array.from({ length: 4 }, () => hangingUpload(first.url))
    const uploads = join(dir, '.svc_tmp', 'uploads')
    await waitFor(() => tree(uploads).filter((p) => !p.includes('/')).length === 4)
    const storage = join(dir, 'storage')
    const big = Buffer.alloc(30_000_000, 7)
    let writing = true
    const writers = Array.from({ length: 3 }, async () => {
      while (writing) await upload(first.url, big).catch(() => undefined)
    })
    const end = Date.now() + 5_000
    while (Date.now() < end && !tree(storage).some((p) => p.includes('.svcbase-tmp-'))) {
      await new Promise((r) => setImmediate(r))
    }
    first.child.kill('SIGKILL')
    await first.exited
    writing = false
    await Promise.all(writers)
    for (const s of hanging) s.destroy()

    const pid = first.child.pid!
    const leftUploads = tree(uploads).filter((p) => !p.includes('/'))
    expect(leftUploads.length).toBeGreaterThanOrEqual(4)
    expect(leftUploads.every((n) => n.startsWith(`up-${pid}-`))).toBe(true)
    // The kill caught writes to storage in the middle: their temp files, named for the process.
    const crashTemps = tree(storage).filter((p) => p.includes('.svcbase-tmp-'))
    expect(crashTemps.length).toBeGreaterThan(0)
    expect(crashTemps.every((p) => p.includes(`/.svcbase-tmp-${pid}-`))).toBe(true)

    // What other processes left: a gone one's (removed), a running one's and foreign names (kept).
    const gone = deadPid()
    const alive = process.pid
    const recordDir = join(storage, collectionId, complete[0]!.id)
    const plantedGone = [
      join(recordDir, `.svcbase-tmp-${gone}-0123456789abcdef`),
      join(storage, collectionId, 'newrecord', `.svcbase-tmp-${gone}-fedcba9876543210`),
      join(storage, collectionId, '.svcbase-tmp-00112233445566aa'), // an older version's
    ]
    const plantedKept = [
      join(recordDir, `.svcbase-tmp-${alive}-0123456789abcdef`),
      join(recordDir, '.svcbase-tmp-notours'),
      join(storage, 'notes.txt'),
      join(uploads, 'keep-me', 'x'),
      join(uploads, `up-${alive}-AbC123`, 'part'),
      join(dir, '.svc_tmp', `up-${gone}-AbC123`, 'part'),
    ]
    mkdirSync(join(uploads, `up-${gone}-XyZ789`), { recursive: true })
    writeFileSync(join(uploads, `up-${gone}-XyZ789`, 'part'), 'partial')
    for (const p of [...plantedGone, ...plantedKept]) {
      mkdirSync(join(p, '..'), { recursive: true })
      writeFileSync(p, 'left over')
    }

    const second = await serve(dir)
    try {
      // The storage walk runs in the background once serving: wait for its log line.
      await waitFor(() =>
        /removed storage temp files left by a stopped process/.test(second.output()),
      )
      // The killed process's and the gone process's upload folders are gone; the rest stays.
      expect(
        tree(uploads)
          .filter((p) => !p.includes('/'))
          .sort(),
      ).toEqual(['keep-me', `up-${alive}-AbC123`].sort())
      const temps = tree(storage).filter((p) => p.includes('.svcbase-tmp-'))
      expect(temps.sort()).toEqual(
        [
          `${collectionId}/${complete[0]!.id}/.svcbase-tmp-${alive}-0123456789abcdef`,
          `${collectionId}/${complete[0]!.id}/.svcbase-tmp-notours`,
        ].sort(),
      )
      // A folder that held only a left-over is removed with it.
      expect(tree(join(storage, collectionId)).some((p) => p.startsWith('newrecord'))).toBe(false)
      for (const p of plantedKept) expect(readFileSync(p, 'utf8')).toBe('left over')
      for (const c of complete) {
        const res = await fetch(`${second.url}/api/files/docs/${c.id}/${c.doc}`)
        expect(res.status).toBe(200)
        expect(sha(Buffer.from(await res.arrayBuffer()))).toBe(c.hash)
      }
      // Uploads work after the sweep.
      const after = await upload(second.url, Buffer.from('after the restart'))
      expect(after.status).toBe(200)
      expect(second.output()).toMatch(/removed upload folders left by a stopped process/)
    } finally {
      second.child.kill('SIGTERM')
      await second.exited
    }
  }, 120_000)
})
