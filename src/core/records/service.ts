import { UniqueViolation } from '../../store/db.js'
import { ident, join, param, sql, type Sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import type { Collection, Field } from '../collections/model.js'
import {
  ApiError,
  badRequest,
  fieldError,
  hasErrors,
  notFound,
  type ValidationErrors,
} from '../errors.js'
import { autodateValue } from '../fields/autodate.js'
import { checkOldPassword } from '../auth/password-change.js'
import { getFieldType } from '../fields/registry.js'
import { autogenerateText } from '../fields/text.js'
import { isSuperuser, type RecordData, type RequestInfo } from '../request-info.js'
import { applyBody, checkPasswordConfirm, validateRecord } from './input.js'
import {
  byId,
  clientFilterAndSort,
  MAIN,
  parseListParams,
  recordSatisfies,
  ruleCondition,
  ruleContext,
  selectFrom,
} from './query.js'
import { checkExpand, expandRecords } from './expand.js'
import {
  assignUploads,
  deleteFiles,
  deletePrefixLater,
  discardUploads,
  fileNames,
  prepareUploads,
  recordPrefix,
  storeUploads,
  type UploadedFile,
} from './files.js'
import { detachReferences } from './relations.js'
import { recordFromRow, serializeRecord } from './serialize.js'

/** A page of records as the list endpoint returns it. */
export interface ListResult {
  page: number
  perPage: number
  totalItems: number
  totalPages: number
  items: Record<string, unknown>[]
}

/** Options of `list` beyond the query parameters. */
export interface ListOptions {
  /** The perPage cap: 500 for the records endpoint, 1000 elsewhere (SPEC §8). */
  maxPerPage?: number
}

const generate = (field: Field, prefix: string): string => autogenerateText(field, prefix) ?? prefix

/**
 * The one path for every record operation (ARCHITECTURE invariant 1): rules, validation,
 * hooks and events happen here, for the records API, batch, MCP, hooks and realtime alike.
 * Results are serialised for the requester in `info`.
 */
export class RecordService {
  constructor(private readonly app: App) {}

  /** Lists records visible to the requester; a failing listRule yields an empty page. */
  async list(
    collection: Collection,
    query: Record<string, unknown>,
    info: RequestInfo,
    opts: ListOptions = {},
  ): Promise<ListResult> {
    const hasCreated = collection.fields.some((f) => f.name === 'created')
    // NB: records created in the same millisecond tie on `created`; the row id keeps "newest
    // first" exact for tables (views have no row id).
    const defaultSort = !hasCreated
      ? ''
      : collection.type === 'view'
        ? '-created'
        : '-created,-@rowid'
    const params = parseListParams(query, opts.maxPerPage ?? 500, defaultSort)
    const rule = ruleCondition(this.app, collection, 'listRule', info)
    const { where, order } = clientFilterAndSort(this.app, collection, params, info)
    const db = this.app.dbFor(collection)
    const base = selectFrom(collection, [rule, where])
    const ordered = order.length > 0 ? sql`${base} ORDER BY ${join(order)}` : base
    const offset = (params.page - 1) * params.perPage
    const rows = await db.all(sql`${ordered} LIMIT ${params.perPage} OFFSET ${offset}`)
    let totalItems = -1
    let totalPages = -1
    if (!params.skipTotal) {
      const count = await db.get<{ n: number }>(
        selectFrom(collection, [rule, where], sql`COUNT(*) AS n`),
      )
      totalItems = Number(count?.n ?? 0)
      totalPages = Math.ceil(totalItems / params.perPage)
    }
    return {
      page: params.page,
      perPage: params.perPage,
      totalItems,
      totalPages,
      items: await this.present(
        collection,
        rows.map((r) => recordFromRow(collection, r)),
        info,
      ),
    }
  }

  /** Loads a record that passes `rule` for the requester, or throws 404. */
  async load(
    collection: Collection,
    id: string,
    rule: 'viewRule' | 'updateRule' | 'deleteRule' | null,
    info: RequestInfo,
  ): Promise<RecordData> {
    const condition = rule ? ruleCondition(this.app, collection, rule, info) : null
    const row = await this.app.dbFor(collection).get(selectFrom(collection, [byId(id), condition]))
    if (!row) throw notFound()
    return recordFromRow(collection, row)
  }

  /** Finds a record by id with no rule (internal use), or undefined. */
  async findById(collection: Collection, id: string): Promise<RecordData | undefined> {
    const row = await this.app.dbFor(collection).get(selectFrom(collection, [byId(id)]))
    return row ? recordFromRow(collection, row) : undefined
  }

  /** One record, gated by viewRule (failing → 404). */
  async view(
    collection: Collection,
    id: string,
    info: RequestInfo,
  ): Promise<Record<string, unknown>> {
    const [out] = await this.present(
      collection,
      [await this.load(collection, id, 'viewRule', info)],
      info,
    )
    return out!
  }

  /** Creates a record from a submitted body; createRule is checked against the would-be record. */
  async create(
    collection: Collection,
    body: Record<string, unknown>,
    info: RequestInfo,
    files: readonly UploadedFile[] = [],
  ): Promise<Record<string, unknown>> {
    assertWritable(collection)
    checkExpand(this.app, collection, info.query.expand) // before anything is saved
    const su = isSuperuser(info)
    if (collection.createRule === null && !su)
      ruleCondition(this.app, collection, 'createRule', info)
    const record: RecordData = {}
    for (const f of collection.fields) record[f.name] = getFieldType(f.type)?.zero(f) ?? null
    const applied = applyBody(collection, record, body, su, generate)
    const errors: ValidationErrors = {}
    // Checked after the insert: only then can the manageRule see the would-be record.
    const unmanaged: ValidationErrors = {}
    if (collection.type === 'auth') {
      if (!su) rejectUnmanaged(record, undefined, unmanaged)
      Object.assign(errors, checkPasswordConfirm(body, applied.passwords.get('password')))
    }
    const now = nowDate()
    for (const f of collection.fields) {
      if (f.type === 'autodate') record[f.name] = autodateValue(f, true, now) ?? ''
      else if (f.type === 'text' && record[f.name] === '' && f.options.autogeneratePattern)
        record[f.name] = generate(f, '')
    }
    await this.preparePasswords(collection, record, applied.passwords, true, errors)
    const prepared = await prepareUploads(collection, files)
    Object.assign(
      errors,
      prepared.errors,
      assignUploads(collection, record, prepared.uploads, body, undefined),
    )
    if (hasErrors(errors)) throw badRequest('Failed to create record.', errors)
    const resolved = { ...info, body: applied.resolvedBody }
    const recordId = String(record.id)
    await storeUploads(this.app, collection, recordId, prepared.uploads)
    // Inside an outer transaction (batch), a later failure must remove these files too.
    this.app.onAfterRollback(() => discardUploads(this.app, collection, recordId, prepared.uploads))
    const saved = await this.app
      .runInTransaction(async (tx) => {
        Object.assign(
          errors,
          await validateRecord(collection, record, {
            isNew: true,
            lookup: tx.collections.lookup(),
            skip: passwordFields(collection),
          }),
        )
        if (hasErrors(errors)) throw badRequest('Failed to create record.', errors)
        await tx.hooks.onRecordCreate.trigger(
          { app: tx, collection, record, request: resolved },
          async (e) => {
            await insertRecord(tx, collection, e.record)
            if (hasErrors(unmanaged)) {
              const managed = await tx.records.managedIds(collection, [e.record], resolved)
              if (!managed.has(String(e.record.id)))
                throw badRequest('Failed to create record.', unmanaged)
            }
            const rule = ruleCondition(tx, collection, 'createRule', resolved)
            if (rule) {
              if (!(await recordSatisfies(tx, collection, String(e.record.id), rule))) {
                throw badRequest('Failed to create record.')
              }
            }
          },
          [collection.id, collection.name],
        )
        tx.onAfterCommit(() => this.afterCommit('create', collection, record))
        return { record, out: await presentBeforeCommit(tx, collection, record, info) }
      })
      .catch(async (err: unknown) => {
        await discardUploads(this.app, collection, recordId, prepared.uploads)
        return rethrowUnique(err, 'Failed to create record.', collection)
      })
    return saved.out ?? (await this.present(collection, [saved.record], info))[0]!
  }

  /** Updates a record that passes updateRule (failing → 404). */
  async update(
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
    info: RequestInfo,
    files: readonly UploadedFile[] = [],
  ): Promise<Record<string, unknown>> {
    assertWritable(collection)
    checkExpand(this.app, collection, info.query.expand) // before anything is saved
    const su = isSuperuser(info)
    const errors: ValidationErrors = {}
    // Passwords are hashed before the transaction: bcrypt must not hold the writer lock.
    const hashed = new Map<string, unknown>()
    const passwordBody = Object.fromEntries(
      Object.entries(body).filter(([k]) =>
        collection.fields.some((f) => f.name === k && f.type === 'password'),
      ),
    )
    await this.preparePasswords(
      collection,
      hashed,
      applyBody(collection, {}, passwordBody, su, generate).passwords,
      false,
      errors,
    )
    const prepared = await prepareUploads(collection, files)
    Object.assign(errors, prepared.errors)
    if (hasErrors(errors)) throw badRequest('Failed to update record.', errors)
    // Files are stored before the transaction (never under the writer lock); a record the
    // caller may not update is refused first, so nothing is written for it.
    if (prepared.uploads.length > 0) await this.loadForUpdate(collection, id, body, info)
    await storeUploads(this.app, collection, id, prepared.uploads)
    this.app.onAfterRollback(() => discardUploads(this.app, collection, id, prepared.uploads))
    let removed: string[] = []
    const saved = await this.app
      .runInTransaction(async (tx) => {
        const { original, record, applied } = await tx.records.loadForUpdate(
          collection,
          id,
          body,
          info,
        )
        Object.assign(errors, assignUploads(collection, record, prepared.uploads, body, original))
        for (const [name, value] of hashed) record[name] = value
        if (record.id !== original.id)
          errors.id = fieldError(
            'validation_pk_change',
            'The record primary key cannot be changed.',
          )
        if (collection.type === 'auth') {
          const manager = su || (await tx.records.managedIds(collection, [original], info)).has(id)
          if (!manager) rejectUnmanaged(record, original, errors)
          if (applied.passwords.has('password')) {
            Object.assign(errors, checkPasswordConfirm(body, applied.passwords.get('password')))
            const oldErr = manager
              ? null
              : await checkOldPassword(original.password, body.oldPassword)
            if (oldErr) errors.oldPassword = oldErr
          }
          if (
            (record.password !== original.password || record.email !== original.email) &&
            !applied.touched.has('tokenKey')
          ) {
            const tk = collection.fields.find((f) => f.name === 'tokenKey')
            if (tk) record.tokenKey = generate(tk, '')
          }
        }
        const now = nowDate()
        for (const f of collection.fields)
          if (f.type === 'autodate') record[f.name] = autodateValue(f, false, now) ?? record[f.name]
        Object.assign(
          errors,
          await validateRecord(collection, record, {
            isNew: false,
            original,
            lookup: tx.collections.lookup(),
            skip: passwordFields(collection),
          }),
        )
        if (hasErrors(errors)) throw badRequest('Failed to update record.', errors)
        await tx.hooks.onRecordUpdate.trigger(
          {
            app: tx,
            collection,
            record,
            original,
            request: { ...info, body: applied.resolvedBody },
          },
          async (e) => updateRecord(tx, collection, e.record, original),
          [collection.id, collection.name],
        )
        const kept = new Set(fileNames(collection, record))
        removed = fileNames(collection, original).filter((n) => !kept.has(n))
        tx.onAfterCommit(() => this.afterCommit('update', collection, record))
        return { record, out: await presentBeforeCommit(tx, collection, record, info) }
      })
      .catch(async (err: unknown) => {
        await discardUploads(this.app, collection, id, prepared.uploads)
        return rethrowUnique(err, 'Failed to update record.', collection)
      })
    // Replaced and removed files go only after the commit, never before (in a batch, after
    // the batch's commit).
    if (removed.length > 0) {
      const gone = () => deleteFiles(this.app, collection, id, removed)
      if (this.app.isTransactional) this.app.onAfterCommit(gone)
      else await gone()
    }
    return saved.out ?? (await this.present(collection, [saved.record], info))[0]!
  }

  /**
   * Loads a record for an update and applies the body to a copy; the updateRule is checked
   * against the stored record with `@request.body` holding the body's final values (modifiers
   * resolved), as PocketBase does. A failing rule answers 404.
   */
  async loadForUpdate(
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
    info: RequestInfo,
  ) {
    const original = await this.load(collection, id, null, info)
    const record: RecordData = { ...original }
    const applied = applyBody(collection, record, body, isSuperuser(info), generate)
    const rule = ruleCondition(this.app, collection, 'updateRule', {
      ...info,
      body: applied.resolvedBody,
    })
    if (rule) {
      if (!(await recordSatisfies(this.app, collection, id, rule))) throw notFound()
    }
    return { original, record, applied }
  }

  /** Deletes a record that passes deleteRule (failing → 404), detaching references to it. */
  async delete(collection: Collection, id: string, info: RequestInfo): Promise<void> {
    assertWritable(collection)
    await this.app.runInTransaction(async (tx) => {
      const record = await tx.records.load(collection, id, 'deleteRule', info)
      await tx.records.deleteLoaded(collection, record, info)
    })
  }

  /** Deletes a loaded record with no rule check (cascades and truncate use it). */
  async deleteLoaded(collection: Collection, record: RecordData, info: RequestInfo): Promise<void> {
    await this.app.runInTransaction(async (tx) => {
      if (collection.name === '_superusers') {
        const n = await tx.db.get<{ n: number }>(
          sql`SELECT COUNT(*) AS n FROM ${ident(collection.name)}`,
        )
        if (Number(n?.n) <= 1) throw badRequest("You can't delete the only existing superuser.")
      }
      await tx.hooks.onRecordDelete.trigger(
        { app: tx, collection, record, request: info },
        async (e) => {
          await detachReferences(tx, collection, String(e.record.id), info)
          if (collection.type === 'auth')
            await deleteAuthArtifacts(tx, collection, String(e.record.id))
          await tx
            .dbFor(collection)
            .run(sql`DELETE FROM ${ident(collection.name)} WHERE id = ${String(e.record.id)}`)
        },
        [collection.id, collection.name],
      )
      tx.onAfterCommit(async () => {
        if (fileNames(collection, record).length > 0) {
          await deletePrefixLater(this.app, recordPrefix(collection, String(record.id)))
        }
        await this.afterCommit('delete', collection, record)
      })
    })
  }

  /** Deletes every record of a collection, through the delete path when others reference it. */
  async truncate(collection: Collection): Promise<void> {
    const referenced = this.app.registry
      .all()
      .some((c) =>
        c.fields.some((f) => f.type === 'relation' && f.options.collectionId === collection.id),
      )
    await this.app
      .runInTransaction(async (tx) => {
        if (collection.fields.some((f) => f.type === 'file')) {
          tx.onAfterCommit(() => deletePrefixLater(this.app, `${collection.id}/`))
        }
        if (!referenced) {
          await tx.dbFor(collection).run(sql`DELETE FROM ${ident(collection.name)}`)
          return
        }
        const rows = await tx.dbFor(collection).all(selectFrom(collection, []))
        const info = { ...internalInfo() }
        for (const row of rows)
          await tx.records.deleteLoaded(collection, recordFromRow(collection, row), info)
      })
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 400) {
          throw badRequest(
            'Failed to truncate collection (most likely due to required cascade delete record references).',
            {},
            err,
          )
        }
        throw err
      })
  }

  /**
   * Records as one requester sees them: relations expanded per `?expand=`, and auth records'
   * email shown to those who pass the collection's manageRule.
   */
  async present(
    collection: Collection,
    records: RecordData[],
    info: RequestInfo,
  ): Promise<Record<string, unknown>[]> {
    const expand = info.query.expand
    if (typeof expand === 'string' && expand.trim() !== '') {
      await expandRecords(this.app, collection, records, expand, info)
    }
    const managed =
      collection.type === 'auth'
        ? await this.managedIds(collection, records, info)
        : new Set<string>()
    return records.map((r) =>
      serializeRecord(collection, r, info, { showEmail: managed.has(String(r.id)) }),
    )
  }

  /** The ids among `records` that the requester manages through the collection's manageRule. */
  async managedIds(
    collection: Collection,
    records: RecordData[],
    info: RequestInfo,
  ): Promise<Set<string>> {
    const rule = collection.authOptions?.manageRule ?? null
    if (
      rule === null ||
      rule.trim() === '' ||
      records.length === 0 ||
      !info.auth ||
      isSuperuser(info)
    )
      return new Set()
    const condition = ruleCondition(this.app, collection, 'manageRule', info)
    const ids = join(records.map((r) => param(String(r.id))))
    const rows = await this.app
      .dbFor(collection)
      .all<{ id: string }>(
        selectFrom(
          collection,
          [sql`${ident(MAIN)}.id IN (${ids})`, condition],
          sql`${ident(MAIN)}.id AS id`,
        ),
      )
    return new Set(rows.map((r) => r.id))
  }

  private async preparePasswords(
    collection: Collection,
    target: RecordData | Map<string, unknown>,
    passwords: Map<string, unknown>,
    isNew: boolean,
    errors: ValidationErrors,
  ): Promise<void> {
    for (const f of collection.fields) {
      if (f.type !== 'password' || (!isNew && !passwords.has(f.name))) continue
      const ft = getFieldType(f.type)!
      const plain = ft.normalize(passwords.get(f.name) ?? '', f)
      const err = await ft.validate(plain, f, {
        collection,
        lookup: this.app.collections.lookup(),
        isNew,
      })
      if (err) {
        errors[f.name] = err
        continue
      }
      const hashed = plain === '' ? '' : ft.prepare ? await ft.prepare(plain, f) : plain
      if (target instanceof Map) target.set(f.name, hashed)
      else target[f.name] = hashed
    }
  }

  private afterCommit(
    action: 'create' | 'update' | 'delete',
    collection: Collection,
    record: RecordData,
  ): Promise<void> {
    this.app.events.publish({ kind: 'record', action, collection, record })
    const hook =
      action === 'create'
        ? this.app.hooks.onRecordAfterCreateSuccess
        : action === 'update'
          ? this.app.hooks.onRecordAfterUpdateSuccess
          : this.app.hooks.onRecordAfterDeleteSuccess
    return hook.trigger({ app: this.app, collection, record }, () => {}, [
      collection.id,
      collection.name,
    ])
  }

  /** Exposed for other core modules that compile rules (realtime, files). */
  ruleContext(collection: Collection, info: RequestInfo | null) {
    return ruleContext(this.app, collection, info, false)
  }
}

