/**
 * `--dev` reloads (issue 13 part 4): a change in the hooks dir reloads the scripts without a
 * restart; what the old versions bound is gone, a removed file's route is gone, a broken file is
 * reported while the others run. Without `--dev` nothing is watched.
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const version = (v: number) => `
import { label } from './lib/label.js'
export default (app) => {
  app.routerAdd('GET', '/api/version', (e) => e.json(200, { v: ${v}, label }))
  app.onRecordCreate((e) => e.next())
  app.cronAdd('reload-job', '@daily', () => {})
  app.routerUse((e) => e.next())
}
`

/** Polls `fn` until it returns true (up to 5 s). */
async function eventually(fn: () => Promise<boolean>): Promise<void> {
  const end = Date.now() + 5000
  while (Date.now() < end) {
    if (await fn()) return
    await new Promise((r) => setTimeout(r, 25))
  }
  throw new Error('condition not met within 5 s')
}

describe('hook scripts with --dev', () => {
  let t: HooksServer

  beforeAll(async () => {
    t = await startHooksServer(
      {
        'a-version.js': version(1),
        'b-gone.ts': `export default (app: any) => app.routerAdd('GET', '/api/gone', (e: any) => e.json(200, {}))`,
        'lib/label.js': `export const label = 'first'`,
      },
      { dev: true },
    )
  })
  afterAll(() => t.close())

  const bound = () => ({
    // the script's own handlers: built-in features bind theirs under `__svc…` ids
    hooks: t.server.app.hooks.onRecordCreate.ids().filter((id) => !id.startsWith('__svc')).length,
    jobs: t.server.app.cron.list().filter((j) => j.id === 'reload-job').length,
    middlewares: t.server.app.services.get('hookScripts').middlewares.length,
  })

  it('changes a route when its file changes, without a restart, unbinding the old version', async () => {
    expect((await t.api('GET', '/api/version')).body).toEqual({ v: 1, label: 'first' })
    expect(bound()).toEqual({ hooks: 1, jobs: 1, middlewares: 1 })
    const pid = process.pid
    t.write('a-version.js', version(2))
    await eventually(async () => (await t.api('GET', '/api/version')).body.v === 2)
    expect(bound()).toEqual({ hooks: 1, jobs: 1, middlewares: 1 })
    expect(process.pid).toBe(pid)
  })

  it('reloads when a module a script imports changes', async () => {
    t.write('lib/label.js', `export const label = 'second'`)
    await eventually(async () => (await t.api('GET', '/api/version')).body.label === 'second')
  })

  it('removes the route of a removed file', async () => {
    expect((await t.api('GET', '/api/gone')).status).toBe(200)
    rmSync(join(t.hooksDir, 'b-gone.ts'))
    await eventually(async () => (await t.api('GET', '/api/gone')).status === 404)
    const listing = await t.api('GET', '/api/functions', { token: t.suToken })
    expect(listing.body.files.map((f: { name: string }) => f.name)).toEqual(['a-version.js'])
    expect(listing.body.routes).toEqual([{ method: 'GET', pattern: '/api/version' }])
  })

  it('reports a file broken by a change while the others keep running', async () => {
    t.write(
      'c-new.js',
      `export default (app) => {\n  app.routerAdd('GET', '/api/new', (e) => e.json(200, { fresh: true }))\n}\n`,
    )
    await eventually(async () => (await t.api('GET', '/api/new')).status === 200)
    t.write('c-new.js', `export default (app) => {\n  const broken = ;\n}\n`)
    await eventually(async () => (await t.api('GET', '/api/new')).status === 404)
    const listing = await t.api('GET', '/api/functions', { token: t.suToken })
    expect(listing.body.errors).toEqual([
      { file: 'c-new.js', line: 2, column: 18, message: 'Unexpected ";"' },
    ])
    expect((await t.api('GET', '/api/version')).body.v).toBe(2)
    expect(
      t.logs.some((l) => l.level === 'error' && /^hook script c-new\.js:2:18 /.test(l.message)),
    ).toBe(true)
    // fixed again: the error is gone
    t.write(
      'c-new.js',
      `export default (app) => app.routerAdd('GET', '/api/new', (e) => e.json(200, { fixed: true }))\n`,
    )
    await eventually(async () => (await t.api('GET', '/api/new')).body?.fixed === true)
    expect((await t.api('GET', '/api/functions', { token: t.suToken })).body.errors).toEqual([])
    expect(bound()).toEqual({ hooks: 1, jobs: 1, middlewares: 1 })
  })

  it('does not reload by itself (its own bundle folder is not watched)', async () => {
    const loads = () => t.logs.filter((l) => l.message === 'hook scripts loaded').length
    await new Promise((r) => setTimeout(r, 400))
    const before = loads()
    await new Promise((r) => setTimeout(r, 600))
    expect(loads()).toBe(before)
  })
})

describe('hook scripts without --dev', () => {
  let t: HooksServer
  beforeAll(async () => {
    t = await startHooksServer({
      'a.js': `export default (app) => app.routerAdd('GET', '/api/v', (e) => e.json(200, { v: 1 }))`,
    })
  })
  afterAll(() => t.close())

  it('does not reload on change', async () => {
    t.write(
      'a.js',
      `export default (app) => app.routerAdd('GET', '/api/v', (e) => e.json(200, { v: 2 }))`,
    )
    await new Promise((r) => setTimeout(r, 600))
    expect((await t.api('GET', '/api/v')).body).toEqual({ v: 1 })
  })

  it('loads the scripts again when the app bootstraps again in process (a restore restart)', async () => {
    await t.server.app.bootstrap()
    expect((await t.api('GET', '/api/v')).body).toEqual({ v: 2 })
    expect(t.server.app.services.get('hookScripts').router.list()).toHaveLength(1)
  })
})
