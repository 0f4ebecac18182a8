/**
 * The `http` suite: `$http.send` in `*.pb.js` handlers (`http.pb.js`) against a local target
 * server (`http-target.ts`) that the recorder starts beside PocketBase 0.40.4 and the replay test
 * (`test/hook-scripts-pb-http.test.ts`) beside svcbase; the hook file finds it through
 * `PB_HTTP_TARGET`, `PB_HTTP_CLOSED` and `PB_HTTP_TLS`, which `setup` sets.
 */
import type { HookCase, HookSuite } from './cases.js'
import { SU } from './cases.js'
import { startHttpTarget } from './http-target.js'

const get = (name: string, path: string, extra: Partial<HookCase> = {}): HookCase => ({
  name,
  method: 'GET',
  path,
  ...extra,
})

/** A suite whose cases need a server of their own, started before the oracle (or svcbase). */
export interface HookSuiteWithSetup extends HookSuite {
  /** Starts what the cases need, sets the environment the hook files read; returns the stop. */
  setup(): Promise<() => Promise<void>>
}

export const httpSuite: HookSuiteWithSetup = {
  name: 'http',
  files: ['http.pb.js'],
  async setup() {
    const target = await startHttpTarget()
    process.env.PB_HTTP_TARGET = target.url
    process.env.PB_HTTP_CLOSED = target.closed
    process.env.PB_HTTP_TLS = target.selfSigned
    return () => target.close()
  },
  cases: [
    get('GET: statusCode, json, raw, body bytes, headers', '/http/get'),
    get('cookies', '/http/cookies'),
    {
      name: 'POST with a JSON body and headers',
      method: 'POST',
      path: '/http/post',
      send: { title: 'hello', n: [1, 2] },
    },
    get('bodies, data, methods and headers as PocketBase reads them', '/http/variants'),
    get('text, array, scalar, empty, 404 and 500 answers', '/http/kinds'),
    get('a 404 from the target', '/http/status/404'),
    get('a 500 from the target', '/http/status/500'),
    get('redirects followed (a POST becomes a GET)', '/http/redirect'),
    get('a timeout', '/http/timeout'),
    get('a connection refused', '/http/refused'),
    get('a connection refused, not caught', '/http/refused-uncaught'),
    get('bad configs', '/http/bad-config'),
    get('an https target whose certificate no authority signed', '/http/tls'),
    get('two sends in one handler', '/http/two'),
    get('the target saw two requests', '/http/hits'),
    {
      name: 'a send before $app.save',
      method: 'POST',
      path: '/http/save',
      send: {},
    },
    {
      name: 'a send in onRecordCreateRequest',
      method: 'POST',
      path: '/api/collections/users/records',
      send: {
        email: 'hooked@example.com',
        name: 'from the client',
        password: 'password123',
        passwordConfirm: 'password123',
      },
      keep: ['name', 'email'],
    },
    get('each save made once', '/http/names'),
    { name: 'a cron job with two sends', method: 'POST', path: '/api/crons/httpJob', auth: SU },
    get('the target saw the cron job once', '/http/hits', { wait: 1000 }),
  ],
}
