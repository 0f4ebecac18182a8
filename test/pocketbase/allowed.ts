/**
 * The differences from PocketBase that stay, each with its reason (docs/pocketbase.md,
 * "Differences"). test/pocketbase-differential.test.ts allows exactly these: a difference no rule
 * covers fails it, and so does a rule that covers nothing on an engine.
 */
import type { Difference } from './replay.js'

export interface Allowed {
  /** The step names it covers (`group / step`). */
  step: RegExp
  /** The difference lines it covers (`body.path: pb → svc`). */
  line: RegExp
  reason: string
}

export const ALLOWED: Allowed[] = []

export function allowedBy(d: Difference): Allowed | undefined {
  return ALLOWED.find((a) => a.step.test(`${d.group} / ${d.step}`) && a.line.test(d.line))
}
