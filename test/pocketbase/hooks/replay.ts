/**
 * Replays a recorded `*.pb.js` suite (`<suite>.json`, see `record.ts`) against svcbase: the same
 * hook files in a real server's hooks dir, the same requests, and each answer compared with
 * PocketBase's: status, media type, body (JSON compared as values, key order aside) and the
 * target of a redirect.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startHooksServer, type HooksServer } from '../../fixtures/hooks/server.js'
import type { TestSmtp } from '../../helpers/smtp.js'
import { ask } from './ask.js'
import type { HookAnswer, HookRecording, HookSuite } from './cases.js'

const here = dirname(fileURLToPath(import.meta.url))

/** The recorded answers of a suite. */
export function recording(suite: HookSuite): HookRecording {
  return JSON.parse(readFileSync(join(here, `${suite.name}.json`), 'utf8')) as HookRecording
}

/** A server running the suite's hook files, as the recorder's oracle did. */
export function startSuiteServer(suite: HookSuite): Promise<HooksServer> {
  const files: Record<string, string> = {}
  for (const f of suite.files) files[f] = readFileSync(join(here, f), 'utf8')
  return startHooksServer(files)
}

/**
 * svcbase's answer to a recorded case, in the recording's shape. An error body's `code` (svcbase
 * adds it beside `status`, the same value: docs/pocketbase.md, SPEC §7) is dropped.
 */
export async function replay(
  server: HooksServer,
  recorded: HookAnswer,
  smtp?: TestSmtp,
): Promise<HookAnswer> {
  const { status: _s, type: _t, body: _b, location: _l, sent: _m, ...c } = recorded
  const answer = await ask(server.url, c, smtp)
  const body = answer.body as Record<string, unknown> | null
  if (body && typeof body === 'object' && 'code' in body && body.code === body.status)
    delete body.code
  return answer
}
