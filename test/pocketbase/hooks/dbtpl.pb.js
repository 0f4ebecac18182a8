/* eslint-disable */
// PocketBase JSVM globals ($app.db() builders, $dbx, DynamicModel, arrayOf): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $app.db() query builders: select(...).from().where()..., insert, update, delete, upsert, and
// the $dbx differences (an empty hashExp in a find, like() with % _ \ in the value).
// (PocketBase runs each handler on its own: a helper is declared inside the handler using it.)

routerAdd('POST', '/dbtpl/insert', (e) => {
  const db = $app.db()
  const rows = [
    ['item00000000001', 'a_b', 1],
    ['item00000000002', 'Abc', 2],
    ['item00000000003', 'x\\y', 3],
    ['item00000000004', '50%', 2],
    ['item00000000005', 'zed', 5],
  ]
  for (const [id, name, n] of rows) db.insert('items', { id, name, n }).execute()
  return e.json(200, { ok: true })
})

routerAdd('GET', '/dbtpl/select/{kind}', (e) => {
  const items = (q) => {
    const l = arrayOf(new DynamicModel({ id: '', name: '', n: 0 }))
    q.all(l)
    return l
  }
  const db = $app.db()
  const k = e.request.pathValue('kind')
  const q = {
    all: () => db.select('id', 'name', 'n').from('items').orderBy('id'),
    star: () => db.select().from('items').orderBy('id'),
    where: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.hashExp({ n: 2 }))
        .orderBy('name DESC'),
    andOr: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.hashExp({ n: 2 }))
        .andWhere($dbx.like('name', 'ab'))
        .orWhere($dbx.in('id', 'item00000000005'))
        .orderBy('id'),
    whereReplaced: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.hashExp({ n: 1 }))
        .where($dbx.hashExp({ n: 3 })),
    limitOffset: () =>
      db.select('id', 'name', 'n').from('items').orderBy('n DESC', 'id').limit(2).offset(1),
    offsetOnly: () => db.select('id', 'name', 'n').from('items').orderBy('id').offset(3),
    limitNegative: () => db.select('id', 'name', 'n').from('items').orderBy('id').limit(-1),
    alias: () =>
      db.select('i.id', 'i.name AS name', 'i.n n').from('items i').orderBy('i.id').limit(2),
    bind: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.exp('n >= {:min}'))
        .bind({ min: 3 })
        .orderBy('id'),
    brackets: () =>
      db
        .select('[[id]]', '[[name]]', 'n')
        .from('{{items}}')
        .where($dbx.exp('[[n]] < {:m}', { m: 2 })),
    build: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.hashExp({ id: 'item00000000002' }))
        .build(),
    emptyHash: () =>
      db.select('id', 'name', 'n').from('items').where($dbx.hashExp({})).orderBy('id'),
    whereNull: () => db.select('id', 'name', 'n').from('items').where(null).orderBy('id').limit(1),
    likeUnderscore: () =>
      db.select('id', 'name', 'n').from('items').where($dbx.like('name', '_')).orderBy('id'),
    likePercent: () =>
      db.select('id', 'name', 'n').from('items').where($dbx.like('name', '%')).orderBy('id'),
    likeBackslash: () =>
      db.select('id', 'name', 'n').from('items').where($dbx.like('name', '\\')).orderBy('id'),
    likeCase: () =>
      db.select('id', 'name', 'n').from('items').where($dbx.like('name', 'AB')).orderBy('id'),
    notLikeUnderscore: () =>
      db.select('id', 'name', 'n').from('items').where($dbx.notLike('name', '_')).orderBy('id'),
    orLike: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.orLike('name', 'ZE', '0%'))
        .orderBy('id'),
    likeMatchLeft: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.like('name', 'c').match(true, false))
        .orderBy('id'),
    likeMatchRight: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.like('name', 'a').match(false, true))
        .orderBy('id'),
    likeEscapeNone: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.like('name', '_').escape())
        .orderBy('id'),
    likeExactWildcard: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.like('name', 'a_b').match(false, false).escape())
        .orderBy('id'),
    likeEscapeCustom: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.like('name', '0!').escape('!', '%'))
        .orderBy('id'),
    notLikeMatch: () =>
      db
        .select('id', 'name', 'n')
        .from('items')
        .where($dbx.notLike('name', 'z').match(false, true))
        .orderBy('id'),
    likeUnchanged: () => {
      const l = $dbx.like('name', 'zed')
      l.match(false, false)
      return db.select('id', 'name', 'n').from('items').where(l).orderBy('id')
    },
  }[k]
  return e.json(200, items(q()))
})

