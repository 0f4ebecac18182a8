/**
 * Scaling a PocketBase app out in one command (issue 35): `svcbase copy --from=./pb_data
 * --to=postgres://…` takes the folder PocketBase 0.40.4 made (test/pocketbase/folder/) into
 * PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts), with progress, leaving the
 * folder unchanged; svcbase on PostgreSQL then answers PocketBase's client as PocketBase did,
 * with the tokens PocketBase issued, and applies none of the migrations PocketBase had applied.
 */
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { afterAll, describe, expect, it } from 'vitest'
import { silentLogger } from '../src/core/logger.js'
import { createServer } from '../src/server.js'
import { digests, FIXTURE, unlistedDifferences } from './pocketbase/folder/replay.js'

const url = process.env.SVC_TEST_PG_URL ?? ''
const schema = `t_pbcopy_${process.pid}_${Date.now().toString(36)}`
const root = mkdtempSync(join(tmpdir(), 'svcbase-pbcopy-'))
const folder = join(root, 'app', 'pb_data')
cpSync(join(FIXTURE, 'app', 'pb_data'), folder, { recursive: true })

afterAll(async () => {
  rmSync(root, { recursive: true, force: true })
  if (!url) return
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(
    `DROP SCHEMA IF EXISTS "${schema}" CASCADE; DROP SCHEMA IF EXISTS "${schema}_aux" CASCADE`,
  )
  await client.end()
})

function copy(): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env }
  delete env.SVC_DATABASE_URL
  delete env.SVC_DATABASE_SCHEMA
  const args = ['--import', 'tsx', 'src/cli.ts', 'copy', `--from=${folder}`, `--to=${url}`]
  return new Promise((resolve) => {
    execFile(process.execPath, [...args, `--toSchema=${schema}`], { env }, (err, stdout, stderr) =>
      resolve({ code: err ? Number(err.code) || 1 : 0, stdout, stderr }),
    )
  })
}

describe('a PocketBase folder copied into PostgreSQL', () => {
  it('is copied whole, with progress, and the folder is not changed', async () => {
    if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
    const before = digests(folder)
    const out = await copy()
    expect(out.stderr + out.stdout, out.stderr).toMatch(/copied \d+ collections/)
    expect(out.code).toBe(0)
    expect(out.stderr).toMatch(/^posts: 2 rows$/m)
    expect(out.stderr).toMatch(/^_migrations: \d+ rows$/m)
    expect(digests(folder)).toEqual(before)
  }, 120_000)

  it('answers PocketBase’s client on PostgreSQL as PocketBase did, with its tokens', async () => {
    // The files stay where they were (the folder's storage/, or S3): the app keeps serving them.
    const server = await createServer({
      dataDir: folder,
      databaseUrl: url,
      databaseSchema: schema,
      logger: silentLogger,
    })
    try {
      const address = await server.listen({ host: '127.0.0.1', port: 0 })
      const unlisted = await unlistedDifferences(address)
      expect(unlisted).toEqual([])
    } finally {
      await server.close()
    }
  }, 120_000)
})
