/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $security, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $os file reads, $filepath and toString as PocketBase offers them.

routerAdd('GET', '/os/read', (e) => {
  const b = $os.readFile(`${__hooks}/` + e.request.url.query().get('p'))
  return e.json(200, { isArray: Array.isArray(b), len: b.length, text: toString(b), first: b[0] })
})

routerAdd('GET', '/os/readdir', (e) => {
  const entries = $os.readDir(`${__hooks}/files`)
  return e.json(
    200,
    entries.map((d) => ({ name: d.name(), dir: d.isDir() })),
  )
})

routerAdd('GET', '/os/env', (e) => {
  return e.json(200, { unset: $os.getenv('SVC_OS_TEST_SURELY_UNSET') })
})

routerAdd('GET', '/fp', (e) => {
  const out = {}
  const inputs = [
    '',
    '/',
    'a/b/c.txt',
    '/a/b/',
    'a//b/../c/./d.tar.gz',
    '../x',
    '.hidden',
    '/a/b/c/',
  ]
  for (const p of inputs) {
    out[p] = {
      base: $filepath.base(p),
      dir: $filepath.dir(p),
      ext: $filepath.ext(p),
      clean: $filepath.clean(p),
      isAbs: $filepath.isAbs(p),
      split: $filepath.split(p),
    }
  }
  out.join = [
    $filepath.join('a', 'b', '../c', 'd.txt'),
    $filepath.join('', ''),
    $filepath.join('/x', '', 'y/'),
    $filepath.join(),
  ]
  out.rel = [
    $filepath.rel('/a/b', '/a/b/c/d'),
    $filepath.rel('/a/b', '/a/x'),
    $filepath.rel('a', 'a'),
  ]
  out.match = [
    $filepath.match('*.txt', 'a.txt'),
    $filepath.match('a/*/c', 'a/b/c'),
    $filepath.match('a?c', 'abc'),
    $filepath.match('[a-c]x', 'dx'),
  ]
  out.slash = [$filepath.toSlash('a/b'), $filepath.fromSlash('a/b')]
  return e.json(200, out)
})

routerAdd('GET', '/fp/rel-error', (e) => {
  return e.json(200, $filepath.rel('/a', 'b'))
})

routerAdd('GET', '/tostring', (e) => {
  return e.json(200, {
    nil: toString(null),
    num: toString(123),
    float: toString(1.5),
    str: toString('x y'),
    bytes: toString([104, 105]),
    obj: toString({ a: 1, b: [true] }),
    bool: toString(true),
    max: toString('abcdef', 3),
  })
})
