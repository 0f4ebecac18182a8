/** The avatar a provider names, downloaded for a new user's file field at OAuth2 sign-up. */
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { App } from '../../core/app.js'
import type { Field } from '../../core/collections/model.js'
import { fileMaxSize } from '../../core/fields/file.js'
import type { UploadedFile } from '../../core/records/api.js'
import { createUploadDir, removeUploadDir } from '../../core/temp-sweep.js'
import { mime } from '../../tools/mime.js'
import { guardedRequest } from '../../tools/ssrf.js'

/** The limit of the avatar download. */
const AVATAR_TIMEOUT_MS = 15_000

/**
 * Downloads an avatar through the SSRF guard (`oauth2.allowPrivateNetworks` lets private
 * addresses through), bounded by the field's max size; null when anything fails.
 */
export async function downloadAvatar(
  app: App,
  field: Field,
  url: string,
): Promise<UploadedFile | null> {
  const max = fileMaxSize(field)
  try {
    const res = await guardedRequest(url, {
      method: 'GET',
      headers: { accept: 'image/*' },
      timeoutMs: AVATAR_TIMEOUT_MS,
      maxResponseBytes: max + 1,
      allowPrivateNetworks: app.settings.get().oauth2.allowPrivateNetworks,
    })
    if (res.status !== 200 || res.body.length === 0 || res.body.length > max) {
      app.logger.warn('OAuth2 avatar not downloaded', { status: res.status })
      return null
    }
    const type = String(res.headers['content-type'] ?? 'application/octet-stream')
      .split(';')[0]!
      .trim()
    const ext = mime().extension(type) || 'bin'
    // NB: in an upload folder under the data dir, swept at start after a crash (not /tmp).
    const dir = await createUploadDir(app.config.dataDir)
    const path = join(dir, `avatar.${ext}`)
    try {
      await writeFile(path, res.body)
    } catch (err) {
      await removeUploadDir(dir)
      throw err
    }
    return {
      field: field.name,
      filename: `avatar.${ext}`,
      mimetype: type,
      size: res.body.length,
      path,
    }
  } catch (err) {
    app.logger.warn('OAuth2 avatar download failed', { error: String(err) })
    return null
  }
}
