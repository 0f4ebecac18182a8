/**
 * The settings sections of the left sub-navigation: which keys of `GET /api/settings` each one
 * edits and how. A group the server lists but no section names gets a section made from its
 * value (`inferSection`), so a feature's new group is editable without a dashboard change.
 */
import type { Obj } from './model'

/** One input of a section; `path` is dotted from the top of the settings object. */
export type FieldSpec =
  | {
      kind: 'text' | 'url' | 'email' | 'number' | 'color'
      path: string
      label: string
      hint?: string
    }
  | { kind: 'bool'; path: string; label: string; hint?: string }
  | {
      kind: 'select'
      path: string
      label: string
      hint?: string
      options: { value: string | number; label: string }[]
    }
  /** A write-only key: shown as "set" / "not set", never displayed. */
  | { kind: 'secret'; path: string; label: string; hint?: string }
  /** A list of strings, one per line. */
  | { kind: 'list'; path: string; label: string; hint?: string }
  /** Any JSON value, edited as text. */
  | { kind: 'json'; path: string; label: string; hint?: string }
  /** A sub-heading between inputs. */
  | { kind: 'heading'; path: ''; label: string; hint?: string }

/** A section: its inputs and the extra panel (tests, tables) its id selects in `index.tsx`. */
export interface Section {
  id: string
  title: string
  intro?: string
  fields: FieldSpec[]
  /** Paths the section saves besides its fields' (edited by its extra panel). */
  extraPaths?: string[]
  /** Pages this section links to. */
  links?: { href: string; label: string }[]
}

const h = (label: string, hint?: string): FieldSpec => ({
  kind: 'heading',
  path: '',
  label,
  ...(hint ? { hint } : {}),
})

