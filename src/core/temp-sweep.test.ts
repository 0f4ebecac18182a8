import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { createUploadDir, removeUploadDir } from './temp-sweep.js'

let dataDir = ''
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

describe('upload folders', () => {
  it('are made while others are removed (and the uploads folder with the last one) at once', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'svc-uploads-'))
    // Requests that come and go together: each removal may take the shared uploads folder away
    // while another request is making its own folder in it.
    const cycle = async () => {
      for (let i = 0; i < 25; i++) await removeUploadDir(await createUploadDir(dataDir))
    }
    const results = await Promise.allSettled(Array.from({ length: 32 }, cycle))
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
  })
})
