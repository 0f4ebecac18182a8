import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { badRequest, messages } from '../../../core/errors.js'
import { ruleContext } from '../../../core/records/query.js'
import { compileFilter, validateRule } from '../../../core/rules/index.js'
import { objectBody, superuserInfo } from '../request.js'

/** The longest text checked (a rule or filter longer than this is not worth compiling here). */
const MAX_TEXT = 10_000

/**
 * `POST /api/collections/meta/check-filter` (superuser): `{collection, filter, mode}` compiled by
 * the server's own parser and compiler, so the dashboard's rule editor reports the exact error
 * a save or a list would. `mode: "rule"` checks like a collection save does (`validateRule`,
 * no request: `Invalid rule: …`); `mode: "filter"` compiles like a superuser's list filter
 * (`compileFilter`: `Invalid filter: …`). Nothing is run. `200 {ok: true}` or `400`.
 * docs/collections.md.
 */
export function registerCheckFilter(app: App, http: FastifyInstance): void {
  http.post('/api/collections/meta/check-filter', async (req) => {
    const info = superuserInfo(req)
    const body = await objectBody(req, messages.formatLoadFailed)
    const { collection: name, filter, mode } = body
    if (typeof name !== 'string' || name === '') {
      throw badRequest(
        messages.checkFilterBadInput({ name: 'collection', expected: 'a collection name or id' }),
      )
    }
    if (typeof filter !== 'string' || filter.length > MAX_TEXT) {
      throw badRequest(
        messages.checkFilterBadInput({
          name: 'filter',
          expected: `a text of at most ${MAX_TEXT} characters`,
        }),
      )
    }
    if (mode !== 'rule' && mode !== 'filter') {
      throw badRequest(
        messages.checkFilterBadInput({ name: 'mode', expected: '"rule" or "filter"' }),
      )
    }
    const c = app.collections.get(name)
    if (mode === 'rule') {
      const dialect = app.dbFor(c).dialect
      const problem = validateRule(filter, c, (n) => app.registry.find(n), dialect)
      if (problem !== null) throw badRequest(messages.invalidRule({ reason: problem }))
    } else if (filter.trim() !== '') {
      compileFilter(filter, ruleContext(app, c, info, false))
    }
    return { ok: true }
  })
}
