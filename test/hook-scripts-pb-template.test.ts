/**
 * `$template` in `*.pb.js` files: the same `template.pb.js` and `views/*.gohtml` ran on PocketBase
 * 0.40.4 (`test/pocketbase/hooks/template.json`, recorded by `test/pocketbase/hooks/record.ts`)
 * and here render the same bytes: a layout with `block`/`template`/`define` across files,
 * `if`/`else if`/`range`/`with`, variables, the builtin funcs and `raw`, escaping by context
 * (element text, quoted and unquoted attributes, URLs, `<script>`), trim markers, and the
 * errors (syntax, missing file 404, unknown func, missing template, a failing `index`). Files
 * outside the app's folders are refused (svcbase only: PocketBase reads any path).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'
import { templateSuite } from './pocketbase/hooks/cases.js'
import { describeRecordedSuite } from './pocketbase/hooks/suite-test.js'

describeRecordedSuite('$template in *.pb.js files, as PocketBase renders', templateSuite, {
  label: (a) => `${a.path.slice(0, 60)} (${a.name})`,
})

describe('$template.loadFiles reads only the app folders', () => {
  let s: HooksServer
  beforeAll(async () => {
    s = await startHooksServer({
      'outside.pb.js': `routerAdd("GET", "/tpl/file", (e) => {
    const p = e.request.url.query().get("p")
    return e.string(200, $template.loadFiles(p.startsWith("/") ? p : __hooks + "/" + p).render({ v: "<v>" }))
})
`,
      'views/in-hooks.html': 'hooks {{.v}}',
      'huge.pb.js': `routerAdd("GET", "/tpl/huge", (e) => {
    return e.string(200, $template.loadString('{{range .n}}{{range $.n}}{{range $.n}}x{{end}}{{end}}{{end}}').render({ n: 1000 }))
})
`,
    })
    writeFileSync(join(s.project, 'in-app.html'), 'app {{.v}}')
  })
  afterAll(async () => {
    await s.close()
  })

  const file = (p: string) => s.api('GET', `/tpl/file?p=${encodeURIComponent(p)}`)

  it('reads a file of the hooks dir and of its parent folder', async () => {
    expect((await file('views/in-hooks.html')).text).toBe('hooks &lt;v&gt;')
    expect((await file('../in-app.html')).text).toBe('app &lt;v&gt;')
  })

  it('refuses a file outside them with a 400 whose logged cause names it', async () => {
    for (const p of ['/etc/hostname', '../../outside.html', '/proc/self/environ']) {
      const res = await file(p)
      expect(res.status, p).toBe(400)
      expect(
        s.logs.some((l) => JSON.stringify(l.data).includes("is outside the app's folders")),
      ).toBe(true)
    }
  })

  it('stops a render past its bounds with a 400, not a hang', async () => {
    const started = Date.now()
    const res = await s.api('GET', '/tpl/huge')
    expect(res.status).toBe(400)
    expect(Date.now() - started).toBeLessThan(5_000)
    expect(s.logs.some((l) => JSON.stringify(l.data).includes('the render passes'))).toBe(true)
  })

  it('answers 404 for a missing file inside them, as PocketBase', async () => {
    expect((await file('views/nope.html')).status).toBe(404)
  })
})
