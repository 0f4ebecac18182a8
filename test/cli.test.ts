import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/core/app.js'
import { authenticateWithPassword } from '../src/core/auth/password-auth.js'
import { silentLogger } from '../src/core/logger.js'

const run = promisify(execFile)
const dir = mkdtempSync(join(tmpdir(), 'svcbase-cli-'))
const cli = (...args: string[]) =>
  run(process.execPath, ['bin/svcbase.js', ...args, `--dir=${dir}`], { cwd: process.cwd() })

async function canSignIn(email: string, password: string): Promise<boolean> {
  const app = await createApp({ dataDir: dir, logger: silentLogger })
  try {
    await authenticateWithPassword(app, app.collections.get('_superusers'), {
      identity: email,
      password,
    })
    return true
  } catch {
    return false
  } finally {
    await app.close()
  }
}

describe('svcbase CLI', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('creates, updates, upserts and deletes superusers', async () => {
    const created = await cli('superuser', 'create', 'ops@example.com', 'firstpassword')
    expect(created.stdout).toContain('create done')
    expect(await canSignIn('ops@example.com', 'firstpassword')).toBe(true)
    await expect(
      cli('superuser', 'create', 'ops@example.com', 'firstpassword'),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('already exists') })
    await cli('superuser', 'update', 'ops@example.com', 'secondpassword')
    expect(await canSignIn('ops@example.com', 'firstpassword')).toBe(false)
    expect(await canSignIn('ops@example.com', 'secondpassword')).toBe(true)
    await cli('superuser', 'upsert', 'two@example.com', 'thirdpassword')
    expect(await canSignIn('two@example.com', 'thirdpassword')).toBe(true)
    await expect(cli('superuser', 'create', 'bad@example.com', 'short')).rejects.toMatchObject({
      stderr: expect.stringContaining('password'),
    })
    await cli('superuser', 'delete', 'ops@example.com')
    expect(await canSignIn('ops@example.com', 'secondpassword')).toBe(false)
    await expect(cli('superuser', 'delete', 'two@example.com')).rejects.toMatchObject({
      stderr: expect.stringContaining("can't delete the only existing superuser"),
    })
  })

  it('prints usage for unknown commands and accepts ignored PocketBase flags', async () => {
    await expect(cli('frobnicate')).rejects.toMatchObject({
      stderr: expect.stringContaining('Usage'),
    })
    const help = await run(process.execPath, ['bin/svcbase.js', '--help'])
    expect(help.stdout).toContain('svcbase serve')
  })
})
