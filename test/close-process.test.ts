/**
 * A process whose last work is closing the server ends normally: nothing the close waits for
 * (the request-log writer's thread, say) is left unreferenced, which would end the process with
 * the close still pending (exit code 13 under a top-level await).
 */
import { execFile } from 'node:child_process'
import { expect, it } from 'vitest'

it('a program that serves one request and closes exits 0 once the close has finished', async () => {
  const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>(
    (resolve) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', 'test/fixtures/close-after-request.ts'],
        { timeout: 60_000 },
        (err, stdout, stderr) =>
          resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      )
    },
  )
  expect(out.stderr).toBe('')
  expect(out.stdout.trim()).toBe('closed')
  expect(out.code).toBe(0)
}, 70_000)
