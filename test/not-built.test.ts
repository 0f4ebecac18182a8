import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NOT_BUILT } from '../src/features/not-built/index.js'
import { startServer, type TestServer } from './helpers/server.js'

describe('features not built yet', () => {
  let t: TestServer
  beforeAll(async () => {
    t = await startServer()
  })
  afterAll(() => t.close())

  const concrete = (path: string) =>
    path.replace(':collection', 'users').replace('*', 'something/deeper')

  it.each(NOT_BUILT.flatMap((m) => m.paths.map((p) => [m.feature, p] as const)))(
    '%s: %s answers 501 naming the feature, for every method',
    async (feature, path) => {
      for (const method of ['GET', 'POST', 'DELETE']) {
        const res = await t.api(method, concrete(path), { token: t.suToken })
        expect(res.status, `${method} ${path}`).toBe(501)
        expect(res.body).toEqual({
          code: 501,
          status: 501,
          message: `${feature}: not built yet in svcbase (see the README, "Not built yet").`,
          data: {},
        })
      }
    },
  )

  it('leaves built routes and unknown paths alone', async () => {
    expect((await t.api('GET', '/api/health')).status).toBe(200)
    expect(
      (await t.api('POST', '/api/settings/test/email', { token: t.suToken, body: {} })).status,
    ).toBe(400)
    expect((await t.api('GET', '/api/nothing-here')).status).toBe(404)
    expect(
      (await t.api('GET', '/api/collections/users/records', { token: t.suToken })).status,
    ).toBe(200)
  })
})