/** The system collections holding per-auth-record rows (keys, OTPs, MFA, origins, links). */
const AUTH_ARTIFACTS = ['_api_keys', '_otps', '_mfas', '_authOrigins', '_externalAuths']

/** Deletes the system rows that belong to a deleted auth record. */
async function deleteAuthArtifacts(app: App, collection: Collection, id: string): Promise<void> {
  for (const name of AUTH_ARTIFACTS) {
    const c = app.registry.find(name)
    if (!c) continue
    await app
      .dbFor(c)
      .run(
        sql`DELETE FROM ${ident(c.name)} WHERE recordRef = ${id} AND collectionRef = ${collection.id}`,
      )
  }
}

/** Password fields are validated in plain text before hashing, not with the record. */
function passwordFields(collection: Collection): Set<string> {
  return new Set(collection.fields.filter((f) => f.type === 'password').map((f) => f.name))
}

function internalInfo(): RequestInfo {
  return {
    auth: null,
    query: {},
    body: {},
    headers: {},
    method: 'DELETE',
    context: 'default',
    ip: '',
  }
}

function assertWritable(collection: Collection): void {
  if (collection.type === 'view') throw badRequest('Unsupported collection type.')
}

/** Non-managers may not verify themselves or change their email directly (reference §1.7). */
function rejectUnmanaged(
  record: RecordData,
  original: RecordData | undefined,
  errors: ValidationErrors,
): void {
  if (original ? record.verified !== original.verified : record.verified === true) {
    errors.verified = fieldError('validation_values_mismatch', "Values don't match.")
  }
  if (original && record.email !== original.email) {
    errors.email = fieldError('validation_values_mismatch', "Values don't match.")
  }
}

