/**
 * Collection definitions answered as PocketBase 0.40.4 answers them (issue 34, the differential
 * corpus's `files` group): system collections guarded, field and index shapes, validation
 * outcomes. On SQLite and on PostgreSQL (`SVC_TEST_PG_URL`, started by test/global-setup.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prepareItems } from '../src/core/collections/import.js'
import { startOn } from './helpers/engines.js'
import type { TestServer } from './helpers/server.js'

describe.each([
  ['SQLite', false],
  ['PostgreSQL', true],
])('collection definitions as PocketBase answers them, on %s', (_engine, pg) => {
  let t: TestServer
  const su = () => t.suToken
  const post = (body: unknown) => t.api('POST', '/api/collections', { token: su(), body })
  const patch = (name: string, body: unknown) =>
    t.api('PATCH', `/api/collections/${name}`, { token: su(), body })

  beforeAll(async () => {
    t = await startOn(pg)
  })
  afterAll(() => t.close())

  it('refuses to truncate _superusers (the last superuser cannot go) and keeps them', async () => {
    const res = await t.api('DELETE', '/api/collections/_superusers/truncate', { token: su() })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe(
      'Failed to truncate collection (most likely due to required cascade delete record references).',
    )
    const list = await t.api('GET', '/api/collections/_superusers/records', { token: su() })
    expect(list.status).toBe(200)
    expect(list.body.totalItems).toBe(1)
  })

  it('truncates an auth collection record by record', async () => {
    expect((await post({ name: 'members', type: 'auth' })).status).toBe(200)
    for (const email of ['a@example.com', 'b@example.com']) {
      const made = await t.api('POST', '/api/collections/members/records', {
        token: su(),
        body: { email, password: 'password123', passwordConfirm: 'password123' },
      })
      expect(made.status, JSON.stringify(made.body)).toBe(200)
    }
    const res = await t.api('DELETE', '/api/collections/members/truncate', { token: su() })
    expect(res.status).toBe(204)
    const list = await t.api('GET', '/api/collections/members/records', { token: su() })
    expect(list.body.totalItems).toBe(0)
  })

  it('keeps the rules and fields of system collections, and an id, as PocketBase', async () => {
    const rules = await patch('_superusers', { listRule: '' })
    expect(rules.status).toBe(400)
    expect(rules.body.data.listRule).toEqual({
      code: 'validation_collection_system_rule_change',
      message: 'System collection API rule cannot be changed.',
    })
    const fields = await patch('_mfas', { fields: [] })
    expect(fields.status).toBe(400)
    expect(fields.body.data.fields).toEqual({
      code: 'validation_system_field_change',
      message: 'System fields cannot be deleted or renamed.',
    })
    expect(fields.body.data.listRule.code).toBe('validation_invalid_rule')
    const sys = await t.api('GET', '/api/collections/_superusers', { token: su() })
    expect(sys.body.listRule).toBeNull()
    expect(sys.body.indexes[1]).toBe(
      "CREATE UNIQUE INDEX `idx_email_pbc_3142635823` ON `_superusers` (`email`) WHERE `email` != ''",
    )
    expect((await post({ name: 'plain' })).status).toBe(200)
    const moved = await patch('plain', { id: 'other0000000001' })
    expect(moved.status).toBe(404)
    const again = await post({
      id: (await t.api('GET', '/api/collections/plain', { token: su() })).body.id,
      name: 'plain2',
    })
    expect(again.body.data.id.code).toBe('validation_invalid_or_existing_id')
  })

  it('shapes fields as PocketBase: help, no required on autodate, user stamps not system', async () => {
    const res = await post({
      name: 'stamped',
      fields: [
        { name: 'title', type: 'text', help: 'The title' },
        { name: 'created', type: 'autodate', onCreate: true },
        { name: 'updated', type: 'autodate', onCreate: true, onUpdate: true },
      ],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const [id, title, created, updated] = res.body.fields
    expect(id).toMatchObject({ name: 'id', help: '', required: true })
    expect(title).toMatchObject({ name: 'title', help: 'The title', required: false })
    for (const f of [created, updated]) {
      expect(f.system).toBe(false)
      expect(f).not.toHaveProperty('required')
      expect(f).not.toHaveProperty('help')
    }
    const neither = await post({ name: 'nodates', fields: [{ name: 'd', type: 'autodate' }] })
    expect(neither.status).toBe(400)
    expect(neither.body.data.fields['1']).toEqual({
      onCreate: {
        code: 'validation_required',
        message: 'Either onCreate or onUpdate must be enabled.',
      },
      onUpdate: {
        code: 'validation_required',
        message: 'Either onCreate or onUpdate must be enabled.',
      },
    })
  })

  it('makes auth collections as PocketBase: field order, default indexes, defaults', async () => {
    const res = await post({
      name: 'people',
      type: 'auth',
      fields: [{ name: 'nick', type: 'text' }],
      indexes: ['CREATE UNIQUE INDEX idx_people_nick ON people (nick)'],
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    const names = res.body.fields.map((f: { name: string }) => f.name)
    expect(names.slice(0, 7)).toEqual([
      'id',
      'nick',
      'password',
      'tokenKey',
      'email',
      'emailVisibility',
      'verified',
    ])
    const id = res.body.id
    expect(res.body.indexes).toEqual([
      'CREATE UNIQUE INDEX idx_people_nick ON people (nick)',
      `CREATE UNIQUE INDEX \`idx_tokenKey_${id}\` ON \`people\` (\`tokenKey\`)`,
      `CREATE UNIQUE INDEX \`idx_email_${id}\` ON \`people\` (\`email\`) WHERE \`email\` != ''`,
    ])
    const byName = (n: string) => res.body.fields.find((f: { name: string }) => f.name === n)
    expect(byName('password').max).toBe(0)
    expect(byName('tokenKey').primaryKey).toBe(false)
    expect(res.body.verificationTemplate.body).toContain('<a class="btn" href=')
    // Emails stay unique whatever their case.
    for (const [email, status] of [
      ['Ann@example.com', 200],
      ['ann@example.com', 400],
    ] as const) {
      const made = await t.api('POST', '/api/collections/people/records', {
        token: su(),
        body: { email, password: 'password123', passwordConfirm: 'password123' },
      })
      expect(made.status).toBe(status)
    }
    // An identity field needs a unique index of its own.
    const loose = await patch('people', { passwordAuth: { identityFields: ['email', 'nick'] } })
    expect(loose.status).toBe(200)
    const bad = await post({
      name: 'people2',
      type: 'auth',
      fields: [{ name: 'nick', type: 'text' }],
      passwordAuth: { enabled: true, identityFields: ['nick'] },
    })
    expect(bad.body.data.passwordAuth.identityFields).toEqual({
      code: 'validation_missing_unique_constraint',
      message: "The field nick doesn't have a UNIQUE constraint.",
      params: { fieldName: 'nick' },
    })
    // A field named like a system one but of another type becomes the system field.
    const clash = await post({
      name: 'people3',
      type: 'auth',
      fields: [{ name: 'email', type: 'text' }],
    })
    expect(clash.status).toBe(200)
    expect(clash.body.fields[1]).toMatchObject({ name: 'email', type: 'email', system: true })
  })

  it('keeps index statements as written, rewriting them only for another table', async () => {
    const res = await post({
      name: 'indexed',
      fields: [{ name: 'n', type: 'number' }],
      indexes: ['CREATE INDEX idx_n ON indexed (n)'],
    })
    expect(res.body.indexes).toEqual(['CREATE INDEX idx_n ON indexed (n)'])
    const renamed = await patch('indexed', { name: 'indexed2' })
    expect(renamed.body.indexes).toEqual(['CREATE INDEX `idx_n` ON `indexed2` (`n`)'])
  })

  it('merges duplicate fields and reports field errors as PocketBase', async () => {
    const dup = await post({
      name: 'dups',
      fields: [
        { name: 'a', type: 'text' },
        { name: 'a', type: 'number' },
      ],
    })
    expect(dup.status).toBe(200)
    expect(dup.body.fields[1]).toMatchObject({ name: 'a', type: 'number', id: 'text3904355907' })
    const retype = await patch('dups', { fields: [{ ...dup.body.fields[1], type: 'bool' }] })
    expect(retype.body.data.fields['1'].code).toBe('validation_field_type_change')
    const long = await post({ name: 'x'.repeat(256) })
    expect(long.body.data.name.code).toBe('validation_length_out_of_range')
    expect((await post({ name: '_private' })).status).toBe(200)
    const thumbs = await post({
      name: 'thumbed',
      fields: [{ name: 'f', type: 'file', thumbs: ['10x10', 'abc', '0x0'] }],
    })
    expect(thumbs.body.data.fields['1'].thumbs).toEqual({
      '1': { code: 'validation_match_invalid', message: 'Must be in a valid format.' },
      '2': { code: 'validation_not_in_invalid', message: 'Must not be in list.' },
    })
  })

  it('checks view queries as PocketBase', async () => {
    const view = (name: string, viewQuery: string) => post({ name, type: 'view', viewQuery })
    const bare = await view('bare', 'SELECT id, n * 2 AS twice FROM indexed2')
    expect(bare.status).toBe(400)
    expect(bare.body.data.fields.code).toBe('validation_required')
    expect(bare.body.data.viewQuery.message).toBe(
      'Invalid query - invalid identifier parts [n * 2 AS twice].',
    )
    const empty = await view('empty', '')
    expect(empty.body.data).toEqual({
      fields: { code: 'validation_required', message: 'Cannot be blank.' },
      viewQuery: { code: 'validation_required', message: 'Cannot be blank.' },
    })
    const ok = await view('twice', 'SELECT id, (n * 2) AS twice FROM indexed2')
    expect(ok.status).toBe(200)
    expect(ok.body.fields[1]).toMatchObject({ type: 'json', maxSize: 1 })
    const used = await t.api('DELETE', '/api/collections/indexed2', { token: su() })
    expect(used.status).toBe(400)
    expect(used.body.message).toBe('Failed to delete collection.')
    const scaffolds = await t.api('GET', '/api/collections/meta/scaffolds', { token: su() })
    expect(scaffolds.body.view.fields).toEqual([])
    expect(scaffolds.body.auth.indexes).toHaveLength(2)
  })

  it('checks auth options and field options with PocketBase codes', async () => {
    const made = await post({ name: 'opts', type: 'auth' })
    expect(made.status).toBe(200)
    const mfa = await patch('opts', {
      mfa: { enabled: true, rule: 'nope = 1' },
      otp: { enabled: true },
    })
    expect(mfa.body.data.mfa.rule.code).toBe('validation_invalid_rule')
    const off = await patch('opts', { mfa: { enabled: false, rule: 'nope ~' } })
    expect(off.status).toBe(200)
    const zero = await patch('opts', {
      mfa: { enabled: true, duration: 0 },
      otp: { enabled: true },
    })
    expect(zero.body.data.mfa.duration).toEqual({
      code: 'validation_required',
      message: 'Cannot be blank.',
    })
    const single = await patch('opts', { mfa: { enabled: true } })
    expect(single.body.data.mfa.enabled.code).toBe('validation_mfa_not_enough_auths')
    const token = await patch('opts', { authToken: { duration: 5 } })
    expect(token.body.data.authToken.duration).toEqual({
      code: 'validation_min_greater_equal_than_required',
      message: 'Must be no less than 10.',
      params: { threshold: 10 },
    })
    const otp = await patch('opts', { otp: { enabled: true, duration: 0 } })
    expect(otp.body.data.otp.duration.code).toBe('validation_required')
    const rel = await post({
      name: 'rels',
      fields: [{ name: 'r', type: 'relation', collectionId: 'nope' }],
    })
    expect(rel.body.data.fields['1'].collectionId.code).toBe(
      'validation_field_relation_missing_collection',
    )
    const re = await post({ name: 'res', fields: [{ name: 't', type: 'text', pattern: '(' }] })
    expect(re.body.data.fields['1'].pattern).toEqual({
      code: 'validation_invalid_regex',
      message: 'Error parsing regexp: missing closing ): `(`.',
    })
    const del = await t.api('DELETE', '/api/collections/_mfas', { token: su() })
    expect(del.status).toBe(400)
    expect(del.body.data).toEqual({})
  })

  it('words index and import errors as PocketBase', async () => {
    const taken = await post({
      name: 'taken',
      fields: [{ name: 'n', type: 'number' }],
      indexes: ['CREATE INDEX idx_n ON taken (n)'],
    })
    expect(taken.body.data.indexes['0']).toEqual({
      code: 'validation_existing_index_name',
      message: 'The index name is already used in indexed2 collection.',
      params: { usedTableName: 'indexed2' },
    })
    const minMax = await post({
      name: 'mm',
      fields: [{ name: 'n', type: 'number', min: 5, max: 1 }],
    })
    expect(minMax.body.data.fields['1'].max.code).toBe('validation_min_number_constraint')
    const res = await t.api('PUT', '/api/collections/import', {
      token: su(),
      body: {
        collections: [{ name: 'broken', type: 'base', fields: [{ name: 'a b', type: 'text' }] }],
      },
    })
    expect(res.body.data.collections.message).toBe(
      'Data validations failed for collection "broken" (' +
        res.body.data.collections.message.match(/\((\w+)\)/)[1] +
        '):\n{\n  "fields": {\n    "1": {\n      "name": "must be in a valid format"\n    }\n  }\n}.',
    )
  })

  it('takes a primary key as sent, and gives back the default one when it is left out', async () => {
    expect((await post({ name: 'keyed' })).status).toBe(200)
    const sent = { id: 'text3208210256', name: 'id', type: 'text', max: 5, primaryKey: true }
    const short = await patch('keyed', { fields: [sent] })
    expect(short.status, JSON.stringify(short.body)).toBe(200)
    expect(short.body.fields[0]).toMatchObject({
      max: 5,
      min: 0,
      autogeneratePattern: '',
      pattern: '^[a-z0-9]+$',
      primaryKey: true,
      required: true,
      system: true,
    })
    const gone = await patch('keyed', { fields: [{ name: 'x', type: 'text' }] })
    expect(gone.body.fields[0]).toMatchObject({ name: 'id', max: 15, min: 15 })
    expect(gone.body.fields[0].autogeneratePattern).toBe('[a-z0-9]{15}')
  })

  it('reports a unique index over duplicate rows at that index', async () => {
    expect((await post({ name: 'uq', fields: [{ name: 'a', type: 'text' }] })).status).toBe(200)
    for (let i = 0; i < 2; i++)
      await t.api('POST', '/api/collections/uq/records', { token: su(), body: { a: 'same' } })
    const res = await patch('uq', { indexes: ['CREATE UNIQUE INDEX idx_uq_a ON uq (a)'] })
    expect(res.status).toBe(400)
    expect(res.body.message).toBe('Failed to update collection.')
    expect(res.body.data.indexes['0'].code).toBe('validation_invalid_index_expression')
    expect(res.body.data.indexes['0'].message).toMatch(/^Failed to create index idx_uq_a - /)
  })

  it('puts a left-out id last when an import replaces a stored collection', async () => {
    const made = await post({ name: 'labels', fields: [{ name: 'name', type: 'text' }] })
    const input = { id: made.body.id, name: 'labels', fields: [{ name: 'name', type: 'text' }] }
    // deleteMissing (replace): as PocketBase, [name, id]; without it the stored id stays too.
    const [replaced] = prepareItems(t.server.app, [input], 'replace', undefined, true)
    expect(replaced!.draft.fields.map((f) => f.name).slice(0, 2)).toEqual(['name', 'id'])
    const created = await post({ name: 'fresh2', fields: [{ name: 'name', type: 'text' }] })
    expect(created.body.fields[0].name).toBe('id')
  })

  it('imports beside a rule made stale by a deleted collection', async () => {
    expect((await post({ name: 'gone', fields: [{ name: 'title', type: 'text' }] })).status).toBe(
      200,
    )
    const rules = await post({ name: 'ruled', createRule: "@collection.gone.title = 'x'" })
    expect(rules.status).toBe(200)
    expect((await t.api('DELETE', '/api/collections/gone', { token: su() })).status).toBe(204)
    const res = await t.api('PUT', '/api/collections/import', {
      token: su(),
      body: { collections: [{ name: 'unrelated', type: 'base', fields: [] }] },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(204)
  })
})