routerAdd('GET', '/dbtpl/agg', (e) => {
  const db = $app.db()
  const groups = arrayOf(new DynamicModel({ n: 0, c: 0 }))
  db.select('n', 'COUNT(*) AS c')
    .from('items')
    .groupBy('n')
    .having($dbx.exp('COUNT(*) >= {:k}', { k: 1 }))
    .orderBy('n')
    .all(groups)
  const twice = arrayOf(new DynamicModel({ n: 0, c: 0 }))
  db.select('n', 'COUNT(*) c')
    .from('items')
    .groupBy('n')
    .having($dbx.exp('COUNT(*) > 1'))
    .all(twice)
  const distinct = arrayOf(new DynamicModel({ n: 0 }))
  db.select('n').distinct(true).from('items').orderBy('n').all(distinct)
  const one = new DynamicModel({ name: '', n: 0 })
  db.select('name', 'n')
    .from('items')
    .where($dbx.hashExp({ id: 'item00000000002' }))
    .one(one)
  const joined = arrayOf(new DynamicModel({ a: '', b: '' }))
  db.select('x.name a', 'y.name b')
    .from('items x')
    .innerJoin('items y', $dbx.exp('y.n = x.n AND y.id > x.id'))
    .orderBy('x.id')
    .all(joined)
  const left = arrayOf(new DynamicModel({ a: '', c: 0 }))
  db.select('x.name a', 'COUNT(y.id) AS c')
    .from('items x')
    .leftJoin('items y', $dbx.exp('y.n > x.n'))
    .groupBy('x.name')
    .orderBy('x.name')
    .all(left)
  return e.json(200, { groups, twice, distinct, one, joined, left })
})

routerAdd('GET', '/dbtpl/one-missing', (e) => {
  const m = new DynamicModel({ name: '' })
  $app
    .db()
    .select('name')
    .from('items')
    .where($dbx.hashExp({ id: 'nope' }))
    .one(m)
  return e.json(200, m)
})

routerAdd('POST', '/dbtpl/update', (e) => {
  $app
    .db()
    .update('items', { n: 7, name: 'zed!' }, $dbx.hashExp({ name: 'zed' }))
    .execute()
  $app.db().update('items', { n: 9 }, $dbx.like('name', 'nothing')).execute()
  return e.json(200, { ok: true })
})

routerAdd('POST', '/dbtpl/delete', (e) => {
  $app
    .db()
    .delete('items', $dbx.hashExp({ n: 3 }))
    .execute()
  return e.json(200, { ok: true })
})

routerAdd('POST', '/dbtpl/write-fails', (e) => {
  $app.db().insert('items', { id: 'item00000000001', name: 'dup', n: 0 }).execute()
  return e.json(200, { ok: true })
})

routerAdd('GET', '/dbtpl/err/{kind}', (e) => {
  const items = (q) => {
    const l = arrayOf(new DynamicModel({ id: '', name: '', n: 0 }))
    q.all(l)
    return l
  }
  const db = $app.db()
  const k = e.request.pathValue('kind')
  if (k === 'upsert') db.upsert('items', { id: 'item00000000001', name: 'u', n: 1 }).execute()
  if (k === 'row') db.select('name').from('items').limit(1).row('')
  if (k === 'badTable') items(db.select('id').from('nope'))
  if (k === 'badColumn') items(db.select('nope').from('items'))
  if (k === 'updateStringWhere') db.update('items', { n: 1 }, 'n = 1').execute()
  if (k === 'unbound') items(db.select('id').from('items').where($dbx.exp('n = {:x}')))
  return e.json(200, { ok: true })
})

routerAdd('GET', '/dbtpl/find/{kind}', (e) => {
  const k = e.request.pathValue('kind')
  const ex = {
    hashEmpty: $dbx.hashExp({}),
    andEmpty: $dbx.and(),
    expEmpty: $dbx.exp(''),
    like: $dbx.like('name', 'a'),
    likeUnderscore: $dbx.like('name', '_'),
    likePercent: $dbx.like('name', '%'),
  }[k]
  const names = $app.findAllRecords('items', ex).map((r) => r.get('name'))
  return e.json(200, { names: names.sort(), count: $app.countRecords('items', ex) })
})
