/**
 * A feature's system collections come with it (issue 36): each feature that brings some lists
 * them on its `Feature` (`features/<name>/collections.ts`); with the feature on they are created
 * at bootstrap, with it switched off (`createServer(config, { disable })`) neither the collection
 * nor its table exists. Core's own system collections are there either way.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { builtInFeatures } from '../src/features/index.js'
import { startServer, type TestServer } from './helpers/server.js'

/** The features that bring system collections, with their collections' names. */
const bringing = builtInFeatures()
  .filter((f) => (f.systemCollections ?? []).length > 0)
  .map((f) => ({ name: f.name, collections: f.systemCollections!.map((c) => c.name) }))

const servers: TestServer[] = []
afterAll(async () => {
  for (const t of servers) await t.close()
})

/** Whether `name` is a collection of the server, and whether its table exists in either database. */
async function present(
  t: TestServer,
  name: string,
): Promise<{ collection: boolean; table: boolean }> {
  const app = t.server.app
  const collection = (await t.api('GET', `/api/collections/${name}`, { token: t.suToken })).status
  const table =
    (await app.schema.exists(app.db, name)) || (await app.schema.exists(app.auxDb, name))
  expect([200, 404]).toContain(collection)
  return { collection: collection === 200, table }
}

describe("features' system collections", () => {
  it('are declared by the features that bring them', () => {
    expect(Object.fromEntries(bringing.map((b) => [b.name, b.collections]))).toEqual({
      webhooks: ['_webhooks', '_webhook_outbox'],
      teams: ['_teams', '_team_members'],
      audit: ['_audit_log'],
      push: ['_push_subscriptions'],
      payments: ['_payment_events'],
      llm: ['_llm_usage'],
    })
  })

  it('exist when their feature is on', async () => {
    const t = await startServer()
    servers.push(t)
    for (const { collections } of bringing) {
      for (const name of collections) {
        expect(await present(t, name), name).toEqual({ collection: true, table: true })
      }
    }
  })

  it.each(bringing.map((b) => [b.name, b.collections] as const))(
    'leave no collection and no table with %s switched off',
    async (feature, collections) => {
      const t = await startServer({ disable: [feature] })
      servers.push(t)
      for (const name of collections) {
        expect(await present(t, name), name).toEqual({ collection: false, table: false })
      }
      // Core's own and the other features' are there.
      expect(await present(t, '_superusers')).toEqual({ collection: true, table: true })
      const other = bringing.find((b) => b.name !== feature)!
      expect(await present(t, other.collections[0]!)).toEqual({ collection: true, table: true })
    },
  )
})
