/**
 * PocketBase's realtime, settings, file, batch and backup hooks in a `*.pb.js` file
 * (`onRealtimeConnectRequest`, `onRealtimeSubscribeRequest`, `onRealtimeMessageSend`,
 * `onSettingsListRequest`, `onSettingsUpdateRequest`, `onSettingsReload`,
 * `onFileDownloadRequest`, `onFileTokenRequest`, `onBatchRequest`, `onBackupCreate`,
 * `onBackupRestore`): the same `featurehooks.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/featurehooks.json`, recorded by
 * `test/pocketbase/hooks/record-featurehooks.ts`) and here answers alike, step after step,
 * a realtime client's messages included. A family whose feature is off fails the file at load.
 */
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { until } from './helpers/backups.js'
import {
  featureHooksSteps,
  type FeatureContext,
  type FeatureRecording,
} from './pocketbase/hooks/cases-featurehooks.js'
import { runStep } from './pocketbase/hooks/run-featurehooks.js'

const here = join(dirname(fileURLToPath(import.meta.url)), 'pocketbase', 'hooks')
const recorded = JSON.parse(
  readFileSync(join(here, 'featurehooks.json'), 'utf8'),
) as FeatureRecording
const source = readFileSync(join(here, 'featurehooks.pb.js'), 'utf8')

describe("PocketBase's realtime, settings, file, batch and backup hooks in *.pb.js files", () => {
  let s: HooksServer
  const ctx: FeatureContext = { records: {} }
  beforeAll(async () => {
    s = await startHooksServer({ 'featurehooks.pb.js': source })
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  it('has a recording of every step', () => {
    expect(recorded.answers.map((a) => a.name)).toEqual(featureHooksSteps.map(nameOf))
  })

  // In order: each step sees what the ones before it did.
  it.each(featureHooksSteps.map((step, i) => [nameOf(step), i] as const))('%s', async (_n, i) => {
    const svc = await runStep(s.url, featureHooksSteps[i]!, ctx)
    expect(svc).toEqual(recorded.answers[i])
  })
})

describe('a feature hook whose feature is off', () => {
  it('fails the file at load, naming the hook, its line and the feature', async () => {
    const file =
      "routerAdd('GET', '/x', (e) => e.string(200, 'x'))\n\nonBackupCreate((e) => e.next())\n"
    const s = await startHooksServer({ 'off.pb.js': file }, { disable: ['backups'] })
    try {
      const listing = await s.api('GET', '/api/functions', { token: s.suToken })
      expect(listing.body.errors).toEqual([
        expect.objectContaining({
          file: 'off.pb.js',
          line: 3,
          message: expect.stringContaining('"onBackupCreate" cannot be bound: the backups feature'),
        }),
      ])
      // Nothing of the file is bound.
      expect((await s.api('GET', '/x')).status).toBe(404)
    } finally {
      await s.close()
    }
  })
})

// svcbase only: PocketBase's restore restarts its process, which the recorder cannot follow.
describe('an onBackupRestore handler calling e.next()', () => {
  it('restores the archive: the server then serves its data; without it nothing changes', async () => {
    const file =
      "onBackupRestore((e) => {\n  console.log('restoring ' + e.name)\n  if (e.name === 'keep.zip') return\n  e.next()\n})\n"
    const s = await startHooksServer({ 'restore.pb.js': file })
    try {
      const su = { token: s.suToken }
      const notes = {
        name: 'notes',
        type: 'base',
        listRule: '',
        createRule: '',
        fields: [{ name: 'title', type: 'text' }],
      }
      expect((await s.api('POST', '/api/collections', { ...su, body: notes })).status).toBe(200)
      const note = (title: string) =>
        s.api('POST', '/api/collections/notes/records', { body: { title } })
      expect((await note('before')).status).toBe(200)
      expect(
        (await s.api('POST', '/api/backups', { ...su, body: { name: 'one.zip' } })).status,
      ).toBe(204)
      expect((await note('after')).status).toBe(200)
      const old = s.server.app
      expect((await s.api('POST', '/api/backups/one.zip/restore', su)).status).toBe(204)
      await until(() => s.server.app !== old && s.server.app.isBootstrapped)
      const list = await s.api('GET', '/api/collections/notes/records?fields=title')
      expect(list.body.items).toEqual([{ title: 'before' }])
      expect(s.logs.some((l) => l.message === 'restoring one.zip')).toBe(true)
      // A handler that does not call e.next(): the 204, and the data stays as it is.
      expect(
        (await s.api('POST', '/api/backups', { ...su, body: { name: 'keep.zip' } })).status,
      ).toBe(204)
      expect((await note('later')).status).toBe(200)
      const current = s.server.app
      expect((await s.api('POST', '/api/backups/keep.zip/restore', su)).status).toBe(204)
      await until(() => s.logs.some((l) => l.message === 'restoring keep.zip'))
      await new Promise((r) => setTimeout(r, 500))
      expect(s.server.app).toBe(current)
      const after = await s.api('GET', '/api/collections/notes/records?fields=title&sort=title')
      expect(after.body.items).toEqual([{ title: 'before' }, { title: 'later' }])
    } finally {
      await s.close()
    }
  })
})

// svcbase only: PocketBase 0.40.4 has no onBackupDelete (svcbase's, around every deletion).
describe('onBackupDelete, and the audit rows of backups a handler skipped', () => {
  it('keeps an archive a handler does not let go, and audits only what was done', async () => {
    const file = [
      "onBackupDelete((e) => {\n  console.log('deleting ' + e.name)\n  if (e.name === 'keep.zip') return\n  e.next()\n})\n",
      "onBackupCreate((e) => {\n  if (e.name === 'never.zip') return\n  e.next()\n})\n",
    ].join('')
    const s = await startHooksServer({ 'delete.pb.js': file })
    try {
      const su = { token: s.suToken }
      for (const name of ['keep.zip', 'gone.zip', 'never.zip']) {
        const res = await s.api('POST', '/api/backups', { ...su, body: { name } })
        expect(res.status).toBe(204)
      }
      for (const name of ['keep.zip', 'gone.zip']) {
        expect((await s.api('DELETE', `/api/backups/${name}`, su)).status).toBe(204)
      }
      const keys = (await s.api('GET', '/api/backups', su)).body.map((b: { key: string }) => b.key)
      expect(keys).toEqual(['keep.zip'])
      expect(s.logs.filter((l) => l.message.startsWith('deleting ')).map((l) => l.message)).toEqual(
        ['deleting keep.zip', 'deleting gone.zip'],
      )
      const filter = encodeURIComponent("action ~ 'backup.'")
      const rows = await s.api('GET', `/api/collections/_audit_log/records?filter=${filter}`, su)
      const done = rows.body.items.map((r: Record<string, string>) => [r.action, r.recordId])
      expect(done.sort()).toEqual([
        ['backup.create', 'gone.zip'],
        ['backup.create', 'keep.zip'],
        ['backup.delete', 'gone.zip'],
      ])
      expect(rows.body.items[0].actorCollection).toBe('_superusers')
    } finally {
      await s.close()
    }
  })
})

function nameOf(step: (typeof featureHooksSteps)[number]): string {
  return step.kind === 'http' ? step.case.name : step.name
}
