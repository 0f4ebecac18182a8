/**
 * `*.pb.js` finds inside a write transaction see what that transaction wrote before them, on
 * every store (issue 17; on PostgreSQL they read through the transaction's own connection, see
 * docs/postgresql.md): a record hook counting the records its batch or its
 * `$app.runInTransaction` made before, and an update request hook of a batch item reading the
 * stored values of a record an earlier item created. Runs in both passes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startHooksServer, type HooksServer } from './fixtures/hooks/server.js'

const files: Record<string, string> = {
  'notes.pb.js': `onRecordCreate((e) => {
    // the notes of the same group written before this one, in this transaction or before it
    const before = $app.findRecordsByFilter("notes", "grp = {:g}", "", 0, 0, { g: e.record.getString("grp") })
    e.record.set("position", before.length)
    e.next()
}, "notes")

onRecordUpdateRequest((e) => {
    // the body has no title: it reads the stored record
    e.record.set("summary", "was " + e.record.getString("title"))
    e.next()
}, "notes")

routerAdd("POST", "/api/pb/pair", (e) => {
    $app.runInTransaction((txApp) => {
        txApp.save(new Record("notes", { title: "first", grp: "pair" }))
        txApp.save(new Record("notes", { title: "second", grp: "pair" }))
    })
    return e.json(200, { queued: true })
})
`,
}

describe('*.pb.js finds inside a write transaction', () => {
  let t: HooksServer

  beforeAll(async () => {
    t = await startHooksServer(files)
    const made = await t.api('POST', '/api/collections', {
      token: t.suToken,
      body: {
        name: 'notes',
        type: 'base',
        fields: [
          { name: 'title', type: 'text' },
          { name: 'grp', type: 'text' },
          { name: 'position', type: 'number' },
          { name: 'summary', type: 'text' },
        ],
      },
    })
    expect(made.status, made.text).toBe(200)
    const settings = await t.api('PATCH', '/api/settings', {
      token: t.suToken,
      body: { batch: { enabled: true } },
    })
    expect(settings.status, settings.text).toBe(200)
  })
  afterAll(() => t?.close())

  const notes = async (grp: string) => {
    const res = await t.api(
      'GET',
      `/api/collections/notes/records?filter=grp="${grp}"&sort=position`,
      {
        token: t.suToken,
      },
    )
    expect(res.status, res.text).toBe(200)
    return (res.body.items as Record<string, unknown>[]).map((r) => ({
      title: r.title,
      position: r.position,
      summary: r.summary,
    }))
  }

  it('sees the earlier items of its batch, created and not committed yet', async () => {
    const id = 'batchnote000001'
    const res = await t.api('POST', '/api/batch', {
      token: t.suToken,
      body: {
        requests: [
          {
            method: 'POST',
            url: '/api/collections/notes/records',
            body: { id, title: 'hello', grp: 'b' },
          },
          {
            method: 'POST',
            url: '/api/collections/notes/records',
            body: { title: 'again', grp: 'b' },
          },
          { method: 'PATCH', url: `/api/collections/notes/records/${id}`, body: { grp: 'b' } },
        ],
      },
    })
    expect(res.status, res.text).toBe(200)
    expect(await notes('b')).toEqual([
      { title: 'hello', position: 0, summary: 'was hello' },
      { title: 'again', position: 1, summary: '' },
    ])
  })

  it('sees the earlier writes of $app.runInTransaction', async () => {
    const res = await t.api('POST', '/api/pb/pair')
    expect(res.status, res.text).toBe(200)
    expect(await notes('pair')).toEqual([
      { title: 'first', position: 0, summary: '' },
      { title: 'second', position: 1, summary: '' },
    ])
  })

  it('sees what was committed before the transaction too', async () => {
    const first = await t.api('POST', '/api/collections/notes/records', {
      token: t.suToken,
      body: { title: 'alone', grp: 'c' },
    })
    expect(first.status, first.text).toBe(200)
    const second = await t.api('POST', '/api/collections/notes/records', {
      token: t.suToken,
      body: { title: 'later', grp: 'c' },
    })
    expect(second.body.position).toBe(1)
  })
})
