/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $security, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// Route event members: the per-request store, the writers, the error helpers, the IPs.

routerAdd(
  'GET',
  '/ev/store',
  (e) => {
    e.set('k', { a: 1 })
    e.setAll({ x: 'y', n: 2 })
    return e.json(200, {
      mw: e.get('mw'),
      k: e.get('k'),
      none: e.get('none'),
      x: e.get('x'),
      n: e.get('n'),
    })
  },
  (e) => {
    e.set('mw', 'from middleware')
    return e.next()
  },
)

routerAdd('GET', '/ev/blob', (e) => e.blob(202, 'application/x-custom', 'raw text ✓'))

routerAdd('GET', '/ev/blob-bytes', (e) => e.blob(200, 'text/csv', [104, 105]))

routerAdd('GET', '/ev/html', (e) => e.html(200, '<p>hi</p>'))

routerAdd('GET', '/ev/string', (e) => e.string(201, 'plain'))

routerAdd('GET', '/ev/nocontent', (e) => e.noContent(204))

routerAdd('GET', '/ev/err/{kind}', (e) => {
  const k = e.request.pathValue('kind')
  if (k === 'bad') throw e.badRequestError('bad thing', {})
  if (k === 'nf') throw e.notFoundError('', null)
  if (k === 'forbidden') throw e.forbiddenError('nope', null)
  if (k === 'unauth') throw e.unauthorizedError('', null)
  if (k === 'many') throw e.tooManyRequestsError('slow down', null)
  if (k === 'internal') throw e.internalServerError('oops', null)
  if (k === 'custom') throw e.error(418, 'teapot here', null)
  return e.noContent(204)
})

routerAdd('GET', '/ev/redirect', (e) => e.redirect(302, '/somewhere?x=1'))

routerAdd('GET', '/ev/redirect-bad', (e) => e.redirect(200, '/x'))

routerAdd('GET', '/ev/ip', (e) => e.json(200, { real: e.realIP(), remote: e.remoteIP() }))
