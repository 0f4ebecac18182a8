/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $http, …): not a module of this repo.
// PocketBase's realtime, settings, file, batch and backup hooks (suite "featurehooks", recorded
// from PocketBase 0.40.4 by test/pocketbase/hooks/record-featurehooks.ts). What the hooks saw
// outside a request's answer goes to the `seen` collection, which GET /seen reads and empties.
// (A handler sees nothing of the file's top level in PocketBase: each one saves its own.)

routerAdd('GET', '/seen', (e) => {
  const rows = $app.findRecordsByFilter('seen', "what != ''", '', 100, 0)
  const out = rows.map((r) => r.get('what')).sort()
  rows.forEach((r) => $app.delete(r))
  return e.json(200, out)
})

// --- settings ---------------------------------------------------------------------------

onSettingsListRequest((e) => {
  const q = e.requestInfo().query
  if (q.stop) return e.json(200, { stopped: true, appName: e.settings.meta.appName })
  if (q.rename) e.settings.meta.appName = 'Listed ' + e.settings.meta.appName
  e.next()
})

onSettingsUpdateRequest((e) => {
  const q = e.requestInfo().query
  if (q.stop)
    return e.json(200, { old: e.oldSettings.meta.appName, new: e.newSettings.meta.appName })
  if (q.suffix) e.newSettings.meta.appName = e.newSettings.meta.appName + q.suffix
  if (q.hide) e.newSettings.meta.hideControls = true
  if (q.blank) e.newSettings.meta.appName = ''
  e.next()
})

onSettingsReload((e) => {
  try {
    const seen = new Record($app.findCollectionByNameOrId('seen'))
    seen.set('what', 'reload')
    $app.save(seen)
  } catch (_) {
    // no `seen` collection yet
  }
  e.next()
})

// --- files ------------------------------------------------------------------------------

onFileTokenRequest((e) => {
  const q = e.requestInfo().query
  if (q.stop)
    return e.json(200, {
      same: e.record.id === e.auth.id,
      collection: e.collection,
      long: e.token.length > 20,
    })
  if (q.replace) e.token = 'replaced-' + q.replace
  if (q.tagged) e.token = 'untagged' // then the tagged handlers' turn, if they run
  e.next()
})

onFileDownloadRequest((e) => {
  const q = e.requestInfo().query
  if (q.stop)
    return e.json(200, {
      field: e.fileField.name,
      type: e.fileField.type(),
      collection: e.collection.name,
      title: e.record.get('title'),
      sameName: e.servedName === e.record.get('doc'),
      path: e.servedPath === e.collection.id + '/' + e.record.id + '/' + e.servedName,
      thumbError: e.thumbError ? String(e.thumbError) : null,
    })
  if (q.rename) e.servedName = q.rename
  if (q.other) {
    const other = $app.findRecordById('notes', q.other)
    e.servedPath = e.collection.id + '/' + other.id + '/' + other.get('doc')
  }
  e.next()
}, 'notes')

onFileDownloadRequest(() => {
  throw new BadRequestError('a handler of another collection ran')
}, 'elsewhere')

// --- batch ------------------------------------------------------------------------------

onBatchRequest((e) => {
  const q = e.requestInfo().query
  if (q.stop)
    return e.json(200, {
      n: e.batch.length,
      items: e.batch.map((b) => ({
        method: b.method,
        url: b.url,
        body: b.body,
        headers: b.headers,
      })),
    })
  if (q.retitle) e.batch.forEach((b) => (b.body.title = q.retitle))
  e.next()
})

// --- backups ----------------------------------------------------------------------------

onBackupCreate((e) => {
  try {
    const seen = new Record($app.findCollectionByNameOrId('seen'))
    seen.set('what', 'create ' + JSON.stringify(e.name))
    $app.save(seen)
  } catch (_) {
    // no `seen` collection yet
  }
  if (e.name.indexOf('skip') >= 0) return
  if (e.name.indexOf('rename') >= 0) e.name = 'renamed-' + e.name
  e.next()
})

onBackupRestore((e) => {
  try {
    const seen = new Record($app.findCollectionByNameOrId('seen'))
    seen.set('what', 'restore ' + e.name)
    $app.save(seen)
  } catch (_) {
    // no `seen` collection yet
  }
  if (e.name.indexOf('norestore') >= 0) return
  e.next()
})

// --- realtime ---------------------------------------------------------------------------

onRealtimeConnectRequest((e) => {
  const h = e.requestInfo().headers
  if (h.x_deny) throw new ForbiddenError('No realtime for you.')
  if (h.x_stop) return
  e.next()
})

onRealtimeSubscribeRequest((e) => {
  if (e.subscriptions.indexOf('deny') >= 0) throw new ForbiddenError('No such subscription.')
  try {
    const seen = new Record($app.findCollectionByNameOrId('seen'))
    seen.set('what', 'subscribe ' + e.client.id().length + ' ' + e.subscriptions.join(','))
    $app.save(seen)
  } catch (_) {
    // no `seen` collection yet
  }
  e.subscriptions = e.subscriptions.filter((s) => s !== 'secret')
  e.next()
})

onRealtimeMessageSend((e) => {
  if (e.message.name !== 'notes') return e.next()
  const d = JSON.parse(toString(e.message.data))
  if (d.record.title === 'hidden') return
  d.record.hooked = true
  e.message.data = JSON.stringify(d)
  e.next()
})
