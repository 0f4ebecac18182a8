/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $app, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// The members of PocketBase's core.Record the other suites do not exercise (the `record` suite).

// (PocketBase runs each handler on its own: the ids are written out in each.) svcbase gives every
// collection `created` and `updated` (PocketBase's API-made ones have none): they are hidden (a
// no-op on PocketBase) or dropped, so both answer alike.

routerAdd('GET', '/rm/getters', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  const d = r.getDateTime('when')
  const z = r.getDateTime('title')
  const g = r.getGeoPoint('place')
  const none = r.getGeoPoint('title')
  const fields = r.fieldsData()
  delete fields.created
  delete fields.updated
  return e.json(200, {
    when: d,
    whenString: d.string(),
    whenText: String(d),
    whenZero: d.isZero(),
    whenUnix: d.unix(),
    zero: z,
    zeroString: z.string(),
    zeroZero: z.isZero(),
    place: g,
    lon: g.lon,
    lat: g.lat,
    none: none,
    int64: r.getInt64('n'),
    int64Text: r.getInt64('title'),
    baseFilesPath: r.baseFilesPath(),
    hookTags: r.hookTags(),
    fieldsData: fields,
    customData: r.customData(),
  })
})

routerAdd('GET', '/rm/custom', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.hide('created', 'updated', 'n')
  r.set('extra', 'x')
  const off = r.clone()
  r.withCustomData(true)
  const on = r.clone()
  const fresh = r.fresh()
  fresh.hide('created', 'updated')
  const fields = r.fieldsData()
  delete fields.created
  delete fields.updated
  return e.json(200, {
    customData: r.customData(),
    fieldsData: fields,
    off: off,
    on: on,
    fresh: fresh,
    freshExtra: fresh.get('extra'),
    record: r,
  })
})

routerAdd('GET', '/rm/expand', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.hide('created', 'updated')
  const u = $app.findRecordById('rmmembers', 'mbr000000000001')
  u.hide('created', 'updated')
  const before = {
    one: r.expandedOne('owner'),
    all: r.expandedAll('owner'),
    expand: r.expand(),
  }
  r.setExpand({ owner: u })
  const one = r.expandedOne('owner')
  const all = r.expandedAll('owner')
  r.mergeExpand({ owner: u, other: [u] })
  r.mergeExpand({ other: [u] })
  return e.json(200, {
    before: before,
    oneId: one.id,
    allIds: all.map((x) => x.id),
    keys: Object.keys(r.expand()).sort(),
    otherIds: r.expand().other.map((x) => x.id),
    missing: r.expandedOne('nope'),
    record: r,
  })
})

routerAdd('GET', '/rm/hide', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.hide('created', 'updated')
  const plain = r.clone()
  r.hide('title', 'n')
  r.unhide('secret')
  return e.json(200, { plain: plain, hidden: r, title: r.get('title') })
})

routerAdd('GET', '/rm/email', (e) => {
  const m = $app.findRecordById('rmmembers', 'mbr000000000001')
  m.hide('created', 'updated')
  const plain = m.clone()
  m.ignoreEmailVisibility(true)
  return e.json(200, { plain: plain, shown: m, tokenKeyLength: m.tokenKey().length })
})

routerAdd('GET', '/rm/set', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.setRaw('n', '12')
  const raw = r.getRaw('n')
  const got = r.get('n')
  const f1 = r.setIfFieldExists('title', 'via field')
  const f2 = r.setIfFieldExists('nope', 1)
  const mods = r.replaceModifiers({ 'n+': 5, title: 'q', 'tags+': 'c', 'tags-': 'a' })
  return e.json(200, {
    raw: raw,
    got: got,
    f1: f1 ? f1.name : null,
    f2: f2,
    title: r.get('title'),
    nope: r.get('nope'),
    mods: mods,
    isSuperuser: r.isSuperuser(),
  })
})

routerAdd('GET', '/rm/json', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.hide('created', 'updated')
  const text = toString(r.marshalJSON())
  r.unmarshalJSON('{"title":"from json","n":3,"extra":"e"}')
  return e.json(200, {
    marshal: JSON.parse(text),
    title: r.get('title'),
    n: r.get('n'),
    extra: r.get('extra'),
  })
})

