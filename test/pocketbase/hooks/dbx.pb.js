/* eslint-disable */
// PocketBase JSVM globals ($dbx, $app.db(), DynamicModel, arrayOf): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $dbx expressions in $app.findAllRecords / countRecords, findFirstRecordByData, and
// $app.db().newQuery(...) with DynamicModel and arrayOf.

routerAdd('GET', '/dbx/all/{kind}', (e) => {
  const k = e.request.pathValue('kind')
  const exprs = {
    none: [],
    hash: [$dbx.hashExp({ name: 'alice' })],
    hashMulti: [$dbx.hashExp({ name: 'bob', verified: false })],
    hashIn: [$dbx.hashExp({ name: ['alice', 'carol'] })],
    hashEmpty: [$dbx.hashExp({})],
    exp: [$dbx.exp('name = {:n}', { n: 'carol' })],
    expQuoted: [$dbx.exp('[[name]] LIKE {:p}', { p: 'a%' })],
    two: [$dbx.exp('name != {:a}', { a: 'alice' }), $dbx.hashExp({ verified: false })],
    and: [$dbx.and($dbx.like('email', 'example'), $dbx.not($dbx.in('name', 'alice', 'bob')))],
    or: [$dbx.or($dbx.hashExp({ name: 'alice' }), $dbx.hashExp({ name: 'da_ve' }))],
    in: [$dbx.in('name', 'bob', 'carol', 'nobody')],
    notIn: [$dbx.notIn('name', 'bob', 'carol')],
    like: [$dbx.like('name', 'a')],
    likeTwo: [$dbx.like('name', 'a', 'l')],
    likeUnderscore: [$dbx.like('name', '_')],
    notLike: [$dbx.notLike('name', 'a')],
    orLike: [$dbx.orLike('name', 'ob', 've')],
    orNotLike: [$dbx.orNotLike('name', 'a', 'o')],
    between: [$dbx.between('name', 'b', 'c')],
    notBetween: [$dbx.notBetween('name', 'b', 'c')],
    exists: [$dbx.exists($dbx.exp('SELECT 1'))],
    notExists: [$dbx.notExists($dbx.exp('SELECT 1'))],
  }[k]
  const records = $app.findAllRecords('users', ...exprs)
  return e.json(200, records.map((r) => r.get('name')).sort())
})

routerAdd('GET', '/dbx/count', (e) =>
  e.json(200, {
    all: $app.countRecords('users'),
    like: $app.countRecords('users', $dbx.like('email', 'example')),
    hash: $app.countRecords('users', $dbx.hashExp({ name: 'bob' })),
  }),
)

routerAdd('GET', '/dbx/first/{name}', (e) => {
  const r = $app.findFirstRecordByData('users', 'name', e.request.pathValue('name'))
  return e.json(200, { email: r.get('email'), name: r.get('name') })
})

routerAdd('GET', '/dbx/query', (e) => {
  const rows = arrayOf(new DynamicModel({ name: '', verified: false }))
  $app
    .db()
    .newQuery('SELECT name, verified FROM users WHERE name != {:x} ORDER BY name')
    .bind({ x: 'bob' })
    .all(rows)
  return e.json(200, rows)
})

routerAdd('GET', '/dbx/one', (e) => {
  const m = new DynamicModel({ n: 0, top: '' })
  $app.db().newQuery('SELECT COUNT(*) AS n, MAX(name) AS top FROM users').one(m)
  return e.json(200, { n: m.n, top: m.top })
})

routerAdd('GET', '/dbx/one-missing', (e) => {
  const m = new DynamicModel({ name: '' })
  $app.db().newQuery("SELECT name FROM users WHERE name = 'nobody'").one(m)
  return e.json(200, m)
})

routerAdd('POST', '/dbx/exec', (e) => {
  $app
    .db()
    .newQuery('UPDATE users SET name = {:n} WHERE name = {:o}')
    .bind({ n: 'bobby', o: 'bob' })
    .execute()
  return e.json(200, { ok: true })
})

routerAdd('GET', '/dbx/eapp', (e) => {
  const m = new DynamicModel({ n: 0 })
  e.app.db().newQuery('SELECT COUNT(*) AS n FROM users').one(m)
  let inTx = null
  $app.runInTransaction((txApp) => {
    inTx = txApp
      .findAllRecords('users', $dbx.like('name', 'o'))
      .map((r) => r.get('name'))
      .sort()
  })
  return e.json(200, {
    count: e.app.countRecords('users', $dbx.like('name', 'a')),
    all: e.app
      .findAllRecords('users', $dbx.like('name', 'a'))
      .map((r) => r.get('name'))
      .sort(),
    first: e.app.findFirstRecordByData('users', 'name', 'alice').get('email'),
    n: m.n,
    inTx: inTx,
  })
})

routerAdd('POST', '/dbx/tx-exec', (e) => {
  $app.runInTransaction((txApp) => {
    txApp.db().newQuery("UPDATE users SET name = 'renamed-in-tx' WHERE name = 'carol'").execute()
    const r = txApp.findFirstRecordByData('users', 'name', 'alice')
    r.set('email', 'not-an-email')
    txApp.save(r)
  })
  return e.json(200, { ok: true })
})
