import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { badRequest } from '../src/core/errors.js'
import type { Hook, HookEvent, HookHandler } from '../src/tools/hook.js'
import { startServer, type TestServer } from './helpers/server.js'
import { startSmtp, type TestSmtp } from './helpers/smtp.js'

/**
 * The hook families beyond the record model hooks (record request, collection, auth, mail),
 * bound on a started server's `app.hooks` as a feature or a hook script would: each fires with
 * PocketBase's event fields and can change or stop what it wraps.
 */
describe('hook families', () => {
  let t: TestServer
  let smtp: TestSmtp
  const bound: (() => void)[] = []

  /** Binds `handler` for this test only. */
  function on<E extends HookEvent>(hook: Hook<E>, handler: HookHandler<E>, tags?: string[]) {
    const id = hook.bind(handler, tags)
    bound.push(() => hook.unbind(id))
  }
  const hooks = () => t.server.app.hooks
  const su = () => ({ token: t.suToken })

  beforeAll(async () => {
    t = await startServer()
    smtp = await startSmtp()
    const settings = await t.api('PATCH', '/api/settings', {
      ...su(),
      body: {
        smtp: { enabled: true, host: smtp.host, port: smtp.port, tls: false },
        batch: { enabled: true, maxRequests: 10 },
      },
    })
    expect(settings.status).toBe(200)
    const posts = await t.api('POST', '/api/collections', {
      ...su(),
      body: {
        name: 'posts',
        listRule: '',
        viewRule: '',
        createRule: '',
        updateRule: '',
        deleteRule: '',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'stamp', type: 'text' },
        ],
      },
    })
    expect(posts.status).toBe(200)
    const users = await t.api('PATCH', '/api/collections/users', {
      ...su(),
      body: { otp: { enabled: true, length: 6 } },
    })
    expect(users.status).toBe(200)
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })
  // Handlers of a failed test must not leak into the next one.
  const unbindAll = () => bound.splice(0).forEach((u) => u())

  const createUser = async (email: string) => {
    const res = await t.api('POST', '/api/collections/users/records', {
      body: { email, password: 'password123', passwordConfirm: 'password123' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return { id: res.body.id as string, email }
  }

  describe('record request hooks', () => {
    it('onRecordCreateRequest sets a field before next() and sees the saved record after', async () => {
      const seen: Record<string, unknown> = {}
      on(
        hooks().onRecordCreateRequest,
        async (e) => {
          seen.collection = e.collection.name
          seen.method = e.requestInfo.method
          seen.auth = e.auth
          seen.before = { ...e.record }
          e.record.stamp = 'set by hook'
          await e.next()
          seen.after = e.record
          seen.response = e.response?.status
        },
        ['posts'],
      )
      try {
        const res = await t.api('POST', '/api/collections/posts/records', { body: { title: 'a' } })
        expect(res.status).toBe(200)
        expect(res.body).toMatchObject({ title: 'a', stamp: 'set by hook' })
        expect(seen).toMatchObject({
          collection: 'posts',
          method: 'POST',
          auth: null,
          before: { title: 'a' },
          after: { id: res.body.id, stamp: 'set by hook' },
          response: 200,
        })
      } finally {
        unbindAll()
      }
    })

    it('onRecordsListRequest adds to the result; an untagged handler of another collection stays out', async () => {
      let other = 0
      on(
        hooks().onRecordsListRequest,
        () => {
          other++
        },
        ['users'],
      )
      on(hooks().onRecordsListRequest, async (e) => {
        expect(e.records).toBe(e.result.items)
        e.result.items.push({ id: 'virtual', title: 'added by hook' })
        await e.next()
      })
      try {
        const res = await t.api('GET', '/api/collections/posts/records')
        expect(res.status).toBe(200)
        expect(res.body.items.at(-1)).toEqual({ id: 'virtual', title: 'added by hook' })
        expect(other).toBe(0)
      } finally {
        unbindAll()
      }
    })

    it('onRecordViewRequest may answer itself instead of next()', async () => {
      const created = await t.api('POST', '/api/collections/posts/records', {
        body: { title: 'v' },
      })
      on(hooks().onRecordViewRequest, (e) => {
        e.json(200, { id: e.record.id, shadowed: true, title: e.record.title })
      })
      try {
        const res = await t.api('GET', `/api/collections/posts/records/${created.body.id}`)
        expect(res.status).toBe(200)
        expect(res.body).toEqual({ id: created.body.id, shadowed: true, title: 'v' })
      } finally {
        unbindAll()
      }
    })

    it('onRecordUpdateRequest sees the id and changes the data; onRecordDeleteRequest can skip the delete', async () => {
      const created = await t.api('POST', '/api/collections/posts/records', {
        body: { title: 'u' },
      })
      const id = created.body.id as string
      on(hooks().onRecordUpdateRequest, async (e) => {
        expect(e.record).toEqual({ id, title: 'new' })
        e.record.title = `${String(e.record.title)}!`
        await e.next()
      })
      on(hooks().onRecordDeleteRequest, (e) => {
        expect(e.record.title).toBe('new!')
        e.noContent(204)
      })
      try {
        const upd = await t.api('PATCH', `/api/collections/posts/records/${id}`, {
          body: { title: 'new' },
        })
        expect(upd.status).toBe(200)
        expect(upd.body.title).toBe('new!')
        const del = await t.api('DELETE', `/api/collections/posts/records/${id}`)
        expect(del.status).toBe(204)
        const still = await t.api('GET', `/api/collections/posts/records/${id}`)
        expect(still.status).toBe(200)
      } finally {
        unbindAll()
      }
    })

    it('fires for batch items with the batch transaction and context', async () => {
      const seen: { tx: boolean; context: string }[] = []
      on(hooks().onRecordCreateRequest, async (e) => {
        seen.push({ tx: e.app.isTransactional, context: e.requestInfo.context })
        e.record.stamp = 'batched'
        await e.next()
      })
      try {
        const res = await t.api('POST', '/api/batch', {
          body: {
            requests: [
              { method: 'POST', url: '/api/collections/posts/records', body: { title: 'b1' } },
              { method: 'POST', url: '/api/collections/posts/records', body: { title: 'b2' } },
            ],
          },
        })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        expect(res.body.map((r: { body: { stamp: string } }) => r.body.stamp)).toEqual([
          'batched',
          'batched',
        ])
        expect(seen).toEqual([
          { tx: true, context: 'batch' },
          { tx: true, context: 'batch' },
        ])
      } finally {
        unbindAll()
      }
    })
  })

  describe('collection hooks', () => {
    it('onCollectionCreate runs inside the transaction around the write, after-success after it', async () => {
      const order: string[] = []
      on(hooks().onCollectionCreate, async (e) => {
        order.push(`create:${e.app.isTransactional}:${e.collection.id === '' ? 'no id' : 'id'}`)
        e.collection.listRule = '@request.auth.id != ""'
        await e.next()
        order.push(`created:${e.collection.id === '' ? 'no id' : 'id'}`)
      })
      on(hooks().onCollectionAfterCreateSuccess, async (e) => {
        order.push(`success:${e.collection.name}`)
        await e.next()
      })
      on(hooks().onCollectionCreateRequest, async (e) => {
        expect(e.collection).toMatchObject({ name: 'hooked' })
        await e.next()
        order.push(`request:${String(e.collection.id)}`)
      })
      try {
        const res = await t.api('POST', '/api/collections', { ...su(), body: { name: 'hooked' } })
        expect(res.status).toBe(200)
        expect(res.body.listRule).toBe('@request.auth.id != ""')
        expect(order).toEqual([
          'create:true:no id',
          'created:id',
          'success:hooked',
          `request:${res.body.id}`,
        ])
      } finally {
        unbindAll()
      }
    })

    it('onCollectionDelete refuses a delete: 400, the collection stays, no after-success', async () => {
      await t.api('POST', '/api/collections', { ...su(), body: { name: 'keepme' } })
      let succeeded = 0
      let requested = ''
      on(
        hooks().onCollectionDelete,
        () => {
          throw badRequest('This collection is protected.')
        },
        ['keepme'],
      )
      on(hooks().onCollectionAfterDeleteSuccess, () => {
        succeeded++
      })
      on(hooks().onCollectionDeleteRequest, async (e) => {
        requested = e.collection.name
        await e.next()
      })
      try {
        const res = await t.api('DELETE', '/api/collections/keepme', su())
        expect(res.status).toBe(400)
        expect(res.body.message).toBe('This collection is protected.')
        expect(requested).toBe('keepme')
        expect((await t.api('GET', '/api/collections/keepme', su())).status).toBe(200)
        expect(succeeded).toBe(0)
      } finally {
        unbindAll()
      }
    })

    it('list, view, update and import request hooks see their fields and can answer', async () => {
      on(hooks().onCollectionsListRequest, async (e) => {
        e.result.items = e.result.items.filter((c) => c.name === 'posts')
        e.collections = e.result.items
        await e.next()
      })
      on(hooks().onCollectionViewRequest, async (e) => {
        await e.next()
        e.json(200, { name: e.collection.name, viewed: true })
      })
      on(hooks().onCollectionUpdateRequest, async (e) => {
        expect(e.collection.id).toMatch(/^pbc_/)
        e.collection.viewRule = null
        await e.next()
      })
      let imported: unknown = null
      on(hooks().onCollectionsImportRequest, (e) => {
        imported = { data: e.collectionsData, deleteMissing: e.deleteMissing }
        e.noContent(204) // and import nothing
      })
      try {
        const list = await t.api('GET', '/api/collections', su())
        expect(list.body.items.map((c: { name: string }) => c.name)).toEqual(['posts'])
        const view = await t.api('GET', '/api/collections/posts', su())
        expect(view.body).toEqual({ name: 'posts', viewed: true })
        const upd = await t.api('PATCH', '/api/collections/posts', {
          ...su(),
          body: { updateRule: '' },
        })
        expect(upd.status).toBe(200)
        expect(upd.body).toMatchObject({ viewRule: null, updateRule: '' })
        const imp = await t.api('PUT', '/api/collections/import', {
          ...su(),
          body: { collections: [{ name: 'ghost' }], deleteMissing: false },
        })
        expect(imp.status).toBe(204)
        expect(imported).toEqual({ data: [{ name: 'ghost' }], deleteMissing: false })
        expect((await t.api('GET', '/api/collections/ghost', su())).status).toBe(404)
      } finally {
        unbindAll()
        await t.api('PATCH', '/api/collections/posts', { ...su(), body: { viewRule: '' } })
      }
    })
  })

  describe('auth hooks', () => {
    it('onRecordAuthRequest sees the token and may add meta; the password hook sees the identity', async () => {
      const user = await createUser('auth-hooks@example.com')
      const seen: Record<string, unknown> = {}
      on(hooks().onRecordAuthWithPasswordRequest, async (e) => {
        seen.password = { identity: e.identity, record: e.record?.id ?? null, pw: e.password }
        await e.next()
      })
      on(
        hooks().onRecordAuthRequest,
        async (e) => {
          seen.auth = { method: e.authMethod, record: e.record.id, token: e.token }
          e.meta = { greeting: 'hi' }
          await e.next()
        },
        ['users'],
      )
      try {
        const res = await t.api('POST', '/api/collections/users/auth-with-password', {
          body: { identity: user.email, password: 'password123' },
        })
        expect(res.status, JSON.stringify(res.body)).toBe(200)
        expect(res.body.meta).toEqual({ greeting: 'hi' })
        expect(seen.password).toEqual({
          identity: user.email,
          record: user.id,
          pw: 'password123',
        })
        expect(seen.auth).toEqual({ method: 'password', record: user.id, token: res.body.token })

        const unknown = await t.api('POST', '/api/collections/users/auth-with-password', {
          body: { identity: 'nobody@example.com', password: 'password123' },
        })
        expect(unknown.status).toBe(400)
        expect(seen.password).toMatchObject({ identity: 'nobody@example.com', record: null })

        const refreshed: string[] = []
        on(hooks().onRecordAuthRefreshRequest, async (e) => {
          refreshed.push(String(e.record?.id))
          await e.next()
        })
        const refresh = await t.api('POST', '/api/collections/users/auth-refresh', {
          token: res.body.token,
        })
        expect(refresh.status).toBe(200)
        expect(refreshed).toEqual([user.id])
        expect(seen.auth).toEqual({ method: '', record: user.id, token: refresh.body.token })

        const imp = await t.api('POST', `/api/collections/users/impersonate/${user.id}`, su())
        expect(imp.status).toBe(200)
        expect(seen.auth).toEqual({ method: '', record: user.id, token: imp.body.token })
      } finally {
        unbindAll()
      }
    })

    it('a password auth hook can refuse a sign-in', async () => {
      const user = await createUser('refused@example.com')
      on(hooks().onRecordAuthWithPasswordRequest, () => {
        throw badRequest('Sign-ins are paused.')
      })
      try {
        const res = await t.api('POST', '/api/collections/users/auth-with-password', {
          body: { identity: user.email, password: 'password123' },
        })
        expect(res.status).toBe(400)
        expect(res.body.message).toBe('Sign-ins are paused.')
      } finally {
        unbindAll()
      }
    })

    it('the OTP hooks see the record, the mail meta and the spent OTP', async () => {
      const user = await createUser('otp-hooks@example.com')
      const seen: Record<string, unknown> = {}
      on(hooks().onRecordRequestOTPRequest, async (e) => {
        seen.request = e.record?.id ?? null
        await e.next()
      })
      on(hooks().onMailerRecordOTPSend, async (e) => {
        seen.meta = e.meta
        await e.next()
      })
      on(hooks().onRecordAuthWithOTPRequest, async (e) => {
        seen.otp = { record: e.record.id, otp: e.otp?.id }
        await e.next()
      })
      on(hooks().onRecordAuthRequest, async (e) => {
        seen.method = e.authMethod
        await e.next()
      })
      try {
        const req = await t.api('POST', '/api/collections/users/request-otp', {
          body: { email: user.email },
        })
        expect(req.status).toBe(200)
        const mail = await smtp.waitForMail((m) => m.to.includes(user.email))
        const password = String((seen.meta as { password?: unknown }).password)
        expect(mail.html).toContain(password)
        expect(seen.request).toBe(user.id)
        expect(seen.meta).toEqual({ otpId: req.body.otpId, password })
        const ok = await t.api('POST', '/api/collections/users/auth-with-otp', {
          body: { otpId: req.body.otpId, password },
        })
        expect(ok.status).toBe(200)
        expect(seen.otp).toEqual({ record: user.id, otp: req.body.otpId })
        expect(seen.method).toBe('otp')
      } finally {
        unbindAll()
      }
    })

    it('password reset, verification and email change hooks wrap their flows', async () => {
      const user = await createUser('flows@example.com')
      const seen: string[] = []
      const tokens: Record<string, unknown> = {}
      on(hooks().onRecordRequestPasswordResetRequest, async (e) => {
        seen.push(`reset:${String(e.record?.email)}`)
        await e.next()
      })
      on(hooks().onMailerRecordPasswordResetSend, async (e) => {
        tokens.reset = e.meta.token
        await e.next()
      })
      on(hooks().onRecordConfirmPasswordResetRequest, async (e) => {
        seen.push(`confirm-reset:${String(e.record?.id)}`)
        await e.next()
      })
      on(hooks().onRecordRequestVerificationRequest, (e) => {
        seen.push(`verify:${String(e.record?.id)}`) // and no mail
        e.noContent(204)
      })
      on(hooks().onRecordRequestEmailChangeRequest, async (e) => {
        seen.push(`change:${e.newEmail}`)
        e.newEmail = 'rewritten@example.com'
        await e.next()
      })
      on(hooks().onMailerRecordEmailChangeSend, async (e) => {
        tokens.change = e.meta
        await e.next()
      })
      on(hooks().onRecordConfirmEmailChangeRequest, async (e) => {
        seen.push(`confirm-change:${e.newEmail}`)
        await e.next()
      })
      try {
        const verify = await t.api('POST', '/api/collections/users/request-verification', {
          body: { email: user.email },
        })
        expect(verify.status).toBe(204)
        const unknown = await t.api('POST', '/api/collections/users/request-verification', {
          body: { email: 'nobody@example.com' },
        })
        expect(unknown.status).toBe(204)

        const reset = await t.api('POST', '/api/collections/users/request-password-reset', {
          body: { email: user.email },
        })
        expect(reset.status).toBe(204)
        await smtp.waitForMail((m) => m.to.includes(user.email) && /reset/i.test(m.subject))
        const confirm = await t.api('POST', '/api/collections/users/confirm-password-reset', {
          body: { token: tokens.reset, password: 'newpassword1', passwordConfirm: 'newpassword1' },
        })
        expect(confirm.status).toBe(204)

        const login = await t.api('POST', '/api/collections/users/auth-with-password', {
          body: { identity: user.email, password: 'newpassword1' },
        })
        const change = await t.api('POST', '/api/collections/users/request-email-change', {
          token: login.body.token,
          body: { newEmail: 'asked@example.com' },
        })
        expect(change.status).toBe(204)
        await smtp.waitForMail((m) => m.to.includes('rewritten@example.com'))
        expect(tokens.change).toMatchObject({ newEmail: 'rewritten@example.com' })
        const done = await t.api('POST', '/api/collections/users/confirm-email-change', {
          body: { token: (tokens.change as { token: string }).token, password: 'newpassword1' },
        })
        expect(done.status).toBe(204)
        expect(seen).toEqual([
          `verify:${user.id}`,
          'reset:flows@example.com',
          `confirm-reset:${user.id}`,
          'change:asked@example.com',
          'confirm-change:rewritten@example.com',
        ])
        expect(smtp.mails.some((m) => m.to.includes('asked@example.com'))).toBe(false)
      } finally {
        unbindAll()
      }
    })
  })

  describe('mail hooks', () => {
    const testEmail = (email: string) =>
      t.api('POST', '/api/settings/test/email', {
        ...su(),
        body: { email, template: 'verification', collection: 'users' },
      })

    it('onMailerSend rewrites the subject of every mail, or sends nothing', async () => {
      const record: string[] = []
      on(hooks().onMailerRecordVerificationSend, async (e) => {
        record.push(`${e.collection.name}:${String(e.record.email)}:${String(e.meta.token)}`)
        await e.next()
      })
      on(hooks().onMailerSend, async (e) => {
        const to = e.message.to[0]?.address ?? ''
        if (to.startsWith('drop')) return // skip the send
        e.message.subject = `[hooked] ${e.message.subject}`
        await e.next()
      })
      try {
        expect((await testEmail('keep@example.com')).status).toBe(204)
        expect((await testEmail('drop@example.com')).status).toBe(204)
        // The test email answers once the backend took it, so what SMTP got is all there is.
        const sent = smtp.mails.filter((m) => /^(keep|drop)@/.test(m.to[0] ?? ''))
        expect(sent.map((m) => m.to[0])).toEqual(['keep@example.com'])
        expect(sent[0]!.subject).toMatch(/^\[hooked\] /)
        expect(record).toEqual([
          'users:keep@example.com:TEST_TOKEN_NOT_VALID',
          'users:drop@example.com:TEST_TOKEN_NOT_VALID',
        ])
      } finally {
        unbindAll()
      }
    })
  })
})
