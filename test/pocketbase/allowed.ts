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
  /** The engines it occurs on (both when absent). */
  engines?: Array<'sqlite' | 'postgres'>
}

const ANY = /./

export const ALLOWED: Allowed[] = [
  {
    step: ANY,
    line: /(^|\.)code: \(absent\) → \d{3}$/,
    reason:
      'SPEC §7: every error body has `code`; PocketBase’s `status` is there too, the same value',
  },
  {
    step: ANY,
    line: /\.(created|updated): \(absent\) → "<now>"$/,
    reason:
      'SPEC 2.1: every record has `created` and `updated`, also when its collection has no autodate field',
  },
  {
    step: ANY,
    line: /^body(\.items\[\d+\])?\.(schema|authOptions): \(absent\) → /,
    reason:
      'SPEC 2.2: a collection carries `schema` (FieldSchema with `options`) and `authOptions` beside PocketBase’s `fields` and options',
  },
  {
    step: ANY,
    line: /^body(\.data\.requests\.\d+\.response)?\.message: "(Something went wrong while processing your request|An error occurred while (loading|validating) the submitted data|Failed to load the submitted data due to invalid formatting|Failed to load the collection type data due to invalid formatting|Failed to read the submitted batch data|Invalid filter format)\." → "[^"]/,
    reason:
      'precise 400 messages: where PocketBase answers a generic text, svcbase names what is wrong (issue 34, DECISIONS.md); status and field errors are compared apart',
  },
  {
    step: ANY,
    line: /^body\.data\.\w+\.message: "Invalid rule\. Raw error: .*" → "Invalid rule\./,
    reason:
      'precise 400 messages: a rule’s error names the problem in svcbase’s words instead of PocketBase’s parser text (same code)',
  },
  {
    step: /^admin \//,
    line: /^body\.(llm|sms|push|payments|webhooks|audit|reads|connections|oauth2): \(absent\) → \{/,
    reason:
      'svcbase’s own settings groups for what PocketBase lacks (SPEC 2.7: llm, sms, push; DECISIONS.md: payments, webhooks; docs/settings.md: audit, reads, connections, oauth2)',
  },
  {
    step: /^realtime \/ \w+ connects$/,
    line: /^body\.event: "PB_CONNECT" → "SVC_CONNECT"$/,
    reason: 'SPEC §6: the first event is SVC_CONNECT; PB_CONNECT follows it for PocketBase clients',
  },
  {
    step: /^realtime \/ after subscribing: events of \w$/,
    line: /^body: \[\] → \[\{"data":\{"clientId":"\w+"\},"event":"PB_CONNECT"\}\]$/,
    reason: 'SPEC §6: PB_CONNECT is svcbase’s second event, after SVC_CONNECT (PocketBase’s first)',
  },
]

export function allowedBy(d: Difference): Allowed | undefined {
  return ALLOWED.find((a) => a.step.test(`${d.group} / ${d.step}`) && a.line.test(d.line))
}
