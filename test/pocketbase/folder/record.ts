/**
 * `npm run oracle:record -- folder` (or `tsx test/pocketbase/folder/record.ts`): PocketBase
 * 0.40.4 starts with the app's hooks and migrations (`./app/pb_hooks`, `./app/pb_migrations`),
 * builds the app (`setup` of ./app.ts) and answers a client's reads (`reads`, `appReads`); its
 * `pb_data` is kept as the fixture `./app/pb_data/` (and the migration files it wrote beside the
 * app's own) with the answers in `./answers.json`. Then the
 * round trip: svcbase serves a copy of the folder (and writes a record), PocketBase opens the
 * folder svcbase leaves and answers the same reads, which must equal its first answers.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { silentLogger } from '../../../src/core/logger.js'
import { createServer } from '../../../src/server.js'
import {
  chosenIds,
  diff,
  imageSize,
  normalise,
  ORACLE_VERSION,
  runGroup,
  type Answer,
} from '../harness.js'
import { png } from '../groups/files.js'
import { withOracle } from '../oracle.js'
import { appReads, reads, setup } from './app.js'

const HERE = dirname(fileURLToPath(import.meta.url))
/** The app folder: `pb_data` (recorded), `pb_hooks` and `pb_migrations` (the app's own). */
const APP = join(HERE, 'app')

/** The values later reads need: the tokens PocketBase issued, the stored file names. */
const SEEDS = ['pbsu', 'ut', 'img', 'img2'] as const

export interface FolderRecording {
  oracle: string
  recorded: string
  /** The values `reads` starts with (tokens valid for ten years). */
  seed: Record<string, string>
  answers: Answer[]
  /** PocketBase's answers to `appReads` (its hooks and migrations of app/). */
  appAnswers: Answer[]
  /** PocketBase's answers after svcbase served the folder: the differences from `answers`. */
  roundTrip: {
    reads: number
    differences: string[]
    svcbaseRecord: Answer
    svcbaseUpload: Answer
  }
  /** PocketBase opening a folder svcbase made from nothing: what it answered. */
  svcbaseFolder: Answer[]
}

const pick = (body: unknown, path: string): string => {
  let v: unknown = body
  for (const k of path.split('.')) v = (v as Record<string, unknown>)[k]
  return String(v)
}

/**
 * A folder svcbase makes from nothing (a collection, a record), then opened by PocketBase: its
 * answers to reading them and to writing a record and a collection.
 */
async function openedByPocketBase(dir: string): Promise<Answer[]> {
  const server = await createServer({ dataDir: join(dir, 'pb_data'), logger: silentLogger })
  await server.app.collections.create({
    name: 'notes',
    listRule: '',
    viewRule: '',
    createRule: '',
    fields: [{ name: 'text', type: 'text' }],
  })
  const address = await server.listen({ host: '127.0.0.1', port: 0 })
  const made = await fetch(`${address}/api/collections/notes/records`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id: 'not000000000001', text: 'from svcbase' }),
  })
  if (made.status !== 200) throw new Error(`svcbase note: ${made.status}`)
  await server.close()
  return withOracle(
    async (url) => {
      const steps: Array<[string, string, unknown]> = [
        ['read svcbase note', `GET /api/collections/notes/records/not000000000001`, undefined],
        ['write note', 'POST /api/collections/notes/records', { text: 'from PocketBase' }],
        ['list notes', 'GET /api/collections/notes/records?sort=created&fields=text', undefined],
      ]
      const out: Answer[] = []
      for (const [name, line, body] of steps) {
        const [method, path] = line.split(' ')
        const res = await fetch(`${url}${path!}`, {
          method,
          headers: body ? { 'content-type': 'application/json' } : {},
          body: body ? JSON.stringify(body) : undefined,
        })
        out.push({ name, status: res.status, body: normalise(await res.json(), new Set()) })
      }
      return out
    },
    { dir },
  )
}

