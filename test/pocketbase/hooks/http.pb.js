/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $http, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// $http.send against the suite's local target (test/pocketbase/hooks/http-target.ts), found
// through $os.getenv: PB_HTTP_TARGET answers, PB_HTTP_CLOSED refuses connections, PB_HTTP_TLS
// has a self-signed certificate. Each handler
// reads them itself (PocketBase's handlers do not see the file's top-level names).

routerAdd('GET', '/http/get', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const res = $http.send({ url: t + '/echo?x=1', headers: { 'X-Custom': 'c1' } })
  return e.json(200, {
    statusCode: res.statusCode,
    json: res.json,
    raw: res.raw,
    bodyText: toString(res.body),
    bodyIsArray: Array.isArray(res.body),
    bodyLength: res.body.length,
    firstByte: res.body[0],
    keys: Object.keys(res).sort(),
    headerNames: Object.keys(res.headers)
      .filter((k) => k !== 'Date')
      .sort(),
    hasDate: res.headers['Date'].length,
    contentType: res.headers['Content-Type'],
    multi: res.headers['X-Multi'],
    lowercase: res.headers['content-type'] === undefined,
    cookieCount: res.headers['Set-Cookie'].length,
  })
})

routerAdd('GET', '/http/cookies', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const res = $http.send({ url: t + '/echo' })
  const sid = res.cookies.sid
  const exp = res.cookies.exp
  return e.json(200, {
    names: Object.keys(res.cookies).sort(),
    sidKeys: Object.keys(sid),
    sid: {
      name: sid.name,
      value: sid.value,
      path: sid.path,
      maxAge: sid.maxAge,
      httpOnly: sid.httpOnly,
      secure: sid.secure,
      sameSite: sid.sameSite,
      raw: sid.raw,
      expires: String(sid.expires),
      string: sid.string(),
    },
    exp: {
      value: exp.value,
      quoted: exp.quoted,
      domain: exp.domain,
      expires: String(exp.expires),
      rawExpires: exp.rawExpires,
      secure: exp.secure,
      sameSite: exp.sameSite,
      unparsed: exp.unparsed,
    },
    json: res.cookies,
  })
})

routerAdd('POST', '/http/post', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const body = e.requestInfo().body
  const res = $http.send({
    url: t + '/echo',
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', 'X-Two': '2' },
  })
  return e.json(200, { statusCode: res.statusCode, sent: res.json })
})

routerAdd('GET', '/http/variants', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const echo = (config) => $http.send(Object.assign({ url: t + '/echo' }, config)).json
  return e.json(200, {
    plain: echo({ method: 'POST', body: 'plain text' }),
    data: echo({ method: 'put', data: { d: [1, 'x'] } }),
    dataOverBody: echo({ method: 'POST', body: 'ignored', data: { a: 1 } }),
    number: echo({ method: 'POST', body: 12 }),
    object: echo({ method: 'POST', body: { o: 1 } }),
    emptyPost: echo({ method: 'POST' }),
    headerNumber: echo({ headers: { 'X-Two': 2 } }),
    userAgent: echo({ headers: { 'User-Agent': 'mine/1.0' } }),
    head: $http.send({ url: t + '/echo', method: 'HEAD' }).statusCode,
    headRaw: $http.send({ url: t + '/echo', method: 'HEAD' }).raw,
  })
})

routerAdd('GET', '/http/kinds', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const out = {}
  for (const p of ['/text', '/array', '/scalar', '/empty', '/missing', '/boom']) {
    const r = $http.send({ url: t + p })
    out[p] = {
      statusCode: r.statusCode,
      json: r.json,
      raw: r.raw,
      text: toString(r.body),
      headerNames: Object.keys(r.headers).sort(),
    }
  }
  return e.json(200, out)
})

routerAdd('GET', '/http/status/{code}', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const path = e.request.pathValue('code') === '404' ? '/missing' : '/boom'
  const r = $http.send({ url: t + path })
  return e.json(r.statusCode === 404 ? 200 : 202, {
    statusCode: r.statusCode,
    json: r.json,
    raw: r.raw,
  })
})

