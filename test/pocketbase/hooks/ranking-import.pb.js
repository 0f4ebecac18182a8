/* eslint-disable */
// PocketBase JSVM globals: not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// `$app.importCollections` in a route (as migrations use it).

routerAdd('POST', '/rk/import', (e) => {
  $app.importCollections(
    [
      {
        name: 'imported',
        type: 'base',
        listRule: '',
        fields: [{ name: 'title', type: 'text', required: true }],
      },
    ],
    false,
  )
  return e.json(200, { imported: true })
})