routerAdd('GET', '/rm/jsonfield', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  const result = {}
  r.unmarshalJSONField('data', result)
  return e.json(200, { result: result })
})

routerAdd('GET', '/rm/dbexport', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  const out = r.dbExport($app)
  return e.json(200, {
    keys: Object.keys(out)
      .filter((k) => k !== 'created' && k !== 'updated')
      .sort(),
    title: out.title,
    n: out.n,
  })
})

routerAdd('GET', '/rm/scan', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.set('title', 'scanned')
  const before = r.original().get('title')
  r.postScan()
  const same = r.ignoreUnchangedFields(true)
  return e.json(200, {
    before: before,
    after: r.original().get('title'),
    chained: same.get('title'),
  })
})

routerAdd('GET', '/rm/password', (e) => {
  const m = $app.findRecordById('rmmembers', 'mbr000000000001')
  const key = m.tokenKey()
  const pw = m.setRandomPassword()
  const changedByRandom = m.tokenKey() !== key
  m.refreshTokenKey()
  const refreshed = m.tokenKey()
  m.setTokenKey('my-key')
  return e.json(200, {
    type: typeof pw,
    length: pw.length,
    valid: m.validatePassword(pw),
    changedByRandom: changedByRandom,
    refreshedLength: refreshed.length,
    refreshedChanged: refreshed !== key,
    tokenKey: m.tokenKey(),
  })
})

routerAdd('GET', '/rm/superuser', (e) => {
  const su = $app.findAuthRecordByEmail('_superusers', 'hooks-admin@example.com')
  return e.json(200, { isSuperuser: su.isSuperuser() })
})

routerAdd('GET', '/rm/tokens', (e) => {
  const m = $app.findRecordById('rmmembers', 'mbr000000000001')
  const out = {
    auth: m.newAuthToken(),
    static: m.newStaticAuthToken(7200 * 1000000000),
    staticDefault: m.newStaticAuthToken(0),
    verification: m.newVerificationToken(),
    reset: m.newPasswordResetToken(),
    change: m.newEmailChangeToken('changed@example.com'),
    file: m.newFileToken(),
  }
  // Each token's claims with its lifetime in minutes in place of its expiry.
  const claims = {}
  for (const k of Object.keys(out)) {
    const c = $security.parseUnverifiedJWT(out[k])
    c.exp = Math.round((c.exp - Date.now() / 1000) / 60)
    claims[k] = c
  }
  return e.json(200, { tokens: out, claims: claims })
})

routerAdd('POST', '/rm/upload', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  r.set('docs', [$filesystem.fileFromBytes('hello file', 'doc.txt')])
  const unsaved = r.getUnsavedFiles('docs')
  const uploaded = r.getUploadedFiles('docs')
  $app.save(r)
  return e.json(200, {
    unsaved: unsaved.map((f) => [f.originalName, f.size]),
    uploaded: uploaded.length,
  })
})

routerAdd('GET', '/rm/files', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  const name = r.getStringSlice('docs')[0]
  const field = r.findFileFieldByFile(name)
  return e.json(200, {
    name: name,
    field: field ? field.name : null,
    missing: r.findFileFieldByFile('nope.txt'),
    unsaved: r.getUnsavedFiles('docs').length,
  })
})

routerAdd('GET', '/rm/bad/{what}', (e) => {
  const r = $app.findRecordById('rmnotes', 'nte000000000001')
  const what = e.request.pathValue('what')
  if (what === 'token') return e.json(200, { token: r.newAuthToken() })
  if (what === 'json') r.unmarshalJSON('not json')
  if (what === 'jsonfield') r.unmarshalJSONField('title', {})
  if (what === 'date') return e.json(200, { date: r.getDateTime('title').string() })
  return e.json(200, { title: r.get('title') })
})

onRecordEnrich((e) => {
  if (e.requestInfo.query['showEmail'] === '1') e.record.ignoreEmailVisibility(true)
  return e.next()
}, 'rmmembers')
