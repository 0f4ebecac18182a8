/* eslint-disable */
// PocketBase JSVM globals (Middleware, $apis, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// new Middleware(fn, priority, id), routerUse/routerAdd middlewares in priority order, and the
// $apis middlewares. Handlers are self-contained: PocketBase compiles each from its own text.

// Global middlewares: they run around every route (here they only note their passage).
routerUse(
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'g10,')
    return e.next()
  }, 10),
)
routerUse(
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'g-10,')
    return e.next()
  }, -10),
)
routerUse((e) => {
  e.set('trace', (e.get('trace') || '') + 'g0,')
  return e.next()
})
routerUse(
  new Middleware(
    "(e) => { e.set('trace', (e.get('trace') || '') + 'gsrc5,'); return e.next() }",
    5,
  ),
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'g7,')
    return e.next()
  }, 7),
)

routerAdd(
  'GET',
  '/mw/order',
  (e) => e.json(200, { trace: e.get('trace') }),
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'r20,')
    return e.next()
  }, 20),
  (e) => {
    e.set('trace', (e.get('trace') || '') + 'r0,')
    return e.next()
  },
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'r-5,')
    return e.next()
  }, -5),
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'r-20,')
    return e.next()
  }, -20),
)

routerAdd(
  'GET',
  '/mw/answer',
  (e) => e.json(200, { reached: true }),
  new Middleware((e) => e.json(203, { answeredBy: 'middleware', trace: e.get('trace') }), 1),
)

routerAdd(
  'GET',
  '/mw/after',
  (e) => e.json(200, { trace: e.get('trace') }),
  (e) => {
    e.next()
    e.set('after', 1)
  },
)

routerAdd(
  'GET',
  '/mw/throw',
  (e) => e.json(200, { reached: true }),
  new Middleware((e) => {
    throw new BadRequestError('mw says no')
  }, 3),
)

routerAdd(
  'GET',
  '/mw/same-id',
  (e) => e.json(200, { trace: e.get('trace') }),
  new Middleware(
    (e) => {
      e.set('trace', (e.get('trace') || '') + 'first,')
      return e.next()
    },
    0,
    'same',
  ),
  new Middleware(
    (e) => {
      e.set('trace', (e.get('trace') || '') + 'second,')
      return e.next()
    },
    0,
    'same',
  ),
)

routerAdd('GET', '/mw/object', (e) => {
  const m = new Middleware((x) => x.next(), 3, 'abc')
  return e.json(200, { keys: Object.keys(m), type: typeof m, text: String(m) })
})

routerAdd('GET', '/mw/source-handler', "(e) => e.json(200, { from: 'source text' })")

// $apis
routerAdd(
  'GET',
  '/apis/owner/{id}',
  (e) => e.json(200, { owner: !!e.auth && e.auth.id === e.request.pathValue('id') }),
  $apis.requireSuperuserOrOwnerAuth('id'),
)
routerAdd(
  'GET',
  '/apis/owner-param/{uid}',
  (e) => e.json(200, { ok: true }),
  $apis.requireSuperuserOrOwnerAuth('uid'),
)
routerAdd(
  'GET',
  '/apis/owner-default/{id}',
  (e) => e.json(200, { ok: true }),
  $apis.requireSuperuserOrOwnerAuth(''),
)
routerAdd('GET', '/apis/guest', (e) => e.json(200, { ok: true }), $apis.requireGuestOnly())
routerAdd('GET', '/apis/superuser', (e) => e.json(200, { ok: true }), $apis.requireSuperuserAuth())
routerAdd(
  'GET',
  '/apis/auth-mw-priority',
  (e) => e.json(200, { trace: e.get('trace') }),
  $apis.requireAuth(),
  new Middleware((e) => {
    e.set('trace', (e.get('trace') || '') + 'r-1,')
    return e.next()
  }, -1),
)
routerAdd(
  'POST',
  '/apis/limit',
  (e) => e.json(200, { body: e.requestInfo().body }),
  $apis.bodyLimit(10),
)
routerAdd(
  'POST',
  '/apis/no-limit',
  (e) => e.json(200, { body: e.requestInfo().body }),
  $apis.bodyLimit(0),
)
routerAdd('GET', '/apis/gzip', (e) => e.string(200, 'x'.repeat(3000)), $apis.gzip())
routerAdd('GET', '/apis/skip-log', (e) => e.json(200, { ok: true }), $apis.skipSuccessActivityLog())
routerAdd(
  'GET',
  '/apis/skip-log-fail',
  (e) => {
    throw new BadRequestError('failed')
  },
  $apis.skipSuccessActivityLog(),
)

routerAdd('GET', '/st/{path...}', $apis.static(__hooks + '/middleware-files/pub', false))
routerAdd('GET', '/stf/{path...}', $apis.static(__hooks + '/middleware-files/pub', true))
routerAdd('GET', '/apis/static-type', (e) =>
  e.json(200, { type: typeof $apis.static(__hooks + '/middleware-files/pub', false) }),
)

routerAdd('POST', '/auth/custom', (e) => {
  const body = e.requestInfo().body
  const rec = $app.findAuthRecordByEmail('users', body.email)
  return $apis.recordAuthResponse(e, rec, body.method, body.meta)
})
