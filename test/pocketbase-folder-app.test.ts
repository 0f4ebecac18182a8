/**
 * A PocketBase app brought whole (issue 35): `svcbase serve` on the app folder PocketBase 0.40.4
 * ran (test/pocketbase/folder/app/: `pb_data`, the app's `pb_hooks` and `pb_migrations`, the
 * migration files PocketBase wrote) answers the app's client as PocketBase did: its data, its
 * hook routes and hooks, the records its migrations made, and applies none of the migrations
 * PocketBase had applied.
 */
import { spawn } from 'node:child_process'
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { SVCBASE_READY } from '../bench/servers.js'
import { appReads } from './pocketbase/folder/app.js'
import { digests, FIXTURE, recording, unlistedDifferences } from './pocketbase/folder/replay.js'

const root = mkdtempSync(join(tmpdir(), 'svcbase-pbapp-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

/** `svcbase serve` on a copy of the app folder; resolves once it serves. */
function serve(name: string, args: (app: string) => string[], copy = true) {
  const app = join(root, name)
  if (copy) cpSync(join(FIXTURE, 'app'), app, { recursive: true })
  const env = { ...process.env }
  delete env.SVC_DATABASE_URL
  delete env.SVC_DATABASE_SCHEMA
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'src/cli.ts', 'serve', '--http=127.0.0.1:0', ...args(app)],
    { env },
  )
  let out = ''
  const exited = new Promise((r) => child.once('exit', r))
  return new Promise<{ url: string; output: () => string; stop: () => Promise<unknown> }>(
    (resolve, reject) => {
      const read = (d: Buffer) => {
        out += d.toString()
        const m = SVCBASE_READY.exec(out)
        if (m)
          resolve({
            url: m[1]!,
            output: () => out,
            stop: () => (child.kill('SIGTERM'), exited),
          })
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}:\n${out}`)))
    },
  )
}

describe('a PocketBase app folder served whole by `svcbase serve`', () => {
  it('answers the app’s client, hooks and migrations included, as PocketBase did', async () => {
    const server = await serve('flags', (app) => [
      `--dir=${join(app, 'pb_data')}`,
      `--hooksDir=${join(app, 'pb_hooks')}`,
      `--migrationsDir=${join(app, 'pb_migrations')}`,
      `--publicDir=${join(app, 'pb_public')}`,
    ])
    try {
      expect(await unlistedDifferences(server.url)).toEqual([])
      const lines = await unlistedDifferences(server.url, appReads, recording.appAnswers)
      expect(lines).toEqual([])
      // Every migration file there was applied by PocketBase: none runs again.
      expect(server.output()).not.toMatch(/Applied migration/)
    } finally {
      await server.stop()
    }
  }, 120_000)

  it('finds pb_hooks, pb_migrations and pb_public beside --dir, and writes migrations there', async () => {
    const server = await serve('defaults', (app) => [`--dir=${join(app, 'pb_data')}`])
    try {
      expect(await unlistedDifferences(server.url, appReads, recording.appAnswers)).toEqual([])
      // The app keeps its migrations in files: a collection made through the API writes one.
      const made = await fetch(`${server.url}/api/collections`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: recording.seed.pbsu! },
        body: JSON.stringify({ name: 'extra', fields: [{ name: 'x', type: 'text' }] }),
      })
      expect(made.status).toBe(200)
      const files = readdirSync(join(root, 'defaults', 'pb_migrations'))
      expect(files.filter((f) => /^\d+_created_extra\.js$/.test(f))).toHaveLength(1)
    } finally {
      await server.stop()
    }
  }, 120_000)

  it('stops when a new migration fails, and the folder is as it was, no backup left', async () => {
    const app = join(root, 'failing')
    cpSync(join(FIXTURE, 'app'), app, { recursive: true })
    writeFileSync(
      join(app, 'pb_migrations', '1800000000_boom.js'),
      "migrate((app) => { app.save(new Collection({ name: 'boom_made', type: 'base' })); throw new Error('boom') }, () => {})\n",
    )
    const before = digests(join(app, 'pb_data'))
    await expect(serve('failing', (a) => [`--dir=${join(a, 'pb_data')}`], false)).rejects.toThrow(
      /1800000000_boom\.js[\s\S]*boom/,
    )
    expect(digests(join(app, 'pb_data'))).toEqual(before)
    expect(existsSync(join(app, 'pb_data', 'backups'))).toBe(false)
  }, 120_000)
})
