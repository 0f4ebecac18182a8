/**
 * The `featurehooks` suite: PocketBase's realtime, settings, file, batch and backup hooks
 * (`featurehooks.pb.js`), step by step. Besides plain requests (`ask.ts`), a step may upload a
 * file (multipart), download one (its body and the file name its headers give), or open a
 * realtime stream, subscribe and record what the subscribed client receives
 * (`run-featurehooks.ts` runs a step). The recorder (`record-featurehooks.ts`) runs the steps
 * against PocketBase 0.40.4, the test (`test/hook-scripts-pb-featurehooks.test.ts`) against
 * svcbase, and the answers must match.
 */
import { SU, type HookCase } from './cases.js'

/** A file uploaded into a new `notes` record (as the superuser), its id kept as `ref`. */
export interface UploadStep {
  kind: 'upload'
  name: string
  ref: string
  title: string
  file: { name: string; text: string }
}

/** A download of record `ref`'s `doc`, with a query (`{ref}` in it is a kept record's id). */
export interface DownloadStep {
  kind: 'download'
  name: string
  ref: string
  query?: string
}

/** A realtime client: connect (with headers), subscribe in turn, then requests, then read. */
export interface RealtimeStep {
  kind: 'realtime'
  name: string
  headers?: Record<string, string>
  subscribe?: string[][]
  then?: HookCase[]
  /** How many messages the client gets (waited for). */
  receive?: number
}

/** A plain request (`{ref}` in its path is a kept record's id). */
export interface HttpStep {
  kind: 'http'
  case: HookCase
}

export type FeatureStep = UploadStep | DownloadStep | RealtimeStep | HttpStep

/** The answer to one step, as recorded. */
export interface FeatureAnswer {
  name: string
  [key: string]: unknown
}

export interface FeatureRecording {
  oracle: string
  recorded: string
  suite: string
  answers: FeatureAnswer[]
}

/** What a run keeps between steps: the records made, by ref. */
export interface FeatureContext {
  records: Record<string, { id: string; doc: string }>
}

const NOTES = {
  name: 'notes',
  type: 'base',
  listRule: '',
  viewRule: '',
  createRule: '',
  fields: [
    { name: 'title', type: 'text' },
    { name: 'doc', type: 'file', maxSelect: 1, maxSize: 100000 },
  ],
}

const SEEN = { name: 'seen', type: 'base', fields: [{ name: 'what', type: 'text' }] }

const http = (c: HookCase): HttpStep => ({ kind: 'http', case: c })
const su = (c: Omit<HookCase, 'auth'>): HttpStep => http({ ...c, auth: SU })
const seen = (name: string, wait = 0): HttpStep =>
  http({ name, method: 'GET', path: '/seen', ...(wait ? { wait } : {}) })
const note = (title: string): HookCase => ({
  name: `create ${title}`,
  method: 'POST',
  path: '/api/collections/notes/records',
  send: { title },
  keep: ['title'],
})
const backup = (name: string, body: unknown): HttpStep =>
  su({ name, method: 'POST', path: '/api/backups', send: body })

