/**
 * Black-box API scenarios in the spirit of PocketBase's `tests.ApiScenario`: each scenario is a
 * request and everything its response must show (status, JSON fragments, the hooks and events it
 * fired), run as one vitest `it` against a real server from `./server.ts`.
 *
 * ```ts
 * runScenarios('GET /api/settings', undefined, [
 *   { name: 'guest', method: 'GET', url: '/api/settings', expectedStatus: 401,
 *     expectedContent: ['"data":{}'] },
 *   { name: 'superuser', method: 'GET', url: '/api/settings', token: 'superuser',
 *     expectedStatus: 200, expectedContent: ['"appName":"svcbase"'],
 *     notExpectedContent: ['"password"'], expectedEvents: {} },
 * ])
 * ```
 *
 * A failure names the scenario, the request and what differed, and shows the response body.
 */
import { assert, afterAll, beforeAll, describe, it } from 'vitest'
import { startServer, type TestServer } from './server.js'

/** A value given as is, or computed from the server when the scenario runs. */
export type Lazy<T> = T | ((t: TestServer) => T | Promise<T>)

/**
 * Who sends the request: `'superuser'` (the test superuser), any other string (a token as it
 * is), a function computing the token when the scenario runs, or null/absent for a guest.
 */
export type ScenarioToken =
  | string
  | null
  | ((t: TestServer) => string | null | undefined | Promise<string | null | undefined>)

/** What a scenario's request answered. */
export interface ScenarioResponse {
  status: number
  headers: Headers
  /** The body as sent by the server. */
  text: string
  /** The parsed JSON body; `null` for an empty body, the text when it is not JSON. */
  body: any
}

/** One request and what its response must show. */
export interface Scenario {
  name: string
  method: string
  /** The path (and query) under the server's address. */
  url: Lazy<string>
  headers?: Lazy<Record<string, string>>
  /** Sent as `Authorization: Bearer …`; absent or null: a guest. */
  token?: ScenarioToken
  /** A JSON body (sent with `content-type: application/json`). */
  body?: unknown
  /** A body sent as it is (a multipart form, or text with your own content-type header). */
  raw?: Lazy<string | Buffer | FormData>
  expectedStatus: number
  /**
   * Fragments that must each appear in the body, compared with the compact JSON text of it
   * (`JSON.stringify(JSON.parse(text))`, PocketBase normalises the same way), or the raw text
   * when the body is not JSON. E.g. `'"code":400'`, `'"title":{"code":"validation_required"'`.
   */
  expectedContent?: string[]
  /** Fragments that must not appear, compared the same way. */
  notExpectedContent?: string[]
  /**
   * How many times each hook family of `app.hooks` (`onRecordCreate`, …: every family the app
   * has) and each bus event (`bus:record.create`, `bus:collection.update`, `bus:settings`, …
   * i.e. `bus:<kind>[.<action>]`) fired between sending the request and the response (plus the
   * event-loop turns that deliver the bus events published before the response).
   * Strict like PocketBase's: anything that fired but is not listed fails, `{}` means nothing
   * fired, `0` means that one must not fire; a `'*'` key (any value, PocketBase writes
   * `'*': 0`) allows unlisted ones. Unlike PocketBase, leaving it out checks nothing.
   */
  expectedEvents?: Record<string, number>
  /** Runs before the request (and before events are counted). */
  beforeTest?(t: TestServer): unknown
  /** Further checks on the response; runs after the checks above passed. */
  expect?(res: ScenarioResponse, t: TestServer): unknown
  /**
   * Runs last, also when a check failed (e.g. to clean up); if it throws, that is reported
   * unless an earlier check failed already.
   */
  afterTest?(t: TestServer, res: ScenarioResponse): unknown
}

const BODY_SHOWN = 4000

/** A compact form of a body for matching: JSON re-serialised, anything else as it is. */
function normalise(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text))
  } catch {
    return text
  }
}

function shown(text: string): string {
  if (text === '') return '(empty body)'
  return text.length > BODY_SHOWN
    ? `${text.slice(0, BODY_SHOWN)}… (${text.length - BODY_SHOWN} more characters)`
    : text
}

async function resolve<T>(value: Lazy<T> | undefined, t: TestServer): Promise<T | undefined> {
  return typeof value === 'function' ? (value as (t: TestServer) => T | Promise<T>)(t) : value
}

async function tokenOf(token: ScenarioToken | undefined, t: TestServer) {
  if (token === 'superuser') return t.suToken
  return typeof token === 'function' ? token(t) : token
}

/** A hook family as far as counting needs it (`Hook` of src/tools/hook.ts, or alike). */
interface Bindable {
  bind(handler: (e: { next?: () => Promise<void> }) => Promise<void>): unknown
  unbind(id: unknown): void
}

function isBindable(value: unknown): value is Bindable {
  const v = value as Partial<Bindable> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.bind === 'function' &&
    typeof v.unbind === 'function'
  )
}

/**
 * Counts every hook family of `app.hooks` and every bus event until `stop()` is called;
 * `stop()` first lets the event loop deliver the bus events already published.
 */
