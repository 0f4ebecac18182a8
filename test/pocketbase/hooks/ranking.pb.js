/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $app, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// The members real apps use most (reference/pocketbase-jsvm.md §7) not exercised by the other
// suites: record request and model hooks, after-success hooks, logger, collection props, errors.

onRecordCreateRequest((e) => {
  if (e.record.get('title') === 'reject')
    throw new BadRequestError('rejected by hook', { title: 'no' })
  e.record.set('n', 7)
  return e.next()
}, 'items')

onRecordUpdateRequest((e) => {
  e.record.set('title', e.record.get('title') + ' (edited)')
  return e.next()
}, 'items')

onRecordViewRequest((e) => {
  e.record.set('title', 'viewed: ' + e.record.get('title'))
  return e.next()
}, 'items')

onRecordsListRequest((e) => {
  for (const r of e.records) r.set('title', String(r.get('title')).toUpperCase())
  return e.next()
}, 'items')

onRecordDeleteRequest((e) => {
  if (e.record.get('title') === 'keep') throw new ForbiddenError('kept by hook', {})
  return e.next()
}, 'items')

onRecordUpdate((e) => {
  e.record.set('n', e.record.getInt('n') + 100)
  return e.next()
}, 'items')

onRecordDelete((e) => {
  if (e.record.get('title') === 'guarded')
    throw new InternalServerError('delete refused', { why: 'guarded' })
  return e.next()
}, 'items')

onRecordAfterCreateSuccess((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('trace'), {
      text: 'created ' + e.record.get('title'),
    }),
  )
  return e.next()
}, 'items')

onRecordAfterUpdateSuccess((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('trace'), {
      text: 'updated ' + e.record.get('title') + ' n=' + e.record.getInt('n'),
    }),
  )
  return e.next()
}, 'items')

onRecordAfterDeleteSuccess((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('trace'), {
      text: 'deleted ' + e.record.get('title'),
    }),
  )
  return e.next()
}, 'items')

onCollectionAfterCreateSuccess((e) => {
  if (e.collection.name === 'widgets') {
    $app.save(
      new Record($app.findCollectionByNameOrId('trace'), {
        text: 'collection ' + e.collection.name + ' ' + e.collection.type,
      }),
    )
  }
  return e.next()
})

routerAdd('GET', '/rk/log', (e) => {
  console.log('ranking console line', 1)
  const logger = $app.logger()
  logger.debug('rk debug', 'a', 1)
  logger.info('rk info', 'b', 'two', 'n', 3)
  logger.warn('rk warn')
  logger.error('rk error', 'c', true)
  return e.json(200, { logged: true })
})

routerAdd('GET', '/rk/col/{name}', (e) => {
  const c = $app.findCollectionByNameOrId(e.request.pathValue('name'))
  const title = c.fields.getByName('title')
  return e.json(200, {
    id: c.system ? c.id : typeof c.id,
    name: c.name,
    type: c.type,
    listRule: c.listRule,
    viewRule: c.viewRule,
    createRule: c.createRule,
    updateRule: c.updateRule,
    deleteRule: c.deleteRule,
    title: title ? title.type() : null,
  })
})

routerAdd(
  'GET',
  '/rk/me',
  (e) => e.json(200, { email: e.auth.email(), collection: e.auth.collection().name }),
  $apis.requireAuth(),
)

routerAdd('GET', '/rk/byids', (e) => {
  const ids = String(e.request.url.query().get('ids')).split(',')
  const found = $app.findRecordsByIds('items', ids)
  return e.json(200, found.map((r) => r.get('title')).sort())
})

routerAdd('GET', '/rk/internal', (e) => {
  throw new InternalServerError('it broke', { part: 'engine' })
})

routerAdd('GET', '/rk/pw', (e) => {
  const r = $app.findAuthRecordByEmail('users', 'rk@example.com')
  const out = {
    right: r.validatePassword('password123'),
    wrong: r.validatePassword('password124'),
    empty: r.validatePassword(''),
  }
  r.setPassword('changed-pass-1')
  out.afterSetNew = r.validatePassword('changed-pass-1')
  out.afterSetOld = r.validatePassword('password123')
  return e.json(200, out)
})

routerAdd('GET', '/rk/enrich/{id}', (e) => {
  const r = $app.findRecordById('items', e.request.pathValue('id'))
  $apis.enrichRecord(e, r, 'owner')
  r.set('n', 42)
  return e.json(200, r)
})

// (svcbase adds created/updated to collections made through the API, SPEC 4.1: left out here.)
routerAdd('GET', '/rk/enrich-many', (e) => {
  const list = $app.findRecordsByFilter('items', "owner != ''", 'title', 10, 0)
  $apis.enrichRecords(e, list)
  return e.json(
    200,
    list.map((r) => {
      const j = JSON.parse(JSON.stringify(r))
      return {
        id: j.id,
        keys: Object.keys(j)
          .filter((k) => k !== 'created' && k !== 'updated')
          .sort(),
        ownerEmail: j.expand.owner ? j.expand.owner.email : null,
      }
    }),
  )
})

routerAdd('GET', '/rk/enrich-user', (e) => {
  const r = $app.findAuthRecordByEmail('users', 'rk@example.com')
  $apis.enrichRecord(e, r)
  return e.json(200, r)
})

routerAdd('GET', '/rk/error-data', (e) => {
  throw new BadRequestError('nested data', { title: { code: 'x', message: 'y' }, list: [1], n: 2 })
})