/** The hand-made sections, in sub-navigation order. */
export const SECTIONS: Section[] = [
  {
    id: 'application',
    title: 'Application',
    fields: [
      { kind: 'text', path: 'meta.appName', label: 'Application name' },
      {
        kind: 'url',
        path: 'meta.appURL',
        label: 'Application URL',
        hint: 'Used in the links of e-mails.',
      },
      {
        kind: 'color',
        path: 'meta.accentColor',
        label: 'Accent colour',
        hint: 'Buttons and links of the dashboard and the public pages.',
      },
      {
        kind: 'bool',
        path: 'meta.hideControls',
        label: 'Hide collection create and edit controls',
      },
    ],
  },
  {
    id: 'mail',
    title: 'Mail',
    intro: 'Without SMTP, e-mails are written to the logs instead of being sent.',
    fields: [
      { kind: 'text', path: 'meta.senderName', label: 'Sender name' },
      { kind: 'email', path: 'meta.senderAddress', label: 'Sender address' },
      { kind: 'bool', path: 'smtp.enabled', label: 'Use SMTP mail server' },
      { kind: 'text', path: 'smtp.host', label: 'SMTP host' },
      { kind: 'number', path: 'smtp.port', label: 'Port' },
      { kind: 'text', path: 'smtp.username', label: 'Username' },
      { kind: 'secret', path: 'smtp.password', label: 'Password' },
      {
        kind: 'select',
        path: 'smtp.authMethod',
        label: 'AUTH method',
        options: [
          { value: '', label: 'Default (PLAIN)' },
          { value: 'PLAIN', label: 'PLAIN' },
          { value: 'LOGIN', label: 'LOGIN' },
        ],
      },
      {
        kind: 'bool',
        path: 'smtp.tls',
        label: 'Always TLS (off: STARTTLS when offered)',
      },
      { kind: 'text', path: 'smtp.localName', label: 'EHLO/HELO domain' },
    ],
  },
  {
    id: 'storage',
    title: 'Files storage',
    intro:
      'Files are kept on the local disk unless S3 is on. Files stored before a switch are not moved.',
    fields: [
      { kind: 'bool', path: 's3.enabled', label: 'Use S3 storage' },
      { kind: 'url', path: 's3.endpoint', label: 'Endpoint' },
      { kind: 'text', path: 's3.bucket', label: 'Bucket' },
      { kind: 'text', path: 's3.region', label: 'Region' },
      { kind: 'text', path: 's3.accessKey', label: 'Access key' },
      { kind: 'secret', path: 's3.secret', label: 'Secret' },
      { kind: 'bool', path: 's3.forcePathStyle', label: 'Force path-style addressing' },
    ],
    links: [{ href: '#/storage', label: 'Browse the stored files' }],
  },
  {
    id: 'backups',
    title: 'Backups',
    fields: [
      {
        kind: 'text',
        path: 'backups.cron',
        label: 'Automatic backups (cron expression, UTC)',
        hint: 'Empty: no automatic backups. E.g. 0 0 * * * or @daily.',
      },
      { kind: 'number', path: 'backups.cronMaxKeep', label: 'Automatic backups to keep' },
      h('Store backups in S3'),
      { kind: 'bool', path: 'backups.s3.enabled', label: 'Store backups in S3' },
      { kind: 'url', path: 'backups.s3.endpoint', label: 'Endpoint' },
      { kind: 'text', path: 'backups.s3.bucket', label: 'Bucket' },
      { kind: 'text', path: 'backups.s3.region', label: 'Region' },
      { kind: 'text', path: 'backups.s3.accessKey', label: 'Access key' },
      { kind: 'secret', path: 'backups.s3.secret', label: 'Secret' },
      { kind: 'bool', path: 'backups.s3.forcePathStyle', label: 'Force path-style addressing' },
    ],
    links: [{ href: '#/backups', label: 'Backups: create, download, restore' }],
  },
  {
    id: 'logs',
    title: 'Logs',
    fields: [
      {
        kind: 'number',
        path: 'logs.maxDays',
        label: 'Keep logs for (days)',
        hint: '0 turns request logging off.',
      },
      {
        kind: 'select',
        path: 'logs.minLevel',
        label: 'Lowest level kept',
        options: [
          { value: -4, label: 'Debug (-4)' },
          { value: 0, label: 'Info (0)' },
          { value: 4, label: 'Warning (4)' },
          { value: 8, label: 'Error (8)' },
        ],
      },
      { kind: 'bool', path: 'logs.logIP', label: 'Log the client IP' },
      { kind: 'bool', path: 'logs.logAuthId', label: 'Log the auth record id' },
      {
        kind: 'number',
        path: 'logs.maxDataSize',
        label: 'Largest log data (bytes, 0 = no limit)',
      },
    ],
    links: [{ href: '#/logs', label: 'Open the logs' }],
  },
  {
    id: 'rate-limits',
    title: 'Rate limits',
    intro:
      'Labels: a path prefix (/api/), METHOD /path, or collection:action tags (*:create, posts:list). Superusers are never limited.',
    fields: [
      { kind: 'bool', path: 'rateLimits.enabled', label: 'Enable rate limiting' },
      {
        kind: 'list',
        path: 'rateLimits.excludedIPs',
        label: 'Excluded IPs and CIDRs',
        hint: 'One per line.',
      },
    ],
    extraPaths: ['rateLimits.rules'],
  },
  {
    id: 'superuser-ips',
    title: 'Superuser IPs',
    intro:
      'When the list is not empty, superusers can sign in and act only from these IPs and CIDRs. Check that yours is in it before saving, or you lock yourself out.',
    fields: [{ kind: 'list', path: 'superuserIPs', label: 'Allowed IPs', hint: 'One per line.' }],
  },
  {
    id: 'trusted-proxy',
    title: 'Trusted proxy',
    intro:
      'Behind a reverse proxy, name the header carrying the client IP (X-Forwarded-For, Fly-Client-IP, CF-Connecting-IP).',
    fields: [
      { kind: 'list', path: 'trustedProxy.headers', label: 'Headers', hint: 'One per line.' },
      {
        kind: 'bool',
        path: 'trustedProxy.useLeftmostIP',
        label: 'Use the leftmost IP (off: the rightmost)',
      },
    ],
  },
  {
    id: 'batch',
    title: 'Batch API',
    fields: [
      { kind: 'bool', path: 'batch.enabled', label: 'Enable the batch API' },
      { kind: 'number', path: 'batch.maxRequests', label: 'Largest batch (requests)' },
      { kind: 'number', path: 'batch.timeout', label: 'Longest processing time (seconds)' },
      {
        kind: 'number',
        path: 'batch.maxBodySize',
        label: 'Largest body (bytes, 0 = default)',
      },
    ],
  },
  {
    id: 'push',
    title: 'Push',
    fields: [
      h('Web Push (VAPID)'),
      { kind: 'bool', path: 'push.vapid.enabled', label: 'Enable Web Push' },
      { kind: 'text', path: 'push.vapid.publicKey', label: 'VAPID public key' },
      { kind: 'secret', path: 'push.vapid.privateKey', label: 'VAPID private key' },
      { kind: 'text', path: 'push.vapid.subject', label: 'Subject (mailto: or https:)' },
      h('Firebase Cloud Messaging'),
      { kind: 'bool', path: 'push.fcm.enabled', label: 'Enable FCM' },
      { kind: 'secret', path: 'push.fcm.serviceAccountJson', label: 'Service account JSON' },
      { kind: 'url', path: 'push.fcm.apiUrl', label: 'FCM API URL' },
      { kind: 'url', path: 'push.fcm.tokenUrl', label: 'Token URL (empty: Google)' },
      h('Apple Push Notification service'),
      { kind: 'bool', path: 'push.apns.enabled', label: 'Enable APNs' },
      { kind: 'text', path: 'push.apns.keyId', label: 'Key ID' },
      { kind: 'text', path: 'push.apns.teamId', label: 'Team ID' },
      { kind: 'text', path: 'push.apns.bundleId', label: 'Bundle ID' },
      { kind: 'secret', path: 'push.apns.key', label: 'Signing key (.p8)' },
      { kind: 'bool', path: 'push.apns.production', label: 'Production environment' },
      { kind: 'url', path: 'push.apns.apiUrl', label: 'API URL (empty: Apple)' },
      h('Triggers'),
      {
        kind: 'json',
        path: 'push.triggers',
        label: 'Triggers (JSON)',
        hint: 'A list of {enabled, collection, events, title, body, targetField}.',
      },
    ],
  },
  {
    id: 'sms',
    title: 'SMS',
    fields: [
      { kind: 'bool', path: 'sms.enabled', label: 'Send SMS through Twilio' },
      { kind: 'text', path: 'sms.accountSid', label: 'Account SID' },
      { kind: 'secret', path: 'sms.authToken', label: 'Auth token' },
      { kind: 'text', path: 'sms.fromNumber', label: 'From number (E.164)' },
      { kind: 'url', path: 'sms.apiUrl', label: 'API URL' },
    ],
  },
  {
    id: 'llm',
    title: 'LLM gateway',
    intro: 'While disabled, a network-free echo provider answers.',
    fields: [
      { kind: 'bool', path: 'llm.enabled', label: 'Enable the LLM provider' },
      { kind: 'text', path: 'llm.provider', label: 'Provider' },
      { kind: 'url', path: 'llm.baseUrl', label: 'Base URL' },
      { kind: 'secret', path: 'llm.apiKey', label: 'API key' },
      { kind: 'text', path: 'llm.model', label: 'Chat model' },
      { kind: 'text', path: 'llm.embeddingModel', label: 'Embedding model' },
      { kind: 'number', path: 'llm.timeout', label: 'Timeout (seconds)' },
    ],
  },
  {
    id: 'webhooks',
    title: 'Webhooks',
    fields: [
      {
        kind: 'bool',
        path: 'webhooks.allowPrivateNetworks',
        label: 'Allow deliveries to private and loopback addresses',
      },
      { kind: 'number', path: 'webhooks.timeout', label: 'Timeout per attempt (seconds)' },
      { kind: 'number', path: 'webhooks.maxAttempts', label: 'Attempts per delivery' },
    ],
    links: [{ href: '#/webhooks', label: 'Manage webhooks and see their deliveries' }],
  },
  {
    id: 'oauth2',
    title: 'OAuth2',
    fields: [
      {
        kind: 'bool',
        path: 'oauth2.allowPrivateNetworks',
        label: 'Allow avatar downloads from private networks',
      },
    ],
  },
  {
    id: 'audit',
    title: 'Audit log',
    fields: [
      { kind: 'number', path: 'audit.maxDays', label: 'Keep audit rows for (days, 0 = forever)' },
    ],
  },
  {
    id: 'payments',
    title: 'Payments',
    fields: [{ kind: 'secret', path: 'payments.webhookSecret', label: 'Webhook signing secret' }],
  },
]

