/* eslint-disable */
// PocketBase JSVM globals ($template): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $template: {{break}} and {{continue}} in range, CSS contexts (<style> bodies, style
// attributes: values, strings, url(), comments) and addFuncs.

routerAdd('GET', '/tpl/{kind}', (e) => {
  const k = e.request.pathValue('kind')
  const cases = {
    break: ['{{range .l}}{{if eq . 3}}{{break}}{{end}}[{{.}}]{{end}}', { l: [1, 2, 3, 4] }],
    continue: ['{{range .l}}{{if eq . 2}}{{continue}}{{end}}[{{.}}]{{end}}', { l: [1, 2, 3, 4] }],
    breakNested: [
      '{{range $i, $a := .l}}{{range .}}{{if eq . 2}}{{break}}{{end}}{{.}}{{end}};{{end}}',
      {
        l: [
          [1, 2, 3],
          [4, 2],
        ],
      },
    ],
    breakVars: [
      '{{range $i, $v := .l}}{{with $x := $v}}{{if gt $x 1}}{{break}}{{end}}{{end}}{{$v}}{{end}}|{{len .l}}',
      { l: [1, 2, 3] },
    ],
    continueMap: [
      '{{range $k, $v := .m}}{{if eq $k "b"}}{{continue}}{{end}}{{$k}}={{$v}} {{end}}',
      { m: { a: 1, b: 2, c: 3 } },
    ],
    breakInt: ['{{range 5}}{{if eq . 3}}{{break}}{{end}}{{.}}{{end}}', {}],
    breakOutside: ['{{break}}', {}],
    continueInIf: ['{{if true}}{{continue}}{{end}}', {}],
    cssValue: ['<style>p { color: {{.c}} }</style>', { c: 'red' }],
    cssHex: ['<style>p { color: {{.c}} }</style>', { c: '#fff' }],
    cssWords: ['<style>p { color: {{.c}} }</style>', { c: 'a-b c' }],
    cssNumber: ['<style>p { width: {{.n}}px; }</style>', { n: 12 }],
    cssSemicolon: ['<style>p { color: {{.c}} }</style>', { c: 'red;background:url(x)' }],
    cssComment: ['<style>p { color: {{.c}} }</style>', { c: '<!--' }],
    cssExpression: ['<style>p { color: {{.c}} }</style>', { c: 'ExPression' }],
    cssEscapeDecoded: ['<style>p { color: {{.c}} }</style>', { c: 'a\\62 c' }],
    cssUnicode: ['<style>p { color: {{.c}} }</style>', { c: 'é ü' }],
    cssNull: ['<style>p { color: {{.c}} }</style>', { c: null }],
    cssList: ['<style>p { color: {{.c}} }</style>', { c: ['a', 'b'] }],
    cssDq: ['<style>p { font-family: "{{.c}}" }</style>', { c: 'a"b</style>' }],
    cssSq: ["<style>p { content: '{{.c}}' }</style>", { c: "it's <b>\n\\" }],
    cssStringScheme: ['<style>p { content: "{{.c}}" }</style>', { c: 'javascript:x' }],
    cssStringAfter: ['<style>p { content: "x{{.c}}" }</style>', { c: 'a b+c' }],
    cssStringQuery: ['<style>p { content: "a?{{.c}}" }</style>', { c: 'x y&z' }],
    cssUrl: ['<style>p { background: url({{.c}}) }</style>', { c: 'http://x/a b?c=(d)' }],
    cssUrlPlain: ['<style>p { background: url({{.c}}) }</style>', { c: 'a.png' }],
    cssUrlDq: ['<style>p { background: url("{{.c}}") }</style>', { c: 'javascript:alert(1)' }],
    cssUrlSq: ["<style>p { background: url('{{.c}}') }</style>", { c: "/x y'z.png" }],
    cssUrlSpace: ['<style>p { background: URL( "{{.c}}") }</style>', { c: 'a b.png' }],
    cssUrlQuery: ['<style>p { background: url(/i?s={{.c}}) }</style>', { c: 'a/b c' }],
    cssBlockComment: ['<style>/* {{.c}} */ p {}</style>', { c: 'x' }],
    cssCommentOnly: ['<style>a{}/* note */b{}</style>{{.c}}', { c: 'x' }],
    cssAfterStyle: ['<style>p{}</style>{{.c}}', { c: '<b>' }],
    cssTwoValues: ['<style>p { margin: {{.a}} {{.b}} }</style>', { a: '1px', b: '2px' }],
    styleAttr: ['<p style="color: {{.c}}">x</p>', { c: 'blue' }],
    styleAttrBad: ['<p style="color: {{.c}}">x</p>', { c: 'expression(alert(1))' }],
    styleAttrString: ['<p style="font-family: \'{{.c}}\'">x</p>', { c: 'A&B "C"' }],
    styleAttrUrl: ['<p style="background: url({{.c}})">x</p>', { c: 'a b.png' }],
    styleAttrUnquoted: ['<p style=color:{{.c}}>x</p>', { c: 'red' }],
    styleUpper: ['<STYLE>p { color: {{.c}} }</STYLE>{{.c}}', { c: 'a<b' }],
  }
  const [text, data] = cases[k]
  return e.json(200, { out: $template.loadString(text).render(data) })
})

routerAdd('GET', '/tpl-funcs/{kind}', (e) => {
  const k = e.request.pathValue('kind')
  if (k === 'chain') {
    const r = $template.addFuncs({ up: (s) => String(s).toUpperCase() })
    return e.json(200, { out: r.loadString('{{.x}}').render({ x: 'same registry' }) })
  }
  if (k === 'call') {
    $template.addFuncs({ up: (s) => String(s).toUpperCase() })
    return e.json(200, { out: $template.loadString('{{up .x}}').render({ x: 'ab' }) })
  }
  if (k === 'callNoArgs') {
    $template.addFuncs({ now: () => 'x' })
    return e.json(200, { out: $template.loadString('{{now}}').render({}) })
  }
  return e.json(404, {})
})
