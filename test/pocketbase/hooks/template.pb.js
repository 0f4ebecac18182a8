/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $security, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $template as PocketBase offers it: files and strings in Go's html/template syntax.

routerAdd('GET', '/tpl/page', (e) => {
  const html = $template
    .loadFiles(`${__hooks}/views/layout.gohtml`, `${__hooks}/views/page.gohtml`)
    .render({
      title: e.request.url.query().get('title') || 'Hello <World> & \'friends\' "all"',
      cls: 'a"b<c>&',
      link: e.request.url.query().get('link') || 'https://example.com/a b?x=1&y="2"',
      bad: 'javascript:alert(1)',
      html: '<b>bold</b>',
      items: [
        { name: 'one', n: 1 },
        { name: 'tw<o>', n: 2 },
        { name: 'three', n: 3 },
      ],
      obj: { a: 'x<y', b: 2 },
      num: 42,
      flt: 1.5,
      yes: true,
      nothing: null,
      empty: [],
      plus: '1+1=2',
    })
  return e.html(200, html)
})

routerAdd('GET', '/tpl/string', (e) => {
  const out = $template
    .loadString('Hi {{.name}}!{{if .admin}} (admin){{end}} {{range .tags}}[{{.}}]{{end}}')
    .render({ name: e.request.url.query().get('name'), admin: true, tags: ['a', '<b>'] })
  return e.string(200, out)
})

routerAdd('GET', '/tpl/bad-syntax', (e) => {
  return e.string(200, $template.loadString('{{if .x}}unclosed').render({ x: 1 }))
})

routerAdd('GET', '/tpl/missing-file', (e) => {
  return e.string(200, $template.loadFiles(`${__hooks}/views/nope.gohtml`).render({}))
})

routerAdd('GET', '/tpl/unknown-func', (e) => {
  return e.string(200, $template.loadString('{{nope .x}}').render({ x: 1 }))
})

routerAdd('GET', '/tpl/missing-template', (e) => {
  return e.string(200, $template.loadString('{{template "nope" .}}').render({}))
})

routerAdd('GET', '/tpl/blocks', (e) => {
  // the layout alone: its block's default; a later string may not redefine what it lacks
  const out = $template
    .loadFiles(`${__hooks}/views/layout.gohtml`, `${__hooks}/views/content-only.gohtml`)
    .render({ who: 'you' })
  return e.html(201, out)
})

routerAdd('GET', '/tpl/exec-error', (e) => {
  return e.string(200, $template.loadString('{{index .list 5}}').render({ list: [1, 2] }))
})

routerAdd('GET', '/tpl/trim', (e) => {
  return e.string(
    200,
    $template.loadString('a  {{- 1 -}}  b {{2}}  {{- /* c */ -}}  d\n{{- 3}}').render({}),
  )
})

routerAdd('GET', '/tpl/js', (e) => {
  const x = 'a"b\'c<d>&e/f\\g+h`i\nj'
  const out = $template
    .loadString(
      '<script>var s = "{{.x}}"; var t = \'{{.x}}\'; var v = {{.x}}; var n = {{.n}};</script>' +
        '<button onclick="f(\'{{.x}}\', {{.n}})">b</button><p title="{{.x}}">{{.x}}</p>',
    )
    .render({ x: x, n: [1, 'two'] })
  return e.string(200, out)
})