async function main(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'svcbase-folder-'))
  const ids = chosenIds(reads)
  try {
    let seed: Record<string, string> = {}
    let appAnswers: Answer[] = []
    // The app's own hooks, migrations and public files, which PocketBase runs from its first start.
    // (Only the app's own migrations: those PocketBase wrote at the last recording are its output.)
    for (const d of ['pb_hooks', 'pb_migrations', 'pb_public'])
      cpSync(join(APP, d), join(scratch, d), {
        recursive: true,
        filter: (src) =>
          d !== 'pb_migrations' || !/\/\d+_(created|updated|deleted)_\w+\.js$/.test(src),
      })
    const answers = await withOracle(
      async (url) => {
        const made = await runGroup(url, setup)
        const failed = made.filter((a) => a.status >= 300)
        if (failed.length) throw new Error(`setup failed: ${JSON.stringify(failed, null, 1)}`)
        const byName = new Map(made.map((a) => [a.name, a.body]))
        seed = {
          pbsu: pick(byName.get('superuser sign-in'), 'token'),
          ut: pick(byName.get('user sign-in'), 'token'),
          img: pick(byName.get('post'), 'img.0'),
          img2: pick(byName.get('post'), 'img.1'),
        }
        const raw = await runGroup(url, reads, new Map(Object.entries(seed)))
        const app = await runGroup(url, appReads, new Map(Object.entries(seed)))
        appAnswers = app.map((a) => ({ ...a, body: normalise(a.body, chosenIds(appReads)) }))
        return raw.map((a) => ({ ...a, body: normalise(a.body, ids) }))
      },
      { dir: scratch },
    )
    if (SEEDS.some((k) => !seed[k])) throw new Error('a seed value is missing')
    const fixture = join(APP, 'pb_data')
    rmSync(fixture, { recursive: true, force: true })
    mkdirSync(fixture, { recursive: true })
    for (const f of ['data.db', 'auxiliary.db', 'storage'])
      cpSync(join(scratch, 'pb_data', f), join(fixture, f), { recursive: true })
    // With the migration files PocketBase wrote for the setup's collection changes.
    rmSync(join(APP, 'pb_migrations'), { recursive: true, force: true })
    cpSync(join(scratch, 'pb_migrations'), join(APP, 'pb_migrations'), { recursive: true })

    // The round trip: svcbase serves the folder and writes to it, PocketBase opens it again.
    const server = await createServer({ dataDir: join(scratch, 'pb_data'), logger: silentLogger })
    const address = await server.listen({ host: '127.0.0.1', port: 0 })
    const made = await fetch(`${address}/api/collections/tags/records`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: seed.pbsu! },
      body: JSON.stringify({ id: 'tag000000000003', name: 'ts' }),
    })
    if (made.status !== 200) throw new Error(`svcbase write: ${made.status} ${await made.text()}`)
    const form = new FormData()
    const cover = png('from-svcbase.png')
    form.append(
      'avatar',
      new Blob([Buffer.from(cover.content, 'base64')], { type: 'image/png' }),
      cover.file,
    )
    for (const [k, v] of Object.entries({
      id: 'usr000000000002',
      email: 'u2@example.com',
      password: 'password789',
      passwordConfirm: 'password789',
    }))
      form.append(k, v)
    const upload = await fetch(`${address}/api/collections/users/records`, {
      method: 'POST',
      headers: { authorization: seed.pbsu! },
      body: form,
    })
    if (upload.status !== 200)
      throw new Error(`svcbase upload: ${upload.status} ${await upload.text()}`)
    const uploaded = pick(await upload.json(), 'avatar')
    await server.close()
    const back = await withOracle(
      async (url) => {
        const raw = await runGroup(url, reads, new Map(Object.entries(seed)))
        const tag = await fetch(`${url}/api/collections/tags/records/tag000000000003`)
        const file = await fetch(`${url}/api/files/users/usr000000000002/${uploaded}`)
        const bytes = Buffer.from(await file.arrayBuffer())
        return {
          raw,
          tag: {
            name: 'svcbase record',
            status: tag.status,
            body: normalise(await tag.json(), ids),
          },
          file: {
            name: 'svcbase upload',
            status: file.status,
            body: { contentType: file.headers.get('content-type'), ...imageSize(bytes) },
          },
        }
      },
      { dir: scratch },
    )
    const differences: string[] = []
    for (const [i, a] of back.raw.entries()) {
      const first = answers[i]!
      if (first.status !== a.status)
        differences.push(`${a.name} | status ${first.status} → ${a.status}`)
      for (const line of diff(first.body, normalise(a.body, ids), 'body'))
        differences.push(`${a.name} | ${line}`)
    }
    const svcbaseFolder = await openedByPocketBase(join(scratch, 'fresh'))
    const recording: FolderRecording = {
      oracle: ORACLE_VERSION,
      recorded: new Date().toISOString().slice(0, 10),
      seed,
      answers,
      appAnswers,
      roundTrip: {
        reads: back.raw.length,
        differences,
        svcbaseRecord: back.tag,
        svcbaseUpload: back.file,
      },
      svcbaseFolder,
    }
    writeFileSync(join(HERE, 'answers.json'), `${JSON.stringify(recording, null, 1)}\n`)
    console.log(
      `folder: ${setup.steps.length} setup steps, ${answers.length} reads recorded; ` +
        `round trip through svcbase: ${differences.length} differing lines, ` +
        `svcbase's record read by PocketBase: ${back.tag.status}, its upload: ${JSON.stringify(back.file)}; ` +
        `a folder svcbase made, opened by PocketBase: ${svcbaseFolder.map((a) => `${a.name} ${a.status}`).join(', ')}`,
    )
    for (const d of differences) console.log(`  ${d}`)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

await main()
