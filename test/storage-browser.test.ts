import { createHash, randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { S3Filesystem } from '../src/tools/filesystem/s3.js'
import { createTestBucket, type TestBucket } from './helpers/s3-bucket.js'
import { startServer, type TestServer } from './helpers/server.js'

const DATE = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A multipart body with its parts in the given order. */
function form(parts: ([string, string] | [string, Buffer, string])[]): FormData {
  const f = new FormData()
  for (const p of parts) {
    if (p.length === 2) f.append(p[0], p[1])
    else f.append(p[0], new Blob([p[1]]), p[2])
  }
  return f
}

async function signUp(t: TestServer, email: string): Promise<string> {
  const created = await t.api('POST', '/api/collections/users/records', {
    body: { email, password: 'password123', passwordConfirm: 'password123' },
  })
  expect(created.status).toBe(200)
  const login = await t.api('POST', '/api/collections/users/auth-with-password', {
    body: { identity: email, password: 'password123' },
  })
  expect(login.status).toBe(200)
  return login.body.token as string
}

describe.each(['local', 's3'] as const)('storage browser on %s storage', (driver) => {
  let t: TestServer
  let userToken: string
  let bucket: TestBucket | undefined

  const upload = (parts: Parameters<typeof form>[0], token: string | null = t.suToken) =>
    t.api('POST', '/api/storage/objects', { token, raw: form(parts) })
  const download = async (key: string, token: string | null = t.suToken) => {
    const res = await fetch(
      `${t.url}/api/storage/objects/download?key=${encodeURIComponent(key)}`,
      { headers: token ? { authorization: `Bearer ${token}` } : {} },
    )
    return { status: res.status, headers: res.headers, body: Buffer.from(await res.arrayBuffer()) }
  }
  const list = (prefix: string, token: string | null = t.suToken) =>
    t.api('GET', `/api/storage/objects?prefix=${encodeURIComponent(prefix)}`, { token })

  beforeAll(async () => {
    t = await startServer()
    if (driver === 's3') {
      bucket = await createTestBucket('browser')
      const res = await t.api('PATCH', '/api/settings', {
        token: t.suToken,
        body: { s3: bucket.settings },
      })
      expect(res.status).toBe(200)
    }
    expect(t.server.app.storage.kind).toBe(driver)
    userToken = await signUp(t, 'someone@example.com')
  })
  afterAll(async () => {
    await t?.close()
    await bucket?.drop()
  })

  it('uploads (key before file), lists one level and downloads', async () => {
    const res = await upload([
      ['key', 'docs/readme.txt'],
      ['file', Buffer.from('read me'), 'readme.txt'],
    ])
    expect(res.status).toBe(204)
    expect(
      (
        await upload([
          ['key', 'docs/deep/x.bin'],
          ['file', Buffer.from('x'), 'x'],
        ])
      ).status,
    ).toBe(204)
    expect(
      (
        await upload([
          ['key', 'top.txt'],
          ['file', Buffer.from('top'), 'top.txt'],
        ])
      ).status,
    ).toBe(204)

    const root = await list('')
    expect(root.status).toBe(200)
    expect(root.body.folders).toEqual(['docs/'])
    expect(root.body.files.map((f: { key: string }) => f.key)).toEqual(['top.txt'])

    const docs = await list('docs/')
    expect(docs.status).toBe(200)
    expect(docs.body.folders).toEqual(['docs/deep/'])
    expect(docs.body.files).toHaveLength(1)
    const [file] = docs.body.files
    expect(file.key).toBe('docs/readme.txt')
    expect(file.size).toBe(7)
    expect(file.lastModified).toMatch(DATE)
    expect(Math.abs(Date.parse(file.lastModified) - Date.now())).toBeLessThan(60_000)
    expect(Object.keys(file).sort()).toEqual(['key', 'lastModified', 'size'])

    // Without a prefix parameter the root is listed.
    const bare = await t.api('GET', '/api/storage/objects', { token: t.suToken })
    expect(bare.body).toEqual(root.body)

    const d = await download('docs/readme.txt')
    expect(d.status).toBe(200)
    expect(d.headers.get('content-type')).toBe('application/octet-stream')
    expect(d.headers.get('content-disposition')).toContain('attachment; filename="readme.txt"')
    expect(d.headers.get('content-length')).toBe('7')
    expect(d.body.toString()).toBe('read me')
  })

  it('writes to the configured storage itself', async () => {
    await upload([
      ['key', 'where/am-i.txt'],
      ['file', Buffer.from('here'), 'a'],
    ])
    if (bucket) {
      const direct = new S3Filesystem(bucket.config)
      try {
        expect((await direct.stat('where/am-i.txt'))?.size).toBe(4)
      } finally {
        await direct.close()
      }
    } else {
      expect((await t.server.app.storage.stat('where/am-i.txt'))?.size).toBe(4)
    }
  })

  it('accepts the file part before the key part', async () => {
    const res = await upload([
      ['file', Buffer.from('file first'), 'f.txt'],
      ['key', 'order/file-first.txt'],
    ])
    expect(res.status).toBe(204)
    expect((await download('order/file-first.txt')).body.toString()).toBe('file first')
  })

  it('overwrites an existing key', async () => {
    await upload([
      ['key', 'over/w.txt'],
      ['file', Buffer.from('one'), 'w.txt'],
    ])
    expect(
      (
        await upload([
          ['key', 'over/w.txt'],
          ['file', Buffer.from('two!'), 'w.txt'],
        ])
      ).status,
    ).toBe(204)
    const d = await download('over/w.txt')
    expect(d.body.toString()).toBe('two!')
    expect((await list('over/')).body.files).toMatchObject([{ key: 'over/w.txt', size: 4 }])
  })

  it('streams an upload larger than the request body limit', async () => {
    const big = randomBytes(40 * 1024 * 1024)
    const res = await upload([
      ['key', 'big/blob.bin'],
      ['file', big, 'blob.bin'],
    ])
    expect(res.status).toBe(204)
    const d = await download('big/blob.bin')
    expect(d.status).toBe(200)
    expect(d.headers.get('content-length')).toBe(String(big.length))
    expect(createHash('sha256').update(d.body).digest('hex')).toBe(
      createHash('sha256').update(big).digest('hex'),
    )
  }, 60_000)

  it('names non-ASCII downloads safely', async () => {
    await upload([
      ['key', 'intl/résumé "v2".txt'],
      ['file', Buffer.from('cv'), 'r.txt'],
    ])
    const d = await download('intl/résumé "v2".txt')
    expect(d.status).toBe(200)
    const disposition = d.headers.get('content-disposition')!
    expect(disposition).toContain(`filename*=UTF-8''${encodeURIComponent('résumé "v2".txt')}`)
    expect(disposition).toContain('filename="r_sum_ _v2_.txt"')
  })

  it('deletes objects; 404 for keys that do not exist', async () => {
    await upload([
      ['key', 'trash/a.txt'],
      ['file', Buffer.from('a'), 'a.txt'],
    ])
    const del = await t.api('DELETE', '/api/storage/objects?key=trash/a.txt', { token: t.suToken })
    expect(del.status).toBe(204)
    expect((await list('')).body.folders).not.toContain('trash/')
    const again = await t.api('DELETE', '/api/storage/objects?key=trash/a.txt', {
      token: t.suToken,
    })
    expect(again.status).toBe(404)
    expect(again.body).toEqual({
      code: 404,
      status: 404,
      message: "The requested resource wasn't found.",
      data: {},
    })
    expect((await download('trash/a.txt')).status).toBe(404)
    expect((await download('no/such/key')).status).toBe(404)
    // A folder is not an object.
    expect(
      (await t.api('DELETE', '/api/storage/objects?key=docs', { token: t.suToken })).status,
    ).toBe(404)
  })

  it('validates keys', async () => {
    const cases: [Parameters<typeof form>[0], Record<string, string>][] = [
      [[['file', Buffer.from('x'), 'x']], { key: 'validation_required' }],
      [
        [
          ['key', ''],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_required' },
      ],
      [
        [
          ['key', '../escape.txt'],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_match_invalid' },
      ],
      [
        [
          ['key', 'a/../../b'],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_match_invalid' },
      ],
      [
        [
          ['key', '/abs.txt'],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_match_invalid' },
      ],
      [
        [
          ['key', 'back\\slash'],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_match_invalid' },
      ],
      [
        [
          ['key', 'folder/'],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_match_invalid' },
      ],
      [
        [
          ['key', 'k'.repeat(1025)],
          ['file', Buffer.from('x'), 'x'],
        ],
        { key: 'validation_length_too_long' },
      ],
      [[['key', 'no-file.txt']], { file: 'validation_required' }],
      [[], { key: 'validation_required', file: 'validation_required' }],
    ]
    for (const [parts, expected] of cases) {
      const res = await upload(parts)
      expect(res.status, JSON.stringify(parts.map((p) => p[0]))).toBe(400)
      expect(res.body.message).toBe('An error occurred while validating the submitted data.')
      const codes = Object.fromEntries(
        Object.entries(res.body.data as Record<string, { code: string }>).map(([k, v]) => [
          k,
          v.code,
        ]),
      )
      expect(codes).toEqual(expected)
    }
    // 1024 characters is fine.
    const longest = `long/${Array(5).fill('k'.repeat(200)).join('/')}`.padEnd(1024, 'z')
    expect(longest).toHaveLength(1024)
    const ok = await upload([
      ['key', longest],
      ['file', Buffer.from('x'), 'x'],
    ])
    expect(ok.status).toBe(204)
    expect((await download(longest)).body.toString()).toBe('x')
    // One name of 300 bytes: fine on S3, past what a local file system stores.
    const longName = `long/${'n'.repeat(300)}`
    const res = await upload([
      ['key', longName],
      ['file', Buffer.from('y'), 'y'],
    ])
    if (driver === 's3') expect(res.status).toBe(204)
    else {
      expect(res.status).toBe(400)
      expect(res.body.data.key.code).toBe('validation_match_invalid')
      expect((await download(longName)).status).toBe(400)
      const spooled = await upload([
        ['file', Buffer.from('y'), 'y'],
        ['key', longName],
      ])
      expect(spooled.status).toBe(400)
      expect(spooled.body.data.key.code).toBe('validation_match_invalid')
    }
    // Nothing escaped the storage root or was written under a bad key.
    expect((await list('')).body.folders).not.toContain('../')
    expect((await list('')).body.files.map((f: { key: string }) => f.key)).toEqual(['top.txt'])

    const badDelete = await t.api('DELETE', '/api/storage/objects?key=../x', { token: t.suToken })
    expect(badDelete.status).toBe(400)
    expect(badDelete.body.data.key.code).toBe('validation_match_invalid')
    const noKey = await t.api('DELETE', '/api/storage/objects', { token: t.suToken })
    expect(noKey.status).toBe(400)
    expect(noKey.body.data.key.code).toBe('validation_required')
    const badDownload = await t.api('GET', '/api/storage/objects/download?key=/etc/passwd', {
      token: t.suToken,
    })
    expect(badDownload.status).toBe(400)
    const badList = await list('../')
    expect(badList.status).toBe(400)
    expect(badList.body.data.prefix.code).toBe('validation_match_invalid')
  })

  it('rejects a body that is not multipart', async () => {
    const res = await t.api('POST', '/api/storage/objects', {
      token: t.suToken,
      body: { key: 'json.txt', file: 'x' },
    })
    expect(res.status).toBe(400)
  })

  it('is for superusers only: 401 for guests, 403 for other records', async () => {
    const part: Parameters<typeof form>[0] = [
      ['key', 'guest.txt'],
      ['file', Buffer.from('x'), 'x'],
    ]
    for (const [token, status] of [
      [null, 401],
      [userToken, 403],
    ] as const) {
      expect((await list('', token)).status).toBe(status)
      expect((await upload(part, token)).status).toBe(status)
      expect((await t.api('DELETE', '/api/storage/objects?key=top.txt', { token })).status).toBe(
        status,
      )
      expect((await download('top.txt', token)).status).toBe(status)
    }
    expect((await download('guest.txt')).status).toBe(404)
    expect((await download('top.txt')).status).toBe(200)
  })
})

describe('POST /api/settings/test/s3', () => {
  let t: TestServer
  let bucket: TestBucket
  let userToken: string

  const probe = (body: unknown, token: string | null = t.suToken) =>
    t.api('POST', '/api/settings/test/s3', { token, body })
  const patch = async (body: Record<string, unknown>) => {
    const res = await t.api('PATCH', '/api/settings', { token: t.suToken, body })
    expect(res.status).toBe(200)
  }

  beforeAll(async () => {
    t = await startServer()
    bucket = await createTestBucket('probe')
    userToken = await signUp(t, 'tester@example.com')
  })
  afterAll(async () => {
    await t?.close()
    await bucket?.drop()
  })

  it('is for superusers only', async () => {
    expect((await probe({ filesystem: 'storage' }, null)).status).toBe(401)
    expect((await probe({ filesystem: 'storage' }, userToken)).status).toBe(403)
  })

  it('rejects an unknown filesystem', async () => {
    for (const filesystem of ['disk', 1, '']) {
      const res = await probe({ filesystem })
      expect(res.status).toBe(400)
      expect(res.body).toEqual({
        code: 400,
        status: 400,
        message: 'Failed to test the S3 filesystem.',
        data: { filesystem: { code: 'validation_in_invalid', message: 'Must be a valid value.' } },
      })
    }
  })

  it('answers 400 while S3 is not enabled', async () => {
    const storage = await probe({ filesystem: 'storage' })
    expect(storage.status).toBe(400)
    // PocketBase's wording: the failure, then the raw error.
    const off = (fs: string) =>
      `Failed to test the S3 filesystem. Raw error: \nS3 ${fs} filesystem is not enabled.`
    expect(storage.body.message).toBe(off('storage'))
    const byDefault = await probe({})
    expect(byDefault.body.message).toBe(off('storage'))
    const backups = await probe({ filesystem: 'backups' })
    expect(backups.status).toBe(400)
    // PocketBase 0.40.4 names the storage filesystem for the backups one too.
    expect(backups.body.message).toBe(off('storage'))
  })

  for (const filesystem of ['storage', 'backups'] as const) {
    const block = (s3: Record<string, unknown>) =>
      filesystem === 'storage' ? { s3 } : { backups: { s3 } }

    it(`probes the ${filesystem} S3 settings for real`, async () => {
      await patch(block({ ...bucket.settings, secret: 'not-the-secret' }))
      const wrong = await probe({ filesystem })
      expect(wrong.status).toBe(400)
      expect(wrong.body.message).toMatch(/^Failed to test the S3 filesystem\. Raw error: \n/)
      expect(wrong.body.message).toContain('SignatureDoesNotMatch')

      await patch(block({ ...bucket.settings, bucket: 'no-such-bucket-here' }))
      const noBucket = await probe({ filesystem })
      expect(noBucket.status).toBe(400)
      expect(noBucket.body.message).toContain('NoSuchBucket')

      await patch(block({ ...bucket.settings, endpoint: 'http://127.0.0.1:9' }))
      const started = Date.now()
      const dead = await probe({ filesystem })
      expect(dead.status).toBe(400)
      expect(dead.body.message).toContain('Raw error:')
      expect(Date.now() - started).toBeLessThan(16_000)

      await patch(block(bucket.settings))
      const good = await probe({ filesystem })
      expect(good.status).toBe(204)
      expect(good.body).toBeNull()
      // The probe cleans up after itself.
      const direct = new S3Filesystem(bucket.config)
      try {
        expect((await direct.list('')).folders).not.toContain('.svcbase-probe/')
      } finally {
        await direct.close()
      }

      await patch(block({ enabled: false }))
      expect((await probe({ filesystem })).body.message).toBe(
        'Failed to test the S3 filesystem. Raw error: \nS3 storage filesystem is not enabled.',
      )
    }, 60_000)
  }
})