/** The top-level keys the hand-made sections cover. */
const covered = new Set(
  SECTIONS.flatMap((s) => [...s.fields, ...(s.extraPaths ?? []).map((path) => ({ path }))])
    .map((f) => f.path.split('.')[0])
    .filter(Boolean),
)

const title = (key: string) =>
  key.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/^./, (c) => c.toUpperCase())

/** The fields of a value: one per scalar key, JSON text for lists and nested objects. */
function inferFields(value: unknown, path: string, secrets: readonly string[]): FieldSpec[] {
  const label = title(path.split('.').pop() ?? path)
  if (typeof value === 'boolean') return [{ kind: 'bool', path, label }]
  if (typeof value === 'number') return [{ kind: 'number', path, label }]
  if (typeof value === 'string') return [{ kind: 'text', path, label }]
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    const out = Object.entries(value as Obj).flatMap(([k, v]) =>
      inferFields(v, `${path}.${k}`, secrets),
    )
    for (const s of secrets)
      if (s.startsWith(`${path}.`) && s.split('.').length === path.split('.').length + 1)
        out.push({ kind: 'secret', path: s, label: title(s.split('.').pop()!) })
    return out
  }
  return [{ kind: 'json', path, label }]
}

/** Sections for the groups of `settings` no hand-made section covers. */
export function inferSections(settings: Obj, secrets: readonly string[]): Section[] {
  return Object.keys(settings)
    .filter((key) => !covered.has(key))
    .map((key) => ({
      id: `group-${key}`,
      title: title(key),
      fields: inferFields(settings[key], key, secrets),
    }))
}

/** Every path a section saves. */
export const sectionPaths = (s: Section): string[] => [
  ...s.fields.filter((f) => f.kind !== 'heading').map((f) => f.path),
  ...(s.extraPaths ?? []),
]

/** The pages "More" links to. */
export const MORE_LINKS: { href: string; label: string }[] = [
  { href: '#/api-keys', label: 'API keys' },
  { href: '#/webhooks', label: 'Webhooks' },
  { href: '#/backups', label: 'Backups' },
  { href: '#/crons', label: 'Crons' },
  { href: '#/sql', label: 'SQL console' },
  { href: '#/storage', label: 'Files storage browser' },
  { href: '#/settings-export', label: 'Export collections' },
  { href: '#/settings-import', label: 'Import collections' },
  { href: '#/mcp', label: 'MCP playground' },
]
