/**
 * A `*.pb.js` file that uses a PocketBase member or global svcbase does not offer fails when it
 * LOADS (docs/hook-scripts.md, "PocketBase's *.pb.js form"), with the file, the line and the
 * member's name, even when the use sits in a handler that has not run; a file using only what
 * svcbase offers loads as before, whatever its comments, strings and regexes mention.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  'http.pb.js': `// calls PocketBase's $filesystem in a handler
routerAdd("GET", "/lc/http", (e) => {
    const url = "https://example.com"
    const res = $filesystem.s3(url)
    return e.json(200, res.json)
})

onRecordAfterCreateSuccess((e) => {
    $inflector.columnify(e.record.id)
    e.next()
}, "users")
`,
  'os.pb.js': `cronAdd("read", "0 * * * *", () => {
    $os.writeFile(__hooks + "/out.txt", "x", 0o644)
    console.log("written")
})

routerAdd("GET", "/lc/os", (e) => e.string(200, $os.getenv("HOME")))
`,
  'model.pb.js': `routerAdd("GET", "/lc/model", (e) => {
    const result = readerToString(new ValidationError("x", "y"))
    return e.json(200, result)
})
`,
  'require.pb.js': `routerAdd("GET", "/lc/require", (e) => {
    const lib = require(\`\${__hooks}/lib.js\`)
    return e.json(200, lib.hello())
})
`,
  'apis.pb.js': `routerAdd("GET", "/lc/apis", (e) => e.json(200, {}), $apis.activityLogger($app))
`,
  'fine.pb.js': `// $http.send and $mails.send are mentioned here only; sleep(1) too
/* new DynamicModel({}) in a comment */
function sleep(ms) {
    return "slept " + ms
}

routerAdd("GET", "/lc/fine", (e) => {
    const text = "$http.send(x) sleep(2) require('y')"
    const tpl = \`\${$security.md5("a")} $os.writeFile \${"arrayOf("}\`
    const re = /\\$http\\.send\\(/
    const own = { send: () => 1 }
    return e.json(200, {
        slept: sleep(5),
        text: text,
        tpl: tpl,
        matches: re.test(text),
        own: own.send(),
        env: $os.getenv("SVC_LOADCHECK_UNSET"),
        rendered: $template.loadString("{{.}}").render("ok"),
    })
})
`,
}

describe('*.pb.js uses of what svcbase lacks fail at load', () => {
  let t: HooksServer
  let errors: { file: string; line: number | null; column: number | null; message: string }[]
  beforeAll(async () => {
    t = await startHooksServer(files)
    const listing = await t.api('GET', '/api/functions', { token: t.suToken })
    errors = listing.body.errors
  })
  afterAll(async () => {
    await t.close()
  })

  const unsupported = (name: string) =>
    `"${name}" is not supported in svcbase *.pb.js scripts (see docs/hook-scripts.md).`

  it('names the first use with its line, and the others, before any handler runs', () => {
    expect(errors.find((e) => e.file === 'http.pb.js')).toEqual({
      file: 'http.pb.js',
      line: 4,
      column: 17,
      message: `${unsupported('$filesystem.s3')} Also not supported: $inflector.columnify.`,
    })
    expect(errors.find((e) => e.file === 'os.pb.js')).toMatchObject({
      line: 2,
      message: unsupported('$os.writeFile'),
    })
    expect(errors.find((e) => e.file === 'model.pb.js')).toMatchObject({
      line: 2,
      message: `${unsupported('readerToString')} Also not supported: ValidationError.`,
    })
    expect(errors.find((e) => e.file === 'require.pb.js')).toMatchObject({
      line: 2,
      message: unsupported('require'),
    })
    expect(errors.find((e) => e.file === 'apis.pb.js')).toMatchObject({
      line: 1,
      message: unsupported('$apis.activityLogger'),
    })
  })

  it('binds nothing of a file that failed the check', async () => {
    for (const path of ['/lc/http', '/lc/os', '/lc/model', '/lc/require', '/lc/apis'])
      expect((await t.api('GET', path)).status, path).toBe(404)
  })

  it('loads a file that uses only what svcbase offers, whatever its comments and strings say', async () => {
    expect(errors.map((e) => e.file)).not.toContain('fine.pb.js')
    const res = await t.api('GET', '/lc/fine')
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      slept: 'slept 5',
      text: "$http.send(x) sleep(2) require('y')",
      tpl: '0cc175b9c0f1b6a831c399e269772661 $os.writeFile arrayOf(',
      matches: true,
      own: 1,
      env: '',
      rendered: 'ok',
    })
  })
})
