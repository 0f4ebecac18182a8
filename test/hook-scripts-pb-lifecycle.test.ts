/**
 * `onBootstrap`, `onTerminate`, `onBootstrapClear`, the execute, validate and after-error hooks
 * of records and collections, and the model hooks (`onModel…`, for records and collections) in
 * `*.pb.js` files: the same `lifecycle.pb.js` ran on PocketBase 0.40.4
 * (`test/pocketbase/hooks/lifecycle.json`, recorded by `test/pocketbase/hooks/record.ts`) and
 * here answers alike, request after request: every handler writes a row of `log`, so the order
 * of the handlers and what their events carry (`e.type`, `e.model`, `e.error`) are compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { lifecycleSuite } from './pocketbase/hooks/cases-lifecycle.js'
import type { HookAnswer } from './pocketbase/hooks/cases.js'
import { recording, replay, startSuiteServer } from './pocketbase/hooks/replay.js'

const recorded = recording(lifecycleSuite)

/** The log rows of the after-error hooks (fired after the rollback). */
const errorRows = (body: unknown): unknown =>
  (body as string[]).filter((row) => / on\w+After\w+Error | onModelAfter\w+Error /.test(` ${row} `))

/**
 * Where svcbase answers otherwise, on purpose (docs/hook-scripts.md): what svcbase answers
 * instead, derived from PocketBase's answer, and why.
 */
const ALLOWED: Record<string, { expect: (pb: HookAnswer) => Partial<HookAnswer>; why: string }> = {
  ...Object.fromEntries(
    [
      'collection create error',
      'record create validation error',
      'record create hook error',
      'record update error',
      'record delete error',
    ].map((name) => [
      `${name}: the handlers in order`,
      {
        expect: (pb: HookAnswer) => ({ status: pb.status, body: errorRows(pb.body) }),
        why: "svcbase runs a write and its model hooks in one transaction: the rows the handlers wrote before it failed roll back with it (PocketBase's single save has no transaction: they stay); the after-error rows are written after the rollback, as PocketBase's",
      },
    ]),
  ),
  'a collection create failing in its execute hook': {
    expect: (pb) => ({
      status: pb.status,
      body: { ...(pb.body as object), message: 'Failed to create collection.' },
    }),
    why: 'PocketBase (not in dev mode) appends "Raw error:" and the script error with its stack to the message; svcbase logs it instead',
  },
}

describe('lifecycle, execute, validate, after-error and model hooks in *.pb.js files, as PocketBase', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(lifecycleSuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('loads the file', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([])
  })

  // In order: each case sees what the ones before it wrote.
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    const svc = await replay(s, pb)
    const allowed = ALLOWED[pb.name]
    if (allowed) expect(svc, allowed.why).toMatchObject(allowed.expect(pb))
    else expect(svc).toEqual(pb)
  })

  it('an in-process restart runs onTerminate (isRestart) and onBootstrap once more', async () => {
    await s.server.app.bootstrap()
    expect((await s.api('GET', '/lc/boot')).body).toEqual({ boots: '2' })
    const users = await s.api('GET', '/api/collections/users/records?filter=name~"terminate"', {
      token: s.suToken,
    })
    expect(users.body.items.map((u: { name: string }) => u.name)).toEqual(['terminate true'])
  })
})

describe('onBootstrap and onServe of *.pb.js files', () => {
  it('onServe is not a global, as in PocketBase: the file fails to load with a ReferenceError', async () => {
    const t = await startHooksServer({
      'serve.pb.js': `onServe((e) => e.next())\n`,
    })
    try {
      const listing = await t.api('GET', '/api/functions', { token: t.suToken })
      expect(listing.body.errors).toMatchObject([
        { file: 'serve.pb.js', line: 1, message: 'onServe is not defined' },
      ])
    } finally {
      await t.close()
    }
  })

  it('a file failing to load leaves no onBootstrap handler; one that throws fails the start', async () => {
    const t = await startHooksServer({
      'a.pb.js': `onBootstrap((e) => { throw new Error("never bound") })\nnotDefined()\n`,
      'b.pb.js': `onBootstrap((e) => { e.next() })\nrouterAdd("GET", "/b", (e) => e.json(200, { ok: true }))\n`,
    })
    try {
      expect((await t.api('GET', '/b')).body).toEqual({ ok: true })
    } finally {
      await t.close()
    }
    await expect(
      startHooksServer({
        'c.pb.js': `onBootstrap((e) => { e.next(); throw new Error("no start") })\n`,
      }),
    ).rejects.toThrow(/no start|Something went wrong/)
  })
})
