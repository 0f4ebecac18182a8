/** The push feature's system collection: the devices and browsers that receive pushes. */
import type { SystemCollectionSpec } from '../../core/collections/system.js'
import { bool, json, select, text } from '../../core/collections/system-fields.js'
import { owner } from '../../core/collections/system-rules.js'

export const pushCollections: SystemCollectionSpec[] = [
  {
    id: 'svc_push_subscriptions',
    name: '_push_subscriptions',
    type: 'base',
    fields: [
      { ...select('platform', ['web', 'android', 'ios']), required: true },
      text('recordRef'),
      bool('enabled'),
      text('endpoint'),
      json('keys'),
      text('token'),
      // The owner's auth collection (filled from the requester when a create leaves it out).
      text('collectionRef'),
    ],
    rules: {
      listRule: owner,
      viewRule: owner,
      createRule: `@request.auth.id != "" && ${owner}`,
      // A row cannot be handed to another record (it would receive that record's pushes).
      updateRule: `${owner} && (@request.body.recordRef:isset = false || @request.body.recordRef = @request.auth.id) && (@request.body.collectionRef:isset = false || @request.body.collectionRef = @request.auth.collectionId)`,
      deleteRule: owner,
    },
    ruleChanges: [
      // The first update rule let a row be handed to another record.
      { version: 1, former: { updateRule: ['recordRef = @request.auth.id'] } },
      // Rules on recordRef alone let a record of another auth collection with the same id in.
      {
        version: 2,
        former: {
          listRule: ['recordRef = @request.auth.id'],
          viewRule: ['recordRef = @request.auth.id'],
          createRule: ['@request.auth.id != "" && recordRef = @request.auth.id'],
          updateRule: [
            'recordRef = @request.auth.id',
            'recordRef = @request.auth.id && (@request.body.recordRef:isset = false || @request.body.recordRef = @request.auth.id)',
          ],
          deleteRule: ['recordRef = @request.auth.id'],
        },
      },
    ],
    // Targeted sends and triggers read the enabled rows of one recordRef.
    indexes: ['CREATE INDEX idx_push_subscriptions_recordRef ON _push_subscriptions (recordRef)'],
  },
]
