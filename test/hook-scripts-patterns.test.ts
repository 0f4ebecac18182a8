/**
 * Route patterns of `routerAdd`, PocketBase's (Go `ServeMux`): `{name}` one segment,
 * `{name...}` the rest, a trailing `/` for every path under it, `{$}` for the path ending in `/`
 * exactly; the most specific route wins, whatever the order they were added in.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  'routes.js': `
const say = (name) => (e) => e.json(200, { route: name, values: {
  id: e.request.pathValue('id'), rest: e.request.pathValue('rest') } })
export default (app) => {
  app.routerAdd('GET', '/api/p/{id}', say('param'))
  app.routerAdd('GET', '/api/p/static', say('static'))
  app.routerAdd('GET', '/api/pre/', say('prefix'))
  app.routerAdd('GET', '/api/pre/deeper/{id}', say('deeper'))
  app.routerAdd('GET', '/api/exact/{$}', say('exact'))
  app.routerAdd('GET', '/api/rest/{rest...}', say('rest'))
  app.routerAdd('post', '/api/p/{id}', say('post'))
  app.routerAdd('PUT', '/api/p/{id}', say('put'))
  app.routerAdd('PATCH', '/api/p/{id}', say('patch'))
}
`,
}

describe('script route patterns', () => {
  let t: HooksServer
  beforeAll(async () => {
    t = await startHooksServer(files)
  })
  afterAll(() => t.close())

  const route = async (method: string, path: string) => {
    const res = await t.api(method, path)
    return res.status === 200 ? (res.body as { route: string; values: object }) : res.status
  }

  it('matches a static segment before a {name}, and decodes values', async () => {
    expect(await route('GET', '/api/p/static')).toMatchObject({ route: 'static' })
    expect(await route('GET', '/api/p/a%20b')).toEqual({
      route: 'param',
      values: { id: 'a b', rest: '' },
    })
    expect(await route('GET', '/api/p/a/b')).toBe(404)
    expect(await route('GET', '/api/p/')).toBe(404)
  })

  it('matches every path under a trailing slash, a more specific route first', async () => {
    expect(await route('GET', '/api/pre/')).toMatchObject({ route: 'prefix' })
    expect(await route('GET', '/api/pre/x/y/z')).toMatchObject({ route: 'prefix' })
    expect(await route('GET', '/api/pre/deeper/7')).toMatchObject({
      route: 'deeper',
      values: { id: '7' },
    })
    // as PocketBase (ServeMux): the form without the trailing slash is redirected to it
    expect(await route('GET', '/api/pre')).toBe(307)
  })

  it('matches {$} exactly and {name...} for the rest of the path', async () => {
    expect(await route('GET', '/api/exact/')).toMatchObject({ route: 'exact' })
    expect(await route('GET', '/api/exact/more')).toBe(404)
    expect(await route('GET', '/api/rest/a/b/c.txt')).toMatchObject({
      route: 'rest',
      values: { rest: 'a/b/c.txt' },
    })
  })

  it('routes by method (case-insensitive when added) and answers 404 for other methods', async () => {
    expect(await route('POST', '/api/p/1')).toMatchObject({ route: 'post' })
    expect(await route('PUT', '/api/p/1')).toMatchObject({ route: 'put' })
    expect(await route('PATCH', '/api/p/1')).toMatchObject({ route: 'patch' })
    expect(await route('DELETE', '/api/p/1')).toBe(404)
  })

  it('lists the patterns as written, methods upper-cased', async () => {
    const res = await t.api('GET', '/api/functions', { token: t.suToken })
    expect(res.body.routes).toEqual([
      { method: 'GET', pattern: '/api/p/{id}' },
      { method: 'GET', pattern: '/api/p/static' },
      { method: 'GET', pattern: '/api/pre/' },
      { method: 'GET', pattern: '/api/pre/deeper/{id}' },
      { method: 'GET', pattern: '/api/exact/{$}' },
      { method: 'GET', pattern: '/api/rest/{rest...}' },
      { method: 'POST', pattern: '/api/p/{id}' },
      { method: 'PUT', pattern: '/api/p/{id}' },
      { method: 'PATCH', pattern: '/api/p/{id}' },
    ])
  })
})
