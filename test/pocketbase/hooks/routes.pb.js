/* eslint-disable */
// PocketBase JSVM globals (routerAdd, $security, …): not a module of this repo.
/// <reference path="../pb_data/types.d.ts" />
// Routes as PocketBase's router reads them: every method, {name}, {path...}, {$}, a literal "*".

routerAdd('GET', '/r/t/{name}', (e) => {
  return e.json(200, { route: 'GET /r/t/{name}', name: e.request.pathValue('name') })
})

routerAdd('GET', '/r/t/{name}/{$}', (e) => {
  return e.json(200, { route: 'GET /r/t/{name}/{$}', name: e.request.pathValue('name') })
})

routerAdd('GET', '/r/f/{path...}', (e) => {
  return e.json(200, { route: 'GET /r/f/{path...}', path: e.request.pathValue('path') })
})

routerAdd('GET', '/r/f/fixed', (e) => {
  return e.json(200, { route: 'GET /r/f/fixed', path: e.request.pathValue('path') })
})

routerAdd('GET', '/r/x/{$}', (e) => {
  return e.json(200, { route: 'GET /r/x/{$}' })
})

routerAdd('GET', '/r/pre/', (e) => {
  return e.json(200, { route: 'GET /r/pre/', path: e.request.url.path })
})

routerAdd('GET', '/r/s/*', (e) => {
  return e.json(200, { route: 'GET /r/s/*' })
})

routerAdd('GET', '/r/a/{x}/b/{y}', (e) => {
  return e.json(200, {
    route: 'GET /r/a/{x}/b/{y}',
    x: e.request.pathValue('x'),
    y: e.request.pathValue('y'),
    none: e.request.pathValue('none'),
  })
})

routerAdd('GET', '/*', (e) => {
  return e.json(200, { route: 'GET /*' })
})

routerAdd('OPTIONS', '/*', (e) => {
  return e.json(200, { route: 'OPTIONS /*' })
})

routerAdd('OPTIONS', '/r/opt/{id}', (e) => {
  return e.json(200, {
    route: 'OPTIONS /r/opt/{id}',
    id: e.request.pathValue('id'),
    method: e.request.method,
  })
})

routerAdd('HEAD', '/r/head', (e) => {
  return e.noContent(204)
})

routerAdd('post', '/r/m', (e) => {
  return e.json(200, { route: 'POST /r/m', method: e.request.method })
})

routerAdd('PUT', '/r/m', (e) => {
  return e.json(200, { route: 'PUT /r/m', method: e.request.method })
})

routerAdd('PATCH', '/r/m', (e) => {
  return e.json(200, { route: 'PATCH /r/m', method: e.request.method })
})

routerAdd('DELETE', '/r/m', (e) => {
  return e.json(200, { route: 'DELETE /r/m', method: e.request.method })
})

routerAdd('GET', '/api/pre/', (e) => {
  return e.json(200, { route: 'GET /api/pre/', path: e.request.url.path })
})
