/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $app, …): not a module of this repo.
// The members of PocketBase's route event, realtime connect event and Collection that the
// other suites do not exercise (cases-event.ts): bindBody, findUploadedFiles,
// request.formFile + $filesystem.fileFromMultipart, isTLS, setCookie + Cookie, status,
// written, xml, flush, stream, fileFS + $os.dirFS; idleTimeout/maxTimeout; baseFilesPath,
// dbExport, integrityChecks, postScan.

// NB: a handler runs apart from the file's top level (PocketBase's handlers see none of its
// own declarations), so each catches its errors itself.

routerAdd('POST', '/ev/bind', (e) => {
  const d = new DynamicModel({ title: '', total: 0, flag: false, list: [], obj: {} })
  e.bindBody(d)
  return e.json(200, d)
})

routerAdd('POST', '/ev/bind-errors', (e) => {
  const out = {}
  try {
    e.bindBody({})
  } catch (err) {
    out.plain = String(err)
  }
  const typed = new DynamicModel({ title: '' })
  try {
    e.bindBody(typed)
  } catch (err) {
    out.typed = String(err)
  }
  out.after = typed
  return e.json(200, out)
})

routerAdd('POST', '/ev/bind-text', (e) => {
  try {
    e.bindBody(new DynamicModel({ title: '' }))
    return e.json(200, { bound: true })
  } catch (err) {
    return e.json(200, { err: String(err) })
  }
})

routerAdd('POST', '/ev/files', (e) => {
  const files = e.findUploadedFiles('doc')
  return e.json(200, {
    count: files.length,
    files: files.map((f) => ({
      originalName: f.originalName,
      size: f.size,
      named: /^[\w-]+_[a-z0-9]{10}\.\w+$/.test(f.name),
    })),
  })
})

routerAdd('POST', '/ev/files-missing', (e) => {
  try {
    return e.json(200, { found: e.findUploadedFiles('nope').length })
  } catch (err) {
    return e.json(200, { err: String(err) })
  }
})

routerAdd('POST', '/ev/formfile', (e) => {
  const [file, header] = e.request.formFile('doc')
  const f = $filesystem.fileFromMultipart(header)
  return e.json(200, {
    header: { filename: header.filename, size: header.size },
    file: { originalName: f.originalName, size: f.size },
  })
})

routerAdd('POST', '/ev/formfile-missing', (e) => {
  try {
    e.request.formFile('nope')
    return e.json(200, { found: true })
  } catch (err) {
    return e.json(200, { err: String(err) })
  }
})

// the file uploaded, saved into a record's file field, then the record read back
routerAdd('POST', '/ev/save-upload', (e) => {
  const rec = new Record($app.findCollectionByNameOrId('evdocs'))
  rec.set('title', 'uploaded')
  rec.set('file', e.findUploadedFiles('doc')[0])
  $app.save(rec)
  return e.json(200, { ok: true })
})

// what status() and written() tell before and after the answer, kept for /ev/state/read
routerAdd('GET', '/ev/state', (e) => {
  const before = { status: e.status(), written: e.written(), tls: e.isTLS() }
  e.string(201, 'x')
  const after = { status: e.status(), written: e.written() }
  const kept = new Record($app.findCollectionByNameOrId('evdocs'))
  kept.set('title', 'state')
  kept.set('data', { before: before, after: after })
  $app.save(kept)
})

routerAdd('GET', '/ev/state/read', (e) => {
  const kept = $app.findFirstRecordByData('evdocs', 'title', 'state')
  return e.json(200, kept.get('data'))
})

routerAdd('GET', '/ev/cookie', (e) => {
  e.setCookie(
    new Cookie({
      name: 'a',
      value: 'b c',
      path: '/',
      domain: 'example.com',
      maxAge: 10,
      secure: true,
      httpOnly: true,
      sameSite: 3,
    }),
  )
  e.setCookie(new Cookie({ name: 'plain', value: 'v' }))
  e.setCookie({ name: 'obj', value: 'o', maxAge: -1 })
  e.setCookie(new Cookie({ name: '', value: 'dropped' }))
  e.setCookie(new Cookie({ name: 'b;ad', value: 'dropped' }))
  return e.string(200, 'ok')
})

routerAdd('GET', '/ev/xml/string', (e) => e.xml(200, 'a<b & "c"'))
routerAdd('GET', '/ev/xml/number', (e) => e.xml(202, 42))
routerAdd('GET', '/ev/xml/bool', (e) => e.xml(200, true))

routerAdd('GET', '/ev/flush', (e) => {
  e.string(200, 'flushed')
  e.flush()
})

