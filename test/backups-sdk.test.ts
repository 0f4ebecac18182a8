/**
 * The backups API through the `pocketbase` JS SDK unchanged (`pb.backups`): create, list,
 * download URL with a file token, upload, restore, delete, and errors as ClientResponseError.
 */
import PocketBase, { ClientResponseError } from 'pocketbase'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { seedPosts, titles, until } from './helpers/backups.js'
import { startServer, SU_EMAIL, SU_PASSWORD, type TestServer } from './helpers/server.js'

describe('backups through the pocketbase SDK', () => {
  let t: TestServer
  let pb: PocketBase

  beforeAll(async () => {
    t = await startServer()
    await seedPosts(t, 2)
    pb = new PocketBase(t.url)
    pb.autoCancellation(false)
    await pb.collection('_superusers').authWithPassword(SU_EMAIL, SU_PASSWORD)
  })
  afterAll(() => t.close())

  it('creates, lists, downloads, uploads, restores and deletes', async () => {
    expect(await pb.backups.create('sdk_backup.zip')).toBe(true)
    const list = await pb.backups.getFullList()
    expect(list.map((b) => b.key)).toEqual(['sdk_backup.zip'])
    expect(list[0]!.size).toBeGreaterThan(0)

    const url = pb.backups.getDownloadURL(await pb.files.getToken(), 'sdk_backup.zip')
    const res = await fetch(url)
    expect(res.status).toBe(200)
    const bytes = Buffer.from(await res.arrayBuffer())
    expect(bytes.length).toBe(list[0]!.size)

    expect(await pb.backups.upload({ file: new File([bytes], 'sdk_copy.zip') })).toBe(true)
    expect((await pb.backups.getFullList()).map((b) => b.key).sort()).toEqual([
      'sdk_backup.zip',
      'sdk_copy.zip',
    ])

    await pb.collection('posts').create({ title: 'gone after restore' })
    const oldApp = t.server.app
    expect(await pb.backups.restore('sdk_copy.zip')).toBe(true)
    await until(() => t.server.app !== oldApp && t.server.app.isBootstrapped)
    expect(await titles(t)).toEqual(['p1', 'p2'])

    expect(await pb.backups.delete('sdk_copy.zip')).toBe(true)
    expect((await pb.backups.getFullList()).map((b) => b.key)).toEqual(['sdk_backup.zip'])
  })

  it('raises ClientResponseError with the 400 and its message', async () => {
    const err = await pb.backups.create('Not Valid.zip').catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ClientResponseError)
    expect((err as ClientResponseError).status).toBe(400)
    expect((err as ClientResponseError).response.data.name.code).toBe('validation_match_invalid')
    const missing = await pb.backups.restore('nope.zip').catch((e: unknown) => e)
    expect((missing as ClientResponseError).status).toBe(400)
    expect((missing as ClientResponseError).message).toBe('Missing or invalid backup file.')
  })
})