routerAdd('GET', '/http/redirect', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const get = $http.send({ url: t + '/redirect', headers: { 'X-Custom': 'kept' } })
  const post = $http.send({ url: t + '/redirect', method: 'POST', body: 'dropped' })
  return e.json(200, { get: [get.statusCode, get.json], post: [post.statusCode, post.json] })
})

routerAdd('GET', '/http/timeout', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  try {
    $http.send({ url: t + '/slow?ms=2500', timeout: 1 })
    return e.json(200, { sent: true })
  } catch (err) {
    return e.json(200, { name: err.name, message: err.message.split(t).join('TARGET') })
  }
})

routerAdd('GET', '/http/refused', (e) => {
  const c = $os.getenv('PB_HTTP_CLOSED')
  try {
    $http.send({ url: c + '/x', method: 'post', body: 'a' })
    return e.json(200, { sent: true })
  } catch (err) {
    return e.json(200, {
      name: err.name,
      text: String(err).split(c).join('CLOSED').split(c.slice(7)).join('CLOSED_ADDR'),
    })
  }
})

routerAdd('GET', '/http/refused-uncaught', (e) => {
  const c = $os.getenv('PB_HTTP_CLOSED')
  const res = $http.send({ url: c + '/x' })
  return e.json(200, { statusCode: res.statusCode })
})

routerAdd('GET', '/http/bad-config', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const out = {}
  const tries = {
    noArgument: () => $http.send(),
    noUrl: () => $http.send({}),
    relativeUrl: () => $http.send({ url: 'nope' }),
    ftp: () => $http.send({ url: 'ftp://127.0.0.1/x' }),
    badMethod: () => $http.send({ url: t + '/echo', method: 'BAD METHOD' }),
  }
  for (const k in tries) {
    try {
      tries[k]()
      out[k] = 'sent'
    } catch (err) {
      out[k] = String(err).split(t).join('TARGET')
    }
  }
  return e.json(200, out)
})

routerAdd('GET', '/http/tls', (e) => {
  const t = $os.getenv('PB_HTTP_TLS')
  try {
    $http.send({ url: t + '/x' })
    return e.json(200, { sent: true })
  } catch (err) {
    return e.json(200, { name: err.name, message: err.message.split(t).join('TLS') })
  }
})

routerAdd('GET', '/http/two', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  console.log('two sends: before')
  const a = $http.send({ url: t + '/hit' })
  const b = $http.send({ url: t + '/hit' })
  console.log('two sends: after', a.json.hit, b.json.hit)
  return e.json(200, { first: a.json.hit, second: b.json.hit })
})

routerAdd('GET', '/http/hits', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  return e.json(200, $http.send({ url: t + '/hits' }).json)
})

routerAdd('POST', '/http/save', (e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const res = $http.send({ url: t + '/name?n=saved' })
  const rec = new Record($app.findCollectionByNameOrId('users'))
  rec.set('email', 'saved@example.com')
  rec.set('password', 'password123')
  rec.set('passwordConfirm', 'password123')
  rec.set('name', res.json.name)
  $app.save(rec)
  const hit = $http.send({ url: t + '/hit' })
  return e.json(200, { name: rec.get('name'), hit: hit.json.hit })
})

routerAdd('GET', '/http/names', (e) => {
  const names = $app.findAllRecords('users').map((r) => r.get('name'))
  names.sort()
  return e.json(200, names)
})

onRecordCreateRequest((e) => {
  const t = $os.getenv('PB_HTTP_TARGET')
  const res = $http.send({ url: t + '/name?n=hook' })
  e.record.set('name', res.json.name)
  e.next()
}, 'users')

cronAdd('httpJob', '0 0 1 1 *', () => {
  const t = $os.getenv('PB_HTTP_TARGET')
  $http.send({ url: t + '/hit' })
  $http.send({ url: t + '/hit' })
})
