import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { fieldToFlat } from '../../../core/collections/codec.js'
import { scaffold } from '../../../core/collections/defaults.js'
import { deriveViewFields } from '../../../core/collections/view.js'
import { badRequest, messages, validationError } from '../../../core/errors.js'
import { recordFromRow } from '../../../core/records/serialize.js'
import { sampleViewRows } from '../dry-run.js'
import { objectBody, superuserInfo } from '../request.js'

/**
 * `POST /api/collections/meta/dry-run-view` (superuser): `{viewQuery}` → the fields a view of
 * that query would have (as `GET /api/collections/:c` lists them) and up to 10 sample rows, read
 * in a transaction that is rolled back. Nothing is created; a bad query is a 400 whose
 * `data.viewQuery.message` is the engine's diagnostic. docs/collections.md.
 */
export function registerDryRunView(app: App, http: FastifyInstance): void {
  http.post('/api/collections/meta/dry-run-view', async (req) => {
    superuserInfo(req)
    const body = await objectBody(req, messages.formatLoadFailed)
    const query = body.viewQuery
    if (typeof query !== 'string' || query.trim() === '') {
      throw badRequest(messages.validationFailed, {
        viewQuery: validationError(
          typeof query === 'string' ? 'validation_required' : 'validation_invalid_value:string',
        ),
      })
    }
    const view = scaffold('view')
    view.name = '_dry_run_view'
    view.viewQuery = query
    const problem = await deriveViewFields(app, view)
    if (problem !== null) {
      throw badRequest(messages.validationFailed, {
        viewQuery: validationError('validation_invalid_view_query', { problem }),
      })
    }
    let rows: Record<string, unknown>[]
    try {
      rows = await sampleViewRows(app, view)
    } catch (err) {
      throw badRequest(messages.validationFailed, {
        viewQuery: validationError('validation_invalid_view_query', {
          problem: err instanceof Error ? err.message : String(err),
        }),
      })
    }
    // Password hashes never leave the server, not even to a superuser's preview.
    const secret = new Set(
      view.fields.filter((f) => f.type === 'password' || f.name === 'tokenKey').map((f) => f.name),
    )
    return {
      fields: view.fields.map(fieldToFlat),
      rows: rows.map((row) => {
        const record = recordFromRow(view, row)
        for (const name of secret) delete record[name]
        return record
      }),
    }
  })
}
