import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { App } from '../src/core/app.js'
import { createApp } from '../src/core/create-app.js'
import { systemRequest } from '../src/core/auth/superusers.js'
import { badRequest } from '../src/core/errors.js'
import type { BusEvent } from '../src/core/events.js'
import { silentLogger } from '../src/core/logger.js'
import { sendMail, type MailMessage } from '../src/core/mail.js'
import { internalRequest } from '../src/core/request-info.js'

describe('record hooks and events', () => {
  let app: App
  let dir: string
  const events: BusEvent[] = []
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-hooks-'))
    app = await createApp({ dataDir: dir, logger: silentLogger })
    await app.collections.create({
      name: 'notes',
      listRule: '',
      viewRule: '',
      createRule: '',
      updateRule: '',
      deleteRule: '',
      schema: [{ name: 'text', type: 'text' }],
    })
    app.events.subscribe((e) => {
      events.push(e)
    })
  })
  afterAll(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const notes = () => app.collections.get('notes')
  const count = async () => (await app.records.list(notes(), {}, systemRequest(app))).totalItems

  it('runs create hooks inside the transaction around the write', async () => {
    const seen: string[] = []
    const id = app.hooks.onRecordCreate.bind(
      async (e) => {
        e.record.text = `${String(e.record.text)}!`
        seen.push('before')
        await e.next()
        seen.push('after')
      },
      ['notes'],
    )
    const rec = await app.records.create(notes(), { text: 'hi' }, internalRequest())
    app.hooks.onRecordCreate.unbind(id)
    expect(seen).toEqual(['before', 'after'])
    expect(rec.text).toBe('hi!')
    expect((await app.records.view(notes(), String(rec.id), internalRequest())).text).toBe('hi!')
  })

  it('rolls the write back when a hook fails after it, and emits no event', async () => {
    const before = await count()
    const id = app.hooks.onRecordCreate.bind(async (e) => {
      await e.next()
      throw badRequest('Rejected by hook.')
    })
    await expect(
      app.records.create(notes(), { text: 'nope' }, internalRequest()),
    ).rejects.toMatchObject({ status: 400 })
    app.hooks.onRecordCreate.unbind(id)
    expect(await count()).toBe(before)
    await new Promise((r) => setTimeout(r, 20))
    expect(events.some((e) => e.kind === 'record' && e.record.text === 'nope')).toBe(false)
  })

  it('publishes create, update and delete events after commit', async () => {
    events.length = 0
    const rec = await app.records.create(notes(), { text: 'a' }, internalRequest())
    await app.records.update(notes(), String(rec.id), { text: 'b' }, internalRequest())
    await app.records.delete(notes(), String(rec.id), internalRequest())
    await new Promise((r) => setTimeout(r, 20))
    const mine = events.filter((e) => e.kind === 'record' && e.record.id === rec.id)
    expect(mine.map((e) => (e.kind === 'record' ? [e.action, e.record.text] : null))).toEqual([
      ['create', 'a'],
      ['update', 'b'],
      ['delete', 'b'],
    ])
  })

  it('defers after-commit work of a transaction until it commits, and drops it on rollback', async () => {
    const ran: string[] = []
    await app.runInTransaction(async (tx) => {
      tx.onAfterCommit(() => {
        ran.push('committed')
      })
      expect(ran).toEqual([])
    })
    expect(ran).toEqual(['committed'])
    await expect(
      app.runInTransaction(async (tx) => {
        tx.onAfterCommit(() => {
          ran.push('rolled back')
        })
        throw new Error('abort')
      }),
    ).rejects.toThrow('abort')
    expect(ran).toEqual(['committed'])
  })
})

describe('collection and mail hooks on an app', () => {
  let app: App
  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'svcbase-hooks-'))
    app = await createApp({ dataDir: dir, logger: silentLogger })
  })
  afterAll(async () => {
    await app.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('rolls a collection create back when its hook fails after the write', async () => {
    const success: string[] = []
    const after = app.hooks.onCollectionAfterCreateSuccess.bind(async (e) => {
      success.push(e.collection.name)
      await e.next()
    })
    const id = app.hooks.onCollectionCreate.bind(async (e) => {
      await e.next()
      expect(app.collections.find(e.collection.name)).toBeUndefined() // not committed yet
      if (e.collection.name === 'doomed') throw badRequest('Rejected by hook.')
    })
    try {
      await expect(app.collections.create({ name: 'doomed' })).rejects.toMatchObject({
        status: 400,
      })
      expect(app.collections.find('doomed')).toBeUndefined()
      await app.collections.create({ name: 'kept' })
      expect(app.collections.find('kept')).toBeDefined()
      // After-commit work runs before runInTransaction returns.
      expect(success).toEqual(['kept'])
    } finally {
      app.hooks.onCollectionCreate.unbind(id)
      app.hooks.onCollectionAfterCreateSuccess.unbind(after)
    }
  })

  it('hands every mail to onMailerSend, which may change it before the mailer sees it', async () => {
    const sent: MailMessage[] = []
    app.services.set('mailer', {
      send: (m) => {
        sent.push(m)
        return Promise.resolve()
      },
    })
    const id = app.hooks.onMailerSend.bind(async (e) => {
      e.message = { ...e.message, subject: `${e.message.subject} (checked)` }
      await e.next()
    })
    try {
      await sendMail(app, {
        from: { address: 'a@example.com' },
        to: [{ address: 'b@example.com' }],
        subject: 'Hello',
        html: '<p>hi</p>',
      })
      expect(sent.map((m) => m.subject)).toEqual(['Hello (checked)'])
    } finally {
      app.hooks.onMailerSend.unbind(id)
    }
  })
})