export function countEvents(t: TestServer): { stop(): Promise<Record<string, number>> } {
  const counts: Record<string, number> = {}
  const add = (name: string) => {
    counts[name] = (counts[name] ?? 0) + 1
  }
  const app = t.server.app
  const unbind: (() => void)[] = []
  for (const [name, hook] of Object.entries(app.hooks as object)) {
    if (!isBindable(hook)) continue
    const id = hook.bind(async (e) => {
      add(name)
      if (typeof e?.next === 'function') await e.next()
    })
    unbind.push(() => hook.unbind(id))
  }
  unbind.push(
    app.events.subscribe((e) => {
      const action = (e as { action?: unknown }).action
      add(typeof action === 'string' ? `bus:${e.kind}.${action}` : `bus:${e.kind}`)
    }),
  )
  return {
    async stop() {
      // The bus delivers on a later turn (setImmediate, then a microtask): let it.
      for (let i = 0; i < 3; i++) await new Promise((r) => setImmediate(r))
      for (const u of unbind) u()
      return { ...counts }
    },
  }
}

/** Sends the scenario's request. */
async function send(t: TestServer, s: Scenario, url: string): Promise<ScenarioResponse> {
  const headers: Record<string, string> = { ...(await resolve(s.headers, t)) }
  const token = await tokenOf(s.token, t)
  if (token) headers.authorization = `Bearer ${token}`
  let body: string | Buffer | FormData | undefined = await resolve(s.raw, t)
  if (body === undefined && s.body !== undefined) {
    const value = typeof s.body === 'function' ? await resolve(s.body as Lazy<unknown>, t) : s.body
    headers['content-type'] ??= 'application/json'
    body = JSON.stringify(value)
  }
  const res = await fetch(`${t.url}${url}`, { method: s.method, headers, body })
  const text = await res.text()
  let parsed: unknown = text
  try {
    parsed = text === '' ? null : JSON.parse(text)
  } catch {
    // not JSON: keep the text
  }
  return { status: res.status, headers: res.headers, text, body: parsed }
}

/** What differs between the expected and the counted events (empty when they agree). */
export function eventDifferences(
  expected: Record<string, number>,
  actual: Record<string, number>,
): string[] {
  const out: string[] = []
  for (const [name, n] of Object.entries(expected)) {
    if (name === '*') continue
    const got = actual[name] ?? 0
    if (got !== n) out.push(`${name}: expected ${n}, fired ${got}`)
  }
  if (!('*' in expected))
    for (const [name, got] of Object.entries(actual))
      if (!(name in expected)) out.push(`${name}: fired ${got}, not expected`)
  return out
}

/** Runs one scenario against a running server; fails with the body shown when anything differs. */
export async function runScenario(t: TestServer, s: Scenario): Promise<ScenarioResponse> {
  await s.beforeTest?.(t)
  const url = (await resolve(s.url, t))!
  const what = `scenario "${s.name}" (${s.method} ${url})`
  const counter = s.expectedEvents ? countEvents(t) : null
  let res: ScenarioResponse
  let events: Record<string, number> | undefined
  try {
    res = await send(t, s, url)
  } finally {
    events = await counter?.stop()
  }
  let failure: unknown
  try {
    const body = `\nbody: ${shown(res.text)}`
    if (res.status !== s.expectedStatus)
      assert.fail(`${what}: expected status ${s.expectedStatus}, got ${res.status}${body}`)
    const compact = normalise(res.text)
    const missing = (s.expectedContent ?? []).filter((f) => !compact.includes(f))
    if (missing.length)
      assert.fail(`${what}: missing from the body:\n  ${missing.join('\n  ')}${body}`)
    const present = (s.notExpectedContent ?? []).filter((f) => compact.includes(f))
    if (present.length)
      assert.fail(`${what}: must not be in the body:\n  ${present.join('\n  ')}${body}`)
    if (s.expectedEvents) {
      const diff = eventDifferences(s.expectedEvents, events!)
      if (diff.length)
        assert.fail(
          `${what}: events differ:\n  ${diff.join('\n  ')}\nfired: ${JSON.stringify(events)}${body}`,
        )
    }
    await s.expect?.(res, t)
  } catch (err) {
    failure = err
  }
  try {
    await s.afterTest?.(t, res)
  } catch (err) {
    if (failure === undefined) failure = err
  }
  if (failure !== undefined)
    throw failure instanceof Error ? failure : new Error(JSON.stringify(failure))
  return res
}

/** Declares one `it` per scenario in the current `describe`, against the server `server()` gives. */
export function itScenarios(server: () => TestServer, scenarios: Scenario[]): void {
  for (const s of scenarios) it(s.name, () => runScenario(server(), s).then(() => undefined))
}

/**
 * A `describe` with a fresh server (started before, closed after), `setup` run once on it, and
 * one `it` per scenario, in order.
 */
export function runScenarios(
  describeName: string,
  setup: ((t: TestServer) => unknown) | undefined,
  scenarios: Scenario[],
): void {
  describe(describeName, () => {
    let t: TestServer | undefined
    beforeAll(async () => {
      t = await startServer()
      await setup?.(t)
    })
    afterAll(() => t?.close())
    itScenarios(() => t!, scenarios)
  })
}