function rethrowUnique(err: unknown, message: string, collection: Collection): never {
  if (err instanceof UniqueViolation) {
    const data: ValidationErrors = {}
    for (const col of err.columns)
      if (collection.fields.some((f) => f.name === col))
        data[col] = fieldError('validation_not_unique', 'Value must be unique.')
    throw badRequest(message, data, err)
  }
  throw err
}

async function insertRecord(app: App, collection: Collection, record: RecordData): Promise<void> {
  const cols: Sql[] = []
  const vals: Sql[] = []
  for (const f of collection.fields) {
    cols.push(ident(f.name))
    vals.push(param(getFieldType(f.type)!.toDb(record[f.name], f)))
  }
  await app
    .dbFor(collection)
    .run(sql`INSERT INTO ${ident(collection.name)} (${join(cols)}) VALUES (${join(vals)})`)
}

async function updateRecord(
  app: App,
  collection: Collection,
  record: RecordData,
  original: RecordData,
): Promise<void> {
  const sets: Sql[] = []
  for (const f of collection.fields) {
    if (f.name === 'id') continue
    const ft = getFieldType(f.type)!
    const value = ft.toDb(record[f.name], f)
    if (value === ft.toDb(original[f.name], f)) continue
    sets.push(sql`${ident(f.name)} = ${value}`)
  }
  if (sets.length === 0) return
  await app
    .dbFor(collection)
    .run(sql`UPDATE ${ident(collection.name)} SET ${join(sets)} WHERE id = ${String(original.id)}`)
}

export { MAIN }

/**
 * A written record as the requester sees it, presented inside the write's transaction when
 * `?expand=` asks for relations: an expansion over its budget then fails the write (400, nothing
 * saved) instead of following a committed record. Without `expand`, null: presented after commit.
 */
async function presentBeforeCommit(
  tx: App,
  collection: Collection,
  record: RecordData,
  info: RequestInfo,
): Promise<Record<string, unknown> | null> {
  const expand = info.query.expand
  if (typeof expand !== 'string' || expand.trim() === '') return null
  const [out] = await tx.records.present(collection, [record], info)
  return out ?? null
}
