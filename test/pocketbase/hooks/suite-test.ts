/**
 * The vitest shape every recorded `*.pb.js` suite is replayed in: a server running the suite's
 * hook files (`startSuiteServer`), a test that they load without errors, then each recorded
 * case in order (each sees what the ones before it wrote), compared with PocketBase's answer;
 * a case in `allowed` differs on purpose and is checked for its own status, with the reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from '../../fixtures/hooks/server.js'
import type { TestSmtp } from '../../helpers/smtp.js'
import type { HookAnswer, HookSuite } from './cases.js'
import { recording, replay, startSuiteServer } from './replay.js'

/** A case svcbase answers otherwise on purpose: its own status, and why. */
export interface Allowed {
  status: number
  why: string
}

export interface SuiteTestOptions {
  /** Cases that differ on purpose, by name. */
  allowed?: Record<string, Allowed>
  /** A case's test name (default: its name). */
  label?: (a: HookAnswer) => string
  /** Runs after the server starts (e.g. to point its mail at a listener); gets the server. */
  setup?: (s: HooksServer) => Promise<void>
  /** The SMTP listener the cases' mails are read from. */
  smtp?: () => TestSmtp
}

/** Describes the replay of `suite` against svcbase under `title`. */
export function describeRecordedSuite(
  title: string,
  suite: HookSuite,
  options: SuiteTestOptions = {},
): void {
  const recorded = recording(suite)
  const label = options.label ?? ((a: HookAnswer) => a.name)
  describe(title, () => {
    let s: HooksServer
    beforeAll(async () => {
      s = await startSuiteServer(suite)
      await options.setup?.(s)
    })
    afterAll(async () => {
      await s.close()
    })

    it('loads the files', async () => {
      const listing = await s.api('GET', '/api/functions', { token: s.suToken })
      expect(listing.body.errors).toEqual([])
    })

    it.each(recorded.answers.map((a) => [label(a), a] as const))('%s', async (_label, pb) => {
      const svc = await replay(s, pb, options.smtp?.())
      const allowed = options.allowed?.[pb.name]
      if (allowed) expect(svc.status, allowed.why).toBe(allowed.status)
      else expect(svc).toEqual(pb)
    })
  })
}
