/**
 * The differences from PocketBase that stay, each with its reason (docs/pocketbase.md,
 * "Differences"). test/pocketbase-differential.test.ts allows exactly these: a difference no rule
 * covers fails it, and so does a rule that covers nothing on an engine.
 */
import type { Answer } from './harness.js'
import type { Difference } from './replay.js'

export interface Allowed {
  /** The step names it covers (`group / step`). */
  step: RegExp
  /** The difference lines it covers (`body.path: pb → svc`). */
  line: RegExp
  reason: string
  /** The engines it occurs on (both when absent). */
  engines?: Array<'sqlite' | 'postgres'>
  /** A condition on PocketBase's recorded answer to the step. */
  when?: (pb: Answer) => boolean
}

/** PocketBase answered a 400 with no field errors (its generic "failed to load" answers). */
const bareBadRequest = (pb: Answer): boolean =>
  pb.status === 400 && Object.keys((pb.body as { data?: object } | null)?.data ?? {}).length === 0

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
    line: /^body(\.items\[(id|name)=\w+\])?\.fields\[name=(created|updated)\]: \(absent\) → \{"[^}]*\}$/,
    reason:
      'SPEC 2.1: every record has `created` and `updated`, so every non-view collection carries them as system autodate fields (docs/collections.md)',
  },
  {
    step: ANY,
    line: /^body(\.items\[(id|name)=\w+\]|\.\w+)?\.(schema|authOptions): \(absent\) → /,
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
    step: /^(admin \/|folder \/ settings$)/,
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
  {
    step: ANY,
    line: /^body\.data\.[\w.]+\.message: ".* → "/,
    reason:
      'precise 400 messages: a field error with the same code, worded by svcbase (e.g. which relation ids are missing, where an index or view query is wrong)',
  },
  {
    step: ANY,
    line: /^body\.data\.[\w.]+\.params: \(absent\) → \{"missing":\[/,
    reason:
      'precise 400 messages: a relation error lists the ids it did not find (`params.missing`)',
  },
  {
    step: ANY,
    line: /^body\.data\.[\w.]+: \(absent\) → \{"/,
    when: bareBadRequest,
    reason:
      'precise 400 messages: svcbase puts the error on the field where PocketBase answers a generic "failed to load" 400 with no field errors',
  },
  {
    step: /^lists \/ (sort absent|sort: |no params)$/,
    line: /^body\.items\(order of (id|name)\): /,
    reason:
      'SPEC 4.2: a list without `sort` is sorted by `-created` (PocketBase returns rows in storage order)',
  },
  {
    step: /^lists \/ perPage (501|1000|1001|huge)$/,
    line: /^body\.perPage: \d+ → 500$/,
    reason: 'SPEC §8: at most 500 records per page (PocketBase: 1000)',
  },
  {
    step: /^auth \/ members sort email guest$/,
    line: /^body\.items\(order of id\): /,
    reason:
      'security: a hidden email sorts as empty for a caller who may not see it (PocketBase sorts by the hidden value, which leaks its order)',
  },
  {
    step: /^files \/ (locked public guest|user avatar file|user avatar thumb default)$/,
    line: ANY,
    reason:
      'SPEC 4.4: a file is gated by its collection’s viewRule for every caller (PocketBase serves unprotected files to anyone)',
  },
  {
    step: /^files \/ vault (auth|su) header$/,
    line: ANY,
    reason:
      'SPEC 4.4 rule 1 and §5: a protected file is decided by the viewRule for the caller of the Authorization header too (PocketBase reads only ?token=)',
  },
  {
    step: /^files \/ list filter system$/,
    line: /^body\.(items\[name=_\w+\]: \(absent\) → |totalItems: |totalPages: |items\(order of name\))/,
    reason:
      'SPEC 2.6: svcbase has system collections of its own (`_api_keys`, `_cron_jobs`, `_webhooks`, …)',
  },
  {
    step: /^admin \/ settings get/,
    line: /^body\.meta\.(appName: "Acme" → "svcbase"|appURL: "http:\/\/localhost:8090" → "http:\/\/127\.0\.0\.1:8090")$/,
    reason: 'SPEC 2.7 leaves the defaults open: svcbase names itself and the address it listens on',
  },
  {
    step: /^admin \/ crons list/,
    line: /^body\[id=__(pb|svc)\w+__\]: /,
    reason:
      'SPEC: `GET /api/crons` lists svcbase’s `__svc…__` jobs (PocketBase’s `__pb…__` ids run them too)',
  },
  {
    step: /^admin \/ backups (storage-info|list keys)$/,
    line: ANY,
    reason:
      'SPEC 4.9: `GET /api/backups/storage-info` is svcbase’s, and backups are listed newest first',
  },
  {
    step: /^admin \/ sql console shape( write)?$/,
    line: ANY,
    reason:
      'SPEC 4.14: `{sql, write}` is svcbase’s console, answered in its own shape; `{query}` is PocketBase’s, answered in PocketBase’s',
  },
  {
    step: /^admin \/ test email no smtp$/,
    line: ANY,
    reason:
      'SPEC: without SMTP, mail goes to the log backend, so a test email succeeds (PocketBase looks for sendmail)',
  },
  {
    step: /^auth \/ request email change$/,
    line: ANY,
    reason:
      'SPEC: without SMTP, mail goes to the log backend, so the request succeeds (PocketBase looks for sendmail)',
  },
  {
    step: /^admin \/ (test email .* closed smtp|apple secret bad key)$/,
    line: /^body\.message: "[^"]*Raw error: \\n/,
    reason: 'the raw error of a failed connection or key is Node’s text, not Go’s',
  },
  {
    step: /^admin \/ settings patch raw null$/,
    line: /^(status|body\.status): 500 → 400$/,
    reason: 'a `null` body is a client error: 400 (PocketBase answers 500)',
  },
  {
    step: /^admin \/ (backups upload truncated zip|backup delete truncated zip)$/,
    line: ANY,
    reason:
      'data integrity: an upload that is not a whole ZIP archive is refused (PocketBase keeps it, and no restore could use it)',
  },
  {
    step: /^admin \/ sql (create|drop) table$/,
    line: /^body\.affectedRows: 1 → 0$/,
    reason: 'PocketBase reports the rows its pooled connection changed last; DDL changes none',
  },
  {
    step: /^admin \/ sql two statements$/,
    line: ANY,
    reason:
      'security: the SQL console checks one statement at a time, so several in one request are refused',
  },
  {
    step: /^admin \/ record (create|delete) trailing junk/,
    line: ANY,
    reason:
      'a JSON body with junk after the document is refused (PocketBase decodes the first value and drops the rest silently)',
  },
  {
    step: /^(files \/ (col name "sqlite_master"|update remove field used by view))$/,
    line: /^body\.message: "Failed to (create|update) collection\. Raw error: /,
    reason:
      'the raw error is SQLite’s own text; svcbase answers the same status without it (on PostgreSQL there is no such text to copy)',
  },
  {
    step: /^admin \/ test s3 empty$/,
    line: ANY,
    reason:
      'SPEC 4.7: `filesystem` defaults to `storage`, so an empty body tests the storage S3 (PocketBase requires the key)',
  },
  {
    step: /^files \/ sys unset system flag$/,
    line: /^body\.fields\[name=email\]\.required: false → true$/,
    reason:
      'SPEC 2.3: a field sent without some options keeps the stored ones (PocketBase replaces the field whole and resets them)',
  },
  {
    step: /^files \/ update type change$/,
    line: /^body\.data\.\w+: \{.*\} → \(absent\)$/,
    reason:
      'a type change is refused by its own error (`validation_collection_type_change`, SPEC 2.2); svcbase does not add, as PocketBase does, required-option errors of the other type',
  },
  {
    step: /^admin \/ sql /,
    line: ANY,
    engines: ['postgres'],
    reason:
      "on PostgreSQL the SQL console speaks PostgreSQL: the corpus’s SQLite statements (an INTEGER PRIMARY KEY that numbers itself, a CTE without RECURSIVE, x'41' blobs, SQLite’s error texts and declared types) answer as PostgreSQL does, and what follows from them",
  },
]

export function allowedBy(d: Difference): Allowed | undefined {
  return ALLOWED.find(
    (a) =>
      a.step.test(`${d.group} / ${d.step}`) &&
      a.line.test(d.line) &&
      (!a.when || (d.pb !== undefined && a.when(d.pb))),
  )
}
