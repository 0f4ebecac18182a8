/**
 * `$http.send` in `*.pb.js` handlers, by replay (src/features/hooks/pb/invocation.ts): the same
 * `http.pb.js` ran on PocketBase 0.40.4 against the same local target server
 * (`test/pocketbase/hooks/http.json`, recorded by `test/pocketbase/hooks/record.ts`) and here
 * answers alike, request after request, the target seeing as many requests; then what svcbase
 * adds: the SSRF guard, the bounds, a handler's console printed once, a script catching the stop.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sendConfigOf } from '../src/features/hooks/pb/http-send.js'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { httpSuite } from './pocketbase/hooks/cases-http.js'
import { recording, replay } from './pocketbase/hooks/replay.js'

const recorded = recording(httpSuite)

/** svcbase-only routes (no oracle answer: what PocketBase lacks or does otherwise). */
const EXTRA = `
routerAdd("GET", "/extra/guarded", (e) => {
  try {
    $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/echo" })
    return e.json(200, { sent: true })
  } catch (err) {
    return e.json(200, { name: err.name, message: err.message.split($os.getenv("PB_HTTP_TARGET")).join("TARGET") })
  }
})
routerAdd("GET", "/extra/many/{n}", (e) => {
  const n = parseInt(e.request.pathValue("n"))
  let last = null
  for (let i = 0; i < n; i++) last = $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/hit" })
  return e.json(200, last.json)
})
routerAdd("GET", "/extra/random", (e) => {
  $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/hit?r=" + Math.random() })
  return e.json(200, {})
})
routerAdd("GET", "/extra/big/{bytes}", (e) => {
  try {
    const res = $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/big?bytes=" + e.request.pathValue("bytes") })
    return e.json(200, { length: res.body.length })
  } catch (err) {
    return e.json(200, { message: err.message.split($os.getenv("PB_HTTP_TARGET")).join("TARGET") })
  }
})
routerAdd("GET", "/extra/swallow", (e) => {
  let res = null
  try {
    res = $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/name?n=swallowed" })
  } catch (err) {
    console.log("caught", String(err))
    return e.json(500, { caught: String(err) })
  }
  console.log("got", res.json.name)
  return e.json(200, res.json)
})
onRecordUpdate((e) => {
  if (e.record.get("name") !== "from the client") return e.next()
  const res = $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/name?n=in the transaction" })
  e.record.set("name", res.json.name)
  e.next()
}, "users")
routerAdd("GET", "/extra/queued", (e) => {
  const rec = new Record($app.findCollectionByNameOrId("users"))
  rec.set("email", "queued@example.com")
  rec.set("password", "password123")
  rec.set("passwordConfirm", "password123")
  $app.save(rec)
  const res = $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/name?n=queued" })
  rec.set("name", res.json.name)
  $app.save(rec)
  return e.json(200, res.json)
})
`

/** A multipart body (PocketBase's `FormData`), which svcbase does not offer. */
const FORM_DATA = `routerAdd("POST", "/extra/form", (e) => {
  const form = new FormData()
  form.append("title", "x")
  return e.json(200, $http.send({ url: $os.getenv("PB_HTTP_TARGET") + "/echo", method: "POST", body: form }).json)
})
`

/** Where svcbase answers otherwise, on purpose (docs/hook-scripts.md). */
const ALLOWED: Record<string, { status: number; why: string }> = {}

