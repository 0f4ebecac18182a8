/// <reference path="../pb_data/types.d.ts" />
migrate(
  (app) => {
    app.save(
      new Collection({
        name: 'things',
        type: 'base',
        fields: [
          { name: 'name', type: 'text' },
          { name: 'n', type: 'number' },
        ],
      }),
    )
    const db = app.db()
    const ins = db.insert('things', { id: 'thing0000000001', name: 'a_b', n: 1 }).execute().rowsAffected()
    db.insert('things', { id: 'thing0000000002', name: 'Abc', n: 2 }).execute()
    db.insert('things', { id: 'thing0000000003', name: 'x\\y', n: 3 }).execute()
    db.insert('things', { id: 'thing0000000004', name: 'zed', n: 3 }).execute()
    const upd = db.update('things', { n: 5 }, $dbx.hashExp({ name: 'Abc' })).execute().rowsAffected()
    const updNone = db.update('things', { n: 6 }, $dbx.hashExp({ name: 'nobody' })).execute().rowsAffected()
    const del = db.delete('things', $dbx.like('name', '_')).execute().rowsAffected()
    const rows = arrayOf(new DynamicModel({ id: '', name: '', n: 0 }))
    db.select('id', 'name', 'n').from('things').where($dbx.hashExp({})).orderBy('n DESC', 'id').all(rows)
    const one = new DynamicModel({ c: 0, top: 0 })
    db.select('COUNT(*) AS c', 'MAX(n) AS top').from('things').one(one)
    const page = arrayOf(new DynamicModel({ name: '' }))
    db.select('name').from('things').where($dbx.exp('n >= {:min}')).bind({ min: 1 }).orderBy('name').limit(1).offset(1).all(page)
    let missing = ''
    try {
      db.select('name').from('things').where($dbx.hashExp({ id: 'nope' })).one(new DynamicModel({ name: '' }))
    } catch (e) {
      missing = String(e).replace(/^\w+: /, '')
    }
    let upsert = ''
    try {
      db.upsert('things', { id: 'thing0000000001', name: 'u', n: 0 }).execute()
    } catch (e) {
      upsert = String(e).replace(/^\w+: /, '')
    }
    const out = new Collection({
      name: 'results',
      type: 'base',
      listRule: '',
      fields: [{ name: 'data', type: 'json', maxSize: 100000 }],
    })
    app.save(out)
    const rec = new Record(out)
    // (as JSON text: svcbase's json field refuses an object made in the migration's context)
    rec.set('data', JSON.stringify({ ins, upd, updNone, del, rows, one, page, missing, upsert }))
    app.save(rec)
  },
  (app) => {
    app.db().delete('things', $dbx.hashExp({ name: 'zed' })).execute()
  },
)
