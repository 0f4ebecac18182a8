import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { LocalFilesystem } from './index.js'

/**
 * The local driver keeps PocketBase's `<file>.attrs` sidecar (Go CDK `fileblob`'s: content type
 * and MD5), so PocketBase serves a file svcbase stored with its type, not as a download.
 */
describe('local storage attributes as PocketBase keeps them', () => {
  const root = mkdtempSync(join(tmpdir(), 'svcbase-attrs-'))
  const fs = new LocalFilesystem(root)
  afterAll(() => rmSync(root, { recursive: true, force: true }))

  it('writes the sidecar with the content type and the base64 MD5 of the content', async () => {
    const body = Buffer.from('a picture, say')
    await fs.write('c1/r1/pic_abc.png', body, { contentType: 'image/png' })
    const attrs = JSON.parse(readFileSync(join(root, 'c1/r1/pic_abc.png.attrs'), 'utf8')) as Record<
      string,
      unknown
    >
    expect(attrs['user.content_type']).toBe('image/png')
    expect(attrs.md5).toBe(createHash('md5').update(body).digest('base64'))
  })

  it('lists and counts an object once, and deletes its sidecar with it', async () => {
    await fs.write('c1/r1/doc_def.txt', Buffer.from('text'), { contentType: 'text/plain' })
    const listing = await fs.list('c1/r1/')
    expect(listing.files.map((f) => f.key)).toEqual(['c1/r1/doc_def.txt', 'c1/r1/pic_abc.png'])
    expect(await fs.delete('c1/r1/doc_def.txt')).toBe(true)
    expect(existsSync(join(root, 'c1/r1/doc_def.txt.attrs'))).toBe(false)
    expect(await fs.deletePrefix('c1/')).toBe(1)
    expect(existsSync(join(root, 'c1'))).toBe(false)
  })
})