describe('$http.send in *.pb.js files, as PocketBase', () => {
  let s: HooksServer
  let stopTarget: () => Promise<void>
  beforeAll(async () => {
    stopTarget = await httpSuite.setup()
    const files: Record<string, string> = {
      'extra.pb.js': EXTRA,
      'formdata.pb.js': FORM_DATA,
    }
    for (const f of httpSuite.files)
      files[f] = readFileSync(join('test/pocketbase/hooks', f), 'utf8')
    s = await startHooksServer(files)
    // The target is on loopback: let the guard through, as the webhooks tests do.
    const set = await s.api('PATCH', '/api/settings', {
      token: s.suToken,
      body: { webhooks: { allowPrivateNetworks: true } },
    })
    expect(set.status).toBe(200)
  })
  afterAll(async () => {
    await s.close()
    await stopTarget()
  })

  it('loads the files; a FormData body (not offered) fails its file at load', async () => {
    const listing = await s.api('GET', '/api/functions', { token: s.suToken })
    expect(listing.body.errors).toEqual([
      {
        file: 'formdata.pb.js',
        line: 2,
        column: 20,
        message:
          '"FormData" is not supported in svcbase *.pb.js scripts (see docs/hook-scripts.md).',
      },
    ])
  })

  // In order: each case sees what the ones before it did (the target counts requests).
  it.each(recorded.answers.map((a) => [a.name, a] as const))('%s', async (_label, pb) => {
    const svc = await replay(s, pb)
    const allowed = ALLOWED[pb.name]
    if (allowed) expect(svc.status, allowed.why).toBe(allowed.status)
    else expect(svc).toEqual(pb)
  })

  it("prints a handler's console lines once, though it ran once per send and once more", () => {
    const lines = s.logs.map((l) => l.message).filter((m) => m.startsWith('two sends'))
    expect(lines).toEqual(['two sends: before', 'two sends: after 1 2'])
  })

  it('gives a script that catches the stop its answer all the same, and prints only the kept run', async () => {
    const before = s.logs.length
    const res = await s.api('GET', '/extra/swallow')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ name: 'from target swallowed' })
    const lines = s.logs.slice(before).map((l) => l.message)
    expect(lines.filter((m) => m.startsWith('caught'))).toEqual([])
    expect(lines.filter((m) => m.startsWith('got'))).toEqual(['got from target swallowed'])
  })

  it('carries out the writes of the kept run only', async () => {
    const res = await s.api('GET', '/extra/queued')
    expect(res.status).toBe(200)
    const list = await s.api(
      'GET',
      `/api/collections/users/records?filter=${encodeURIComponent("email='queued@example.com'")}`,
      { token: s.suToken },
    )
    expect(list.body.items.map((r: { name: string }) => r.name)).toEqual(['from target queued'])
  })

  it("sends from a model hook, inside the write's transaction", async () => {
    const list = await s.api('GET', '/api/collections/users/records', { token: s.suToken })
    const id = list.body.items[0].id as string
    const res = await s.api('PATCH', `/api/collections/users/records/${id}`, {
      token: s.suToken,
      body: { name: 'from the client' },
    })
    expect(res.status).toBe(200)
    expect(res.body.name).toBe('from target in the transaction')
  })

  it('makes at most 50 sends per invocation, with a clear error past them', async () => {
    const ok = await s.api('GET', '/extra/many/50')
    expect(ok.status).toBe(200)
    const before = (await s.api('GET', '/http/hits')).body.hits as number
    const over = await s.api('GET', '/extra/many/51')
    expect(over.status).toBe(400)
    expect(s.logs.at(-1)?.data.error).toBe(
      "$http.send: at most 50 calls per handler invocation (svcbase's limit; each one runs the handler again)",
    )
    expect((await s.api('GET', '/http/hits')).body.hits).toBe(before + 50) // the 51st is not sent
  })

  it('bounds a handler whose sends change from run to run', async () => {
    const over = await s.api('GET', '/extra/random')
    expect(over.status).toBe(400)
    expect(String(s.logs.at(-1)?.data.error)).toContain('at most 50 calls')
  })

  it('fails a send whose answer is over 32 MiB', async () => {
    const fits = await s.api('GET', `/extra/big/${1024 * 1024}`)
    expect(fits.body).toEqual({ length: 1024 * 1024 })
    const over = await s.api('GET', `/extra/big/${32 * 1024 * 1024 + 1}`)
    expect(over.body).toEqual({
      message: `Get "TARGET/big?bytes=${32 * 1024 * 1024 + 1}": the response body is over 33554432 bytes (svcbase's limit for $http.send)`,
    })
  })

  it('does not hold the event loop for a large answer: its bytes are read as the script reads them', async () => {
    const delay = monitorEventLoopDelay({ resolution: 10 })
    delay.enable()
    const full = await s.api('GET', `/extra/big/${32 * 1024 * 1024}`)
    delay.disable()
    expect(full.body).toEqual({ length: 32 * 1024 * 1024 })
    // (Building PocketBase's array of 32 Mi numbers at once takes seconds.)
    expect(delay.max / 1e6).toBeLessThan(500)
  })

  it('reads the timeout as PocketBase (seconds, 120 by default) and cuts it at 120', () => {
    expect(sendConfigOf({ url: 'x' }).timeoutS).toBe(120)
    expect(sendConfigOf({ url: 'x', timeout: 1.9 }).timeoutS).toBe(1)
    expect(sendConfigOf({ url: 'x', timeout: 3600 }).timeoutS).toBe(120)
    expect(() => sendConfigOf('http://x')).toThrow(/could not convert/)
  })

  // PocketBase has no SSRF guard: svcbase refuses private addresses unless allowed.
  it('refuses a loopback target while private networks are not allowed', async () => {
    const set = await s.api('PATCH', '/api/settings', {
      token: s.suToken,
      body: { webhooks: { allowPrivateNetworks: false } },
    })
    expect(set.status).toBe(200)
    try {
      const res = await s.api('GET', '/extra/guarded')
      expect(res.body).toEqual({
        name: 'GoError',
        message: `Get "TARGET/echo": refused: 127.0.0.1 resolves to 127.0.0.1 (loopback); private networks are not allowed`,
      })
    } finally {
      await s.api('PATCH', '/api/settings', {
        token: s.suToken,
        body: { webhooks: { allowPrivateNetworks: true } },
      })
    }
  })
})
