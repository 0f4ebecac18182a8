import type { FastifyInstance } from 'fastify'
import { collectionToJSON } from '../../../core/collections/codec.js'
import { scaffold } from '../../../core/collections/defaults.js'
import { superuserInfo } from '../request.js'

/** `GET /api/collections/meta/scaffolds` (superuser): a blank collection of each type. */
export function registerScaffolds(http: FastifyInstance): void {
  http.get('/api/collections/meta/scaffolds', async (req) => {
    superuserInfo(req)
    return {
      base: collectionToJSON(scaffold('base')),
      auth: collectionToJSON(scaffold('auth')),
      view: collectionToJSON(scaffold('view')),
    }
  })
}
