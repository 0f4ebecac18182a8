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

function nameOf(step: (typeof featureHooksSteps)[number]): string {
  return step.kind === 'http' ? step.case.name : step.name
}
