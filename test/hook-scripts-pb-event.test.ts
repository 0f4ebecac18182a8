/**
 * The members of PocketBase's route event, realtime connect event and `Collection` that the
 * other suites do not exercise (`e.bindBody`, `e.findUploadedFiles`, `e.request.formFile` with
 * `$filesystem.fileFromMultipart`, `e.isTLS`, `e.setCookie` with `Cookie`, `e.status`,
 * `e.written`, `e.xml`, `e.flush`, `e.stream`, `e.fileFS` with `$os.dirFS`; `e.idleTimeout` and
 * `e.maxTimeout`; `baseFilesPath`, `dbExport`, `integrityChecks`, `postScan`): the same
 * `event-members.pb.js` ran on PocketBase 0.40.4 (`test/pocketbase/hooks/event.json`, recorded
 * by `test/pocketbase/hooks/record.ts event`) and here answers alike.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { HooksServer } from './fixtures/hooks/server.js'
import { eventSuite } from './pocketbase/hooks/cases-event.js'
import { recording, startSuiteServer } from './pocketbase/hooks/replay.js'
import { describeRecordedSuite } from './pocketbase/hooks/suite-test.js'

const REALTIME = 'realtime connect timeouts, read and set'

describeRecordedSuite(
  "the route event's, realtime connect event's and Collection's other members in *.pb.js files, as PocketBase",
  eventSuite,
  {
    allowed: {
      [REALTIME]: {
        status: 400,
        why: "PocketBase sends a connect hook's error with the stream's media type (text/event-stream), svcbase as application/json; the message is compared below",
      },
    },
  },
)

describe('e.idleTimeout and e.maxTimeout of onRealtimeConnectRequest, as PocketBase', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startSuiteServer(eventSuite)
  })
  afterAll(async () => {
    await s.close()
  })

  it('reads the defaults and the values set (the message of the refusal)', async () => {
    const pb = recording(eventSuite).answers.find((a) => a.name === REALTIME)
    const res = await fetch(`${s.url}/api/realtime`)
    expect(res.status).toBe(pb?.status)
    // svcbase's `code` beside `status` (the same value) aside, as replay.ts drops it
    const { code: _code, ...body } = (await res.json()) as Record<string, unknown>
    expect(body).toEqual(JSON.parse(String(pb?.body)))
  })
})
