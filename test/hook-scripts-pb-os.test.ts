/**
 * `$os` file reads, `$filepath` and `toString` in `*.pb.js` files: the same `os.pb.js` ran on
 * PocketBase 0.40.4 (`test/pocketbase/hooks/os.json`, recorded by
 * `test/pocketbase/hooks/record.ts`) and here answers alike (bytes from `readFile` that
 * `toString` decodes, a missing file's 404, `readDir` in name order, Go's `path/filepath`
 * answers). svcbase only: reads outside the app's folders are refused.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { osSuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite } from './pocketbase/hooks/suite-test.js'

describeRecordedSuite(
  '$os, $filepath and toString in *.pb.js files, as PocketBase answers',
  osSuite,
  { label: (a) => `${a.path} (${a.name})` },
)

describe('$os reads only the app folders', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startHooksServer({
      'read.pb.js': `routerAdd("GET", "/os/any", (e) => {
    const p = e.request.url.query().get("p")
    const dir = e.request.url.query().get("dir") !== ""
    return e.json(200, dir ? $os.readDir(p).map((d) => d.name()) : toString($os.readFile(p)))
})
`,
    })
  })
  afterAll(async () => {
    await s.close()
  })

  const read = (q: string) => s.api('GET', `/os/any?${q}`)

  it('reads the hooks dir and its parent', async () => {
    expect((await read('p=read.pb.js')).body).toMatch(/^routerAdd/)
    expect((await read('p=..&dir=1')).body).toContain('hooks')
  })

  it('refuses a path outside them with a 400 whose logged cause names it', async () => {
    for (const q of ['p=/etc/hostname', 'p=../..&dir=1', 'p=/proc/self/environ']) {
      expect((await read(q)).status, q).toBe(400)
    }
    expect(
      s.logs.some((l) => JSON.stringify(l.data).includes("is outside the app's folders")),
    ).toBe(true)
  })
})
