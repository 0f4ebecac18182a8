/* eslint-disable */
// The moved app's own hooks (PocketBase JSVM): run by PocketBase when the fixture was recorded,
// and by svcbase serving the same folder (test/pocketbase-folder-app.test.ts).
/// <reference path="../pb_data/types.d.ts" />

routerAdd('GET', '/api/app/posts/{id}', (e) => {
  const post = $app.findRecordById('posts', e.request.pathValue('id'))
  const tags = $app.findRecordsByFilter('tags', 'name != {:none}', 'name', 10, 0, { none: '' })
  return e.json(200, {
    title: post.get('title'),
    views: post.getInt('views'),
    tags: tags.map((t) => t.get('name')),
    token: $security.randomString(12).length,
    who: e.auth ? e.auth.email() : null,
  })
})

onRecordCreateRequest((e) => {
  e.record.set('text', String(e.record.get('text')).toUpperCase())
  return e.next()
}, 'notes')

routerAdd('GET', '/api/app/schema/{name}', (e) => {
  const c = $app.findCollectionByNameOrId(e.request.pathValue('name'))
  const draft = new Collection({
    name: 'draft',
    type: 'base',
    fields: [{ name: 'a', type: 'text' }],
  })
  return e.json(200, {
    id: c.id,
    name: c.name,
    listRule: c.listRule,
    title: c.fields.getByName('title') ? c.fields.getByName('title').required : null,
    draft: draft.name,
  })
})
