import type { FastifyInstance } from 'fastify'
import type { App } from '../../../core/app.js'
import { badRequest, messages, validationError } from '../../../core/errors.js'
import { s3ConfigOf } from '../../../core/storage.js'
import { readBody } from '../../../http/body.js'
import { requireSuperuser } from '../../../http/guards.js'
import { requestInfo } from '../../../http/request-info.js'
import { probeS3Lazily } from '../../../tools/filesystem/index.js'

/** How long a probe may take before it fails, so a dead endpoint never hangs the request. */
export const PROBE_TIMEOUT_MS = 15_000

/**
 * `POST /api/settings/test/s3` (superuser) `{filesystem: "storage"|"backups"}` (default
 * `storage`): a real put/get/delete round trip against `settings.s3` or `settings.backups.s3` →
 * 204; 400 when the value is bad, S3 is not enabled for that filesystem, or the round trip fails
 * (with the raw error, as PocketBase).
 */
export function registerTestS3(app: App, http: FastifyInstance): void {
  http.post('/api/settings/test/s3', async (req, reply) => {
    requireSuperuser(requestInfo(req))
    const { values } = await readBody(req)
    const filesystem = values.filesystem ?? 'storage'
    if (filesystem !== 'storage' && filesystem !== 'backups')
      throw badRequest(messages.s3TestFailed, {
        filesystem: validationError('validation_in_invalid'),
      })
    const settings = app.settings.get()
    const block =
      filesystem === 'backups'
        ? (settings.backups as Record<string, unknown> | undefined)?.s3
        : settings.s3
    const config = s3ConfigOf(block)
    // NB: PocketBase's words, for either filesystem.
    if (!config.enabled) {
      const raw = messages.s3NotEnabled({ filesystem: 'storage' })
      throw badRequest(messages.s3TestRawError({ raw }))
    }
    try {
      await probeS3Lazily(config, { timeoutMs: PROBE_TIMEOUT_MS })
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err)
      throw badRequest(messages.s3TestRawError({ raw: message }), {}, err)
    }
    await reply.code(204).send()
  })
}
