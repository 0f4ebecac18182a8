/* eslint-disable */
// A migration the app carries (PocketBase JSVM): applied by PocketBase when the fixture was
// recorded, so svcbase serving the folder must not apply it again.
/// <reference path="../pb_data/types.d.ts" />
migrate(
  (app) => {
    const notes = new Collection({
      name: 'notes',
      type: 'base',
      listRule: '',
      viewRule: '',
      createRule: '',
      fields: [{ name: 'text', type: 'text', required: true }],
    })
    app.save(notes)
    const note = new Record(notes)
    note.set('text', 'made by a migration')
    app.save(note)
  },
  (app) => {
    app.delete(app.findCollectionByNameOrId('notes'))
  },
)
