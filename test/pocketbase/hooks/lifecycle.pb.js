/* eslint-disable */
// PocketBase JSVM globals: not a module of this repo. Every record, collection and model handler
// writes one row of "log" (seq: its order) and goes on, so the cases read the order.
/// <reference path="../pb_data/types.d.ts" />

// Each bootstrap counts itself in the name of a user (the app is ready after e.next()).
onBootstrap((e) => {
  e.next()
  let r
  try {
    r = $app.findAuthRecordByEmail('users', 'boot@example.com')
  } catch (_) {
    r = new Record($app.findCollectionByNameOrId('users'))
    r.setEmail('boot@example.com')
    r.setPassword('password123')
    r.set('name', '0')
  }
  r.set('name', String(Number(r.getString('name')) + 1))
  $app.save(r)
})

// A second handler: the chain goes on through it.
onBootstrap((e) => {
  e.next()
})

routerAdd('GET', '/lc/boot', (e) => {
  const boot = $app.findAuthRecordByEmail('users', 'boot@example.com')
  return e.json(200, { boots: boot.getString('name') })
})

// The stop (not seen by the recorded cases: the replay test restarts the app in-process).
onTerminate((e) => {
  const r = new Record($app.findCollectionByNameOrId('users'))
  r.setEmail('term' + $security.randomStringWithAlphabet(8, 'abcdefgh') + '@example.com')
  r.setPassword('password123')
  r.set('name', 'terminate ' + e.isRestart)
  $app.save(r)
  e.next()
})

onBootstrapClear((e) => {
  e.next()
})

routerAdd('GET', '/lc/log', (e) => {
  const rows = $app.findRecordsByFilter('log', 'seq > 0', 'seq', 200, 0)
  return e.json(
    200,
    rows.map((r) => r.getString('ev')),
  )
})

routerAdd('DELETE', '/lc/log', (e) => {
  const rows = $app.findRecordsByFilter('log', 'seq > 0', 'seq', 200, 0)
  for (const r of rows) $app.delete(r)
  return e.noContent(204)
})

// Records of "notes": every model-level family, in PocketBase's order.
onRecordCreate((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordCreate ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordValidate((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordValidate ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordCreateExecute((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordCreateExecute ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordAfterCreateSuccess((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordAfterCreateSuccess ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordUpdate((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordUpdate ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordUpdateExecute((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordUpdateExecute ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordAfterUpdateSuccess((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordAfterUpdateSuccess ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordDelete((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordDelete ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordDeleteExecute((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordDeleteExecute ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

onRecordAfterDeleteSuccess((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev: 'onRecordAfterDeleteSuccess ' + e.record.getString('title'),
    }),
  )
  e.next()
}, 'notes')

// The failures: what the handlers throw on purpose, then the error hooks.
onRecordCreateExecute((e) => {
  if (e.record.getString('title') === 'throw') throw new Error('boom in execute')
  e.next()
}, 'notes')

onRecordDeleteExecute((e) => {
  if (e.record.getString('title') === 'keep') throw new Error('boom in delete')
  e.next()
}, 'notes')

onRecordUpdate((e) => {
  if (e.record.getString('title') === 'throw') throw new Error('boom in update')
  e.next()
}, 'notes')

onRecordAfterCreateError((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev:
        'onRecordAfterCreateError ' +
        e.record.getString('title') +
        ' ' +
        String(e.error).split('\n')[0],
    }),
  )
  e.next()
}, 'notes')

onRecordAfterUpdateError((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev:
        'onRecordAfterUpdateError ' +
        e.record.getString('title') +
        ' ' +
        String(e.error).split('\n')[0],
    }),
  )
  e.next()
}, 'notes')

onRecordAfterDeleteError((e) => {
  $app.save(
    new Record($app.findCollectionByNameOrId('log'), {
      seq: $app.countRecords('log') + 1,
      ev:
        'onRecordAfterDeleteError ' +
        e.record.getString('title') +
        ' ' +
        String(e.error).split('\n')[0],
    }),
  )
  e.next()
}, 'notes')

// The model hooks, for the notes records and the collections (the table "_collections").
onModelCreate(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelCreate ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelValidate(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelValidate ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelCreateExecute(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelCreateExecute ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelAfterCreateSuccess(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelAfterCreateSuccess ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelAfterCreateError(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev:
            'onModelAfterCreateError ' +
            e.type +
            ' ' +
            m.tableName() +
            ' ' +
            what +
            ' ' +
            String(e.error).split('\n')[0],
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelUpdate(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelUpdate ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelUpdateExecute(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelUpdateExecute ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelAfterUpdateSuccess(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelAfterUpdateSuccess ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelAfterUpdateError(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev:
            'onModelAfterUpdateError ' +
            e.type +
            ' ' +
            m.tableName() +
            ' ' +
            what +
            ' ' +
            String(e.error).split('\n')[0],
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelDelete(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelDelete ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelDeleteExecute(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelDeleteExecute ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelAfterDeleteSuccess(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev: 'onModelAfterDeleteSuccess ' + e.type + ' ' + m.tableName() + ' ' + what,
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

onModelAfterDeleteError(
  (e) => {
    const m = e.model
    const what = m.tableName() === '_collections' ? m.name : m.getString('title')
    if (m.tableName() !== '_collections' || m.name === 'watched' || m.name === 'broken') {
      $app.save(
        new Record($app.findCollectionByNameOrId('log'), {
          seq: $app.countRecords('log') + 1,
          ev:
            'onModelAfterDeleteError ' +
            e.type +
            ' ' +
            m.tableName() +
            ' ' +
            what +
            ' ' +
            String(e.error).split('\n')[0],
        }),
      )
    }
    e.next()
  },
  'notes',
  '_collections',
)

// The collection hooks of "watched" (and "broken", whose create fails in its execute hook).
onCollectionCreate(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionCreate ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionValidate(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionValidate ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionCreateExecute(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionCreateExecute ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionAfterCreateSuccess(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionAfterCreateSuccess ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionAfterCreateError(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev:
          'onCollectionAfterCreateError ' +
          e.collection.name +
          ' ' +
          String(e.error).split('\n')[0],
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionUpdate(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionUpdate ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionUpdateExecute(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionUpdateExecute ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionAfterUpdateSuccess(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionAfterUpdateSuccess ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionAfterUpdateError(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev:
          'onCollectionAfterUpdateError ' +
          e.collection.name +
          ' ' +
          String(e.error).split('\n')[0],
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionDelete(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionDelete ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionDeleteExecute(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionDeleteExecute ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionAfterDeleteSuccess(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev: 'onCollectionAfterDeleteSuccess ' + e.collection.name,
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionAfterDeleteError(
  (e) => {
    $app.save(
      new Record($app.findCollectionByNameOrId('log'), {
        seq: $app.countRecords('log') + 1,
        ev:
          'onCollectionAfterDeleteError ' +
          e.collection.name +
          ' ' +
          String(e.error).split('\n')[0],
      }),
    )
    e.next()
  },
  'watched',
  'broken',
)

onCollectionCreateExecute((e) => {
  if (e.collection.name === 'broken') throw new Error('boom in collection execute')
  e.next()
}, 'broken')
