/**
 * Hook scripts that fail to load (issue 13 part 4): each is logged and listed with its file,
 * line and column, what it bound before failing is unbound, the server starts and the other
 * scripts work.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  'a-good.js': `export default (app) => {
  app.routerAdd('GET', '/api/good', (e) => e.json(200, { ok: true }))
}
`,
  'b-syntax.js': `export default (app) => {
  app.routerAdd('GET', '/api/syntax', (e) => e.json(200, {}))
  const x = ;
}
`,
  'c-half.ts': `export default (app: any) => {
  app.routerAdd('GET', '/api/half', (e: any) => e.json(200, {}))
  app.routerUse(async (e: any) => { e.json(500, { leaked: true }) })
  app.onRecordCreate((e: any) => e.next())
  app.cronAdd('half-job', '@daily', () => {})
  throw new Error('failed after binding')
}
`,
  'd-package.mjs': `// a package nobody installed
import missing from 'no-such-package-svcbase'
export default (app) => { missing(app) }
`,
  'e-cron.js': `export default (app) => {
  app.routerAdd('GET', '/api/cron-file', (e) => e.json(200, {}))

  app.cronAdd('bad-expression', 'not a cron', () => {})
}
`,
  'f-no-default.js': `export const x = 1
`,
  'g-relative.ts': `import { nothing } from './lib/nothing.js'
export default (app: any) => nothing(app)
`,
  'h-deep.ts': `import { explode } from './lib/explode.js'
export default (app: any) => {
  explode()
}
`,
  'lib/explode.ts': `// a helper that throws
export function explode(): never {
  throw new TypeError('exploded in a helper')
}
`,
  'i-async.js': `export default async (app) => {
  await new Promise((r) => setTimeout(r, 5))
  app.routerAdd('GET', '/api/async', (e) => e.json(200, { async: true }))
}
`,
  'j-duplicate.js': `export default (app) => {
  app.routerAdd('GET', '/api/good', (e) => e.json(200, { second: true }))
}
`,
  'k-bad-route.js': `export default (app) => {
  app.routerAdd('GET', 'no-slash', () => {})
}
`,
}

describe('hook scripts that fail to load', () => {
  let t: HooksServer
  let errors: { file: string; line: number | null; column: number | null; message: string }[]

  beforeAll(async () => {
    t = await startHooksServer(files)
    const res = await t.api('GET', '/api/functions', { token: t.suToken })
    expect(res.status).toBe(200)
    errors = res.body.errors
  })
  afterAll(() => t.close())

  const failure = (file: string) => errors.find((e) => e.file === file)

  it('starts the server, and the other scripts work, async ones included', async () => {
    expect((await t.api('GET', '/api/health')).status).toBe(200)
    expect((await t.api('GET', '/api/good')).body).toEqual({ ok: true })
    expect((await t.api('GET', '/api/async')).body).toEqual({ async: true })
    expect(errors.map((e) => e.file)).toEqual([
      'b-syntax.js',
      'c-half.ts',
      'd-package.mjs',
      'e-cron.js',
      'f-no-default.js',
      'g-relative.ts',
      'h-deep.ts',
      'j-duplicate.js',
      'k-bad-route.js',
    ])
  })

  it('reports a syntax error with its line and column', async () => {
    expect(failure('b-syntax.js')).toEqual({
      file: 'b-syntax.js',
      line: 3,
      column: 13,
      message: 'Unexpected ";"',
    })
    expect((await t.api('GET', '/api/syntax')).status).toBe(404)
  })

  it('reports a throw in the default export with its line, and unbinds what the file bound', async () => {
    expect(failure('c-half.ts')).toEqual({
      file: 'c-half.ts',
      line: 6,
      column: 9,
      message: 'failed after binding',
    })
    expect((await t.api('GET', '/api/half')).status).toBe(404)
    // its global middleware would answer 500 for every route: it is gone
    expect((await t.api('GET', '/api/good')).status).toBe(200)
    const own = t.server.app.hooks.onRecordCreate.ids().filter((id) => !id.startsWith('__svc'))
    expect(own).toEqual([])
    expect(t.server.app.cron.list().map((j) => j.id)).not.toContain('half-job')
  })

  it('reports a package that cannot be imported at the line of its import', () => {
    const f = failure('d-package.mjs')
    expect(f).toMatchObject({ file: 'd-package.mjs', line: 2, column: 1 })
    expect(f?.message).toContain("Cannot find package 'no-such-package-svcbase'")
    expect(f?.message).not.toContain('.svc_cache')
  })

  it('reports an invalid cron expression at the line of cronAdd', async () => {
    expect(failure('e-cron.js')).toMatchObject({ file: 'e-cron.js', line: 4 })
    expect((await t.api('GET', '/api/cron-file')).status).toBe(404)
    expect(t.server.app.cron.list().map((j) => j.id)).not.toContain('bad-expression')
  })

  it('reports a missing default export and a missing relative import', () => {
    expect(failure('f-no-default.js')).toMatchObject({
      line: null,
      column: null,
      message: expect.stringContaining('default export is not a function'),
    })
    expect(failure('g-relative.ts')).toMatchObject({
      line: 1,
      column: 25,
      message: expect.stringContaining('./lib/nothing.js'),
    })
  })

  it('reports an error thrown in an imported module at its own file and line', () => {
    expect(failure('h-deep.ts')).toEqual({
      file: 'h-deep.ts',
      source: 'lib/explode.ts',
      line: 3,
      column: 9,
      message: 'exploded in a helper',
    })
  })

  it('refuses a route another script added, and an invalid pattern', () => {
    expect(failure('j-duplicate.js')?.message).toMatch(/GET \/api\/good is already added/)
    expect(failure('k-bad-route.js')).toMatchObject({
      line: 2,
      message: expect.stringContaining('must start with "/"'),
    })
  })

  it('logs each failure as an error naming file:line:column', () => {
    const lines = t.logs.filter((l) => l.level === 'error').map((l) => l.message)
    expect(lines).toContainEqual(
      expect.stringMatching(/^hook script b-syntax\.js:3:13 failed to load: /),
    )
    expect(lines).toContainEqual(
      expect.stringMatching(/^hook script lib\/explode\.ts:3:9 failed to load: exploded/),
    )
    expect(lines).toHaveLength(errors.length)
    const summary = t.logs.find((l) => l.message === 'hook scripts loaded')
    expect(summary?.data).toMatchObject({ loaded: 2, failed: errors.length })
  })
})
