/* eslint-disable */
// PocketBase JSVM globals: not a module of this repo. onRecordEnrich of "items": every record an
// answer carries (list, view, create and update answers, expanded relations).
/// <reference path="../pb_data/types.d.ts" />

onRecordEnrich((e) => {
  const r = e.record
  // (svcbase gives a collection created through the API `created` and `updated` fields,
  // PocketBase does not: hidden here so that the answers compare.)
  r.hide('secret', 'created', 'updated')
  r.set('title', r.getString('title') + ' (enriched)')
  // A key the collection lacks, set before withCustomData(true): answered all the same.
  r.set('dropped', 1)
  r.withCustomData(true)
  r.set(
    'extra',
    e.requestInfo.context +
      ' ' +
      r.getString('secret') +
      ' ' +
      (e.requestInfo.auth ? 'auth' : 'guest'),
  )
  if (r.getString('title').indexOf('shown') === 0) r.unhide('hiddenField')
  e.next()
}, 'items')

// A second handler sees the first one's changes.
onRecordEnrich((e) => {
  e.record.set('second', e.record.getString('title'))
  e.next()
}, 'items')

// The stored values, read past the enrich hook.
routerAdd('GET', '/lc/item/{id}', (e) => {
  const r = $app.findRecordById('items', e.request.pathValue('id'))
  return e.json(200, { title: r.getString('title'), secret: r.getString('secret') })
})