export const featureHooksSteps: FeatureStep[] = [
  su({
    name: 'create notes',
    method: 'POST',
    path: '/api/collections',
    send: NOTES,
    keep: ['name'],
  }),
  su({
    name: 'name the app',
    method: 'PATCH',
    path: '/api/settings',
    send: { meta: { appName: 'Acme' } },
    keep: ['meta.appName'],
  }),
  su({ name: 'create seen', method: 'POST', path: '/api/collections', send: SEEN, keep: ['name'] }),
  seen('nothing seen yet'),
  // settings
  su({ name: 'settings list', method: 'GET', path: '/api/settings', keep: ['meta.appName'] }),
  su({
    name: 'settings list renamed',
    method: 'GET',
    path: '/api/settings?rename=1',
    keep: ['meta.appName'],
  }),
  su({
    name: 'settings list answered by the handler',
    method: 'GET',
    path: '/api/settings?stop=1',
  }),
  su({
    name: 'settings update with a suffix',
    method: 'PATCH',
    path: '/api/settings?suffix=%20(hooked)',
    send: { meta: { appName: 'Shop' } },
    keep: ['meta.appName', 'meta.hideControls', 'meta.senderName'],
  }),
  seen('reloaded once', 300),
  su({
    name: 'settings update of a key not sent',
    method: 'PATCH',
    path: '/api/settings?hide=1',
    send: { meta: { senderName: 'Desk' } },
    keep: ['meta.appName', 'meta.hideControls', 'meta.senderName'],
  }),
  su({
    name: 'settings update answered by the handler',
    method: 'PATCH',
    path: '/api/settings?stop=1',
    send: { meta: { appName: 'Other' } },
  }),
  su({
    name: 'settings update the handler made invalid',
    method: 'PATCH',
    path: '/api/settings?blank=1',
    send: { meta: { appName: 'Fine' } },
  }),
  su({
    name: 'settings after',
    method: 'GET',
    path: '/api/settings',
    keep: ['meta.appName', 'meta.hideControls', 'meta.senderName'],
  }),
  seen('reloaded after each save', 300),
  su({
    name: 'enable batch',
    method: 'PATCH',
    path: '/api/settings',
    send: { batch: { enabled: true } },
    keep: ['batch.enabled'],
  }),
  seen('reloaded after enabling batch', 300),
  // files
  {
    kind: 'upload',
    name: 'upload first',
    ref: 'a',
    title: 'first',
    file: { name: 'a.txt', text: 'first file\n' },
  },
  {
    kind: 'upload',
    name: 'upload second',
    ref: 'b',
    title: 'second',
    file: { name: 'b.txt', text: 'second file\n' },
  },
  { kind: 'download', name: 'download', ref: 'a' },
  { kind: 'download', name: 'download renamed', ref: 'a', query: 'rename=renamed.txt' },
  { kind: 'download', name: 'download of another path', ref: 'a', query: 'other={b}' },
  { kind: 'download', name: 'download answered by the handler', ref: 'a', query: 'stop=1' },
  {
    kind: 'download',
    name: 'download of a thumb that cannot be made',
    ref: 'a',
    query: 'stop=1&thumb=10x10',
  },
  su({ name: 'file token', method: 'POST', path: '/api/files/token', keep: [] }),
  su({ name: 'file token replaced', method: 'POST', path: '/api/files/token?replace=x' }),
  su({ name: 'file token of a tagged handler', method: 'POST', path: '/api/files/token?tagged=1' }),
  su({
    name: 'file token answered by the handler',
    method: 'POST',
    path: '/api/files/token?stop=1',
  }),
  http({ name: 'file token of a guest', method: 'POST', path: '/api/files/token?replace=x' }),
  // batch
  http({
    name: 'batch',
    method: 'POST',
    path: '/api/batch',
    send: {
      requests: [
        { method: 'POST', url: '/api/collections/notes/records', body: { title: 'as sent' } },
      ],
    },
    keep: ['0.status', '0.body.title'],
  }),
  http({
    name: 'batch retitled',
    method: 'POST',
    path: '/api/batch?retitle=from%20hook',
    send: {
      requests: [
        { method: 'POST', url: '/api/collections/notes/records', body: { title: 'one' } },
        { method: 'POST', url: '/api/collections/notes/records', body: { title: 'two' } },
      ],
    },
    keep: ['0.status', '0.body.title', '1.status', '1.body.title'],
  }),
  http({
    name: 'batch replaced by the handler',
    method: 'POST',
    path: '/api/batch?replace=new%20one',
    send: {
      requests: [
        { method: 'POST', url: '/api/collections/notes/records', body: { title: 'dropped' } },
        { method: 'POST', url: '/api/collections/notes/records', body: { title: 'kept' } },
      ],
    },
    keep: ['0.status', '0.body.title', '1.status', '1.body.title', '2.status'],
  }),
  http({
    name: 'batch answered by the handler',
    method: 'POST',
    path: '/api/batch?stop=1',
    send: {
      requests: [
        { method: 'POST', url: '/api/collections/notes/records', body: { title: 'x' } },
        {
          method: 'PATCH',
          url: '/api/collections/notes/records/abc?fields=id',
          body: { title: 'y' },
          headers: { 'X-Tag': 'a' },
        },
      ],
    },
  }),
  http({
    name: 'notes after the batches',
    method: 'GET',
    path: "/api/collections/notes/records?sort=title&fields=title&filter=(doc='')",
    keep: ['items', 'totalItems'],
  }),
  // backups
  backup('backup', { name: 'plain.zip' }),
  backup('backup stopped by the handler', { name: 'skip.zip' }),
  backup('backup renamed by the handler', { name: 'rename.zip' }),
  backup('backup with a bad name', { name: 'Bad Name' }),
  backup('backup for a restore', { name: 'norestore.zip' }),
  { kind: 'http', case: { name: 'backups', method: 'GET', path: '/api/backups', auth: SU } },
  backup('backup with the default name', {}),
  su({
    name: 'restore stopped by the handler',
    method: 'POST',
    path: '/api/backups/norestore.zip/restore',
  }),
  seen('backup hooks seen', 2000),
  http({
    name: 'health after the restore stopped',
    method: 'GET',
    path: '/api/health',
    keep: ['message'],
  }),
  // realtime
  {
    kind: 'realtime',
    name: 'realtime',
    subscribe: [
      ['notes', 'secret'],
      ['notes', 'deny'],
    ],
    then: [note('shown'), note('hidden'), note('shown too')],
    receive: 2,
  },
  seen('subscriptions seen'),
  { kind: 'realtime', name: 'realtime connect refused', headers: { 'x-deny': '1' } },
  { kind: 'realtime', name: 'realtime connect stopped', headers: { 'x-stop': '1' } },
]