routerAdd('GET', '/ev/stream', (e) => {
  const f = $filesystem.fileFromBytes('a,b\n1,2\n', 'x.csv')
  return e.stream(200, 'text/csv', f.reader.open())
})

routerAdd('POST', '/ev/stream-upload', (e) => {
  const [file, header] = e.request.formFile('doc')
  return e.stream(200, 'text/plain', file)
})

routerAdd('GET', '/ev/filefs', (e) =>
  e.fileFS($os.dirFS(__hooks + '/event-files'), e.request.url.query().get('f')),
)

routerAdd('GET', '/ev/collection', (e) => {
  const c = $app.findCollectionByNameOrId('evdocs')
  const x = c.dbExport($app)
  return e.json(200, {
    baseFilesPath: c.baseFilesPath(),
    integrityChecks: c.integrityChecks(false) === undefined,
    postScan: c.postScan() === undefined,
    export: {
      id: x.id,
      name: x.name,
      type: x.type,
      system: x.system,
      listRule: x.listRule,
      createRule: x.createRule,
      options: x.options,
      indexes: x.indexes,
      // (svcbase adds the created/updated autodates to a base collection made without them)
      fields: x.fields.map((f) => f.name).filter((n) => n !== 'created' && n !== 'updated'),
      keys: Object.keys(x).sort(),
    },
  })
})

routerAdd('GET', '/ev/collection-view', (e) => {
  const x = $app.findCollectionByNameOrId('evview').dbExport($app)
  return e.json(200, { options: x.options, type: x.type })
})

// NB: PocketBase's connect event has no e.request; every connection of the suite is a probe,
// refused with the timeouts read and set as its message
onRealtimeConnectRequest((e) => {
  const before = [
    String(e.idleTimeout),
    Number(e.idleTimeout),
    String(e.maxTimeout),
    Number(e.maxTimeout),
    e.idleTimeout.seconds(),
  ]
  e.idleTimeout = 2000000000
  e.maxTimeout = 90 * 60 * 1000000000
  const after = [
    String(e.idleTimeout),
    Number(e.idleTimeout),
    String(e.maxTimeout),
    JSON.stringify({ t: e.maxTimeout }),
  ]
  throw new BadRequestError('timeouts ' + before.join(' ') + ' then ' + after.join(' '))
})

// bad inputs: PocketBase's answers (a 400 for a value of the wrong kind)
routerAdd('GET', '/ev/bad/stream', (e) => e.stream(200, 'text/plain', 'not a reader'))
routerAdd('GET', '/ev/bad/filefs', (e) => e.fileFS(__hooks, 'event-members.pb.js'))
routerAdd('GET', '/ev/bad/dirfs', (e) => e.fileFS($os.dirFS(__hooks + '/no-such-folder'), 'x.txt'))
routerAdd('GET', '/ev/bad/cookie-null', (e) => {
  e.setCookie(null)
  return e.string(200, 'ok')
})
routerAdd('GET', '/ev/bad/cookie-text', (e) => {
  e.setCookie('a=b')
  return e.string(200, 'ok')
})
routerAdd('POST', '/ev/bad/bind', (e) => {
  const d = new DynamicModel({ title: '' })
  e.bindBody(d)
  return e.json(200, d)
})
routerAdd('GET', '/ev/xml/null', (e) => e.xml(200, null))
routerAdd('GET', '/ev/xml/float', (e) => e.xml(200, 1.5))

// Go's *http.Request members apps read (host and remoteAddr vary with the server: their shape only).
routerAdd('POST', '/ev/request', (e) => {
  const r = e.request
  let missing = ''
  try {
    r.cookie('nope')
  } catch (err) {
    missing = String(err)
  }
  const [user, pass, ok] = r.basicAuth()
  return e.json(200, {
    method: r.method,
    proto: r.proto,
    requestURI: r.requestURI,
    contentLength: r.contentLength,
    hostIsText: typeof r.host === 'string' && r.host.length > 0,
    remoteAddrHasPort: /:\d+$/.test(r.remoteAddr),
    cookie: r.cookie('a').value,
    cookies: r.cookies().map((c) => c.name + '=' + c.value),
    missing,
    userAgent: r.userAgent(),
    referer: r.referer(),
    formValue: r.formValue('q'),
    basicAuth: [user, pass, ok],
    headerValues: r.header.values('X-Multi'),
    queryHas: r.url.query().has('q'),
    queryHasNot: r.url.query().has('zz'),
    rawQuery: r.url.rawQuery,
  })
})
