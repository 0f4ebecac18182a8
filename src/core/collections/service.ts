import { DbError, UniqueViolation } from '../../store/db.js'
import { ident, sql } from '../../store/sql.js'
import { nowDate } from '../../tools/dates.js'
import type { App } from '../app.js'
import {
  type ApiMessage,
  badRequest,
  hasErrors,
  messages,
  notFound,
  validationError,
  type ValidationErrors,
} from '../errors.js'
import { applyCollectionInput, reshapeErrors, type FieldMerge, type InputShape } from './input.js'
import { importCollections } from './import.js'
import { createLookup, type CollectionLookup } from './lookup.js'
import { aroundCollectionWrite } from './model-hooks.js'
import { ensureAuthIndexes, keepIndexes } from './index-text.js'
import { parseIndex } from './indexes.js'
import { blankCollection, crc32 } from './defaults.js'
import type { Collection, CollectionType } from './model.js'
import { dropSchema, ensureDerivedSchema, syncSchema } from './schema-sync.js'
import { upgradeSystemCollections } from './system-upgrade.js'
import { systemCollections, type SystemCollectionSpec } from './system.js'
import { deleteFiles, deletePrefixLater, fileNames } from '../records/files.js'
import { recordFromRow } from '../records/serialize.js'
import { validateCollection } from './validate.js'
import { isObject } from './input-views.js'
import { fieldFromStored, fieldToStored, optionsFromStored, optionsToStored } from './stored.js'
import { deriveViewFields, MISSING_VIEW_ID } from './view.js'

interface CollectionRow {
  id: string
  name: string
  type: CollectionType
  system: number
  fields: string
  indexes: string
  listRule: string | null
  viewRule: string | null
  createRule: string | null
  updateRule: string | null
  deleteRule: string | null
  options: string
  created: string
  updated: string
}

function fromRow(r: CollectionRow, specs: readonly SystemCollectionSpec[]): Collection {
  const options = optionsFromStored(r.type, JSON.parse(r.options) as Record<string, unknown>)
  // NB: what the definition of a system collection adds (rows stored before the `database`
  // attribute was do not carry it).
  const spec = specs.find((s) => s.id === r.id)
  const database = options.database ?? spec?.database
  const writeOnly = spec?.writeOnly
  return {
    id: r.id,
    name: r.name,
    type: r.type,
    system: Boolean(r.system),
    fields: (JSON.parse(r.fields) as Record<string, unknown>[]).map(fieldFromStored),
    indexes: JSON.parse(r.indexes) as string[],
    listRule: r.listRule,
    viewRule: r.viewRule,
    createRule: r.createRule,
    updateRule: r.updateRule,
    deleteRule: r.deleteRule,
    ...(r.type === 'view' ? { viewQuery: options.viewQuery ?? '' } : {}),
    ...(options.authOptions ? { authOptions: options.authOptions } : {}),
    ...(database ? { database } : {}),
    ...(writeOnly ? { writeOnly } : {}),
    created: r.created,
    updated: r.updated,
  }
}

/**
 * Collections: their validation, storage in `_collections`, and the schema of their tables.
 * Every change runs in one transaction with its DDL, so a failure leaves the old schema.
 */
export class CollectionService {
  constructor(private readonly app: App) {}

  /** Loads every stored collection into the registry. */
  async load(): Promise<void> {
    const rows = await this.app.db.all<CollectionRow>(sql`SELECT * FROM _collections`)
    for (const r of rows) this.app.registry.put(fromRow(r, this.app.systemCollectionSpecs))
  }

  /**
   * Creates the system collections missing from the database and brings the others up to their
   * definitions (`system-upgrade.ts`).
   */
  async ensureSystemCollections(): Promise<void> {
    const missing = systemCollections(this.app.systemCollectionSpecs).filter(
      (c) => !this.app.registry.find(c.id),
    )
    if (missing.length > 0) {
      await this.app.runInTransaction(async (tx) => {
        for (const c of missing) await tx.collections.save(c, undefined)
      })
    }
    await upgradeSystemCollections(this.app, new Set(missing.map((c) => c.id)))
    await ensureDerivedSchema(this.app)
  }

  /** Writes every `_collections` row again in the current (PocketBase's) format. */
  async rewriteStored(): Promise<void> {
    await this.app.runInTransaction(async (tx) => {
      for (const c of this.all()) {
        await tx.db
          .run(sql`UPDATE _collections SET fields = ${JSON.stringify(c.fields.map(fieldToStored))},
          options = ${JSON.stringify(optionsToStored(c))} WHERE id = ${c.id}`)
      }
    })
  }

  /** A collection by id or name, or undefined. */
  find(idOrName: string): Collection | undefined {
    return this.app.registry.find(idOrName)
  }

  /** A collection by id or name, or a 404. */
  get(idOrName: string): Collection {
    const c = this.find(idOrName)
    if (!c) throw notFound()
    return c
  }

  /** Every collection. */
  all(): Collection[] {
    return this.app.registry.all()
  }

  /**
   * What field validation may look up; `missingIds` calls made in the same tick for the same
   * collection are answered by one query (see `lookup.ts`).
   */
  lookup(): CollectionLookup {
    return createLookup(this.app)
  }

  /** Creates a collection from a CollectionInput. */
  async create(input: Record<string, unknown>): Promise<Collection> {
    const type = (input.type ?? 'base') as CollectionType
    const errors: ValidationErrors = {}
    if (!['base', 'auth', 'view'].includes(type)) {
      // PocketBase adds no system fields to a type it does not know, so it also checks the
      // fields as sent (when sent): none is blank, and without an `id` primary key they miss it.
      const sent = Array.isArray(input.fields) ? (input.fields as unknown[]) : undefined
      const hasKey = sent?.some(
        (f) => isObject(f) && f.name === 'id' && f.type === 'text' && f.primaryKey === true,
      )
      throw badRequest(messages.collectionCreateFailed, {
        type: validationError('validation_in_invalid'),
        ...(sent === undefined || hasKey
          ? {}
          : sent.length === 0
            ? { fields: validationError('validation_required') }
            : { fields: validationError('validation_missing_primary_key') }),
      })
    }
    const draft = blankCollection(type)
    const shape = applyCollectionInput(draft, input, errors, { fresh: true })
    if (draft.id !== '' && this.all().some((o) => o.id === draft.id))
      errors.id = validationError('validation_invalid_or_existing_id')
    if (hasErrors(errors))
      throw badRequest(messages.collectionCreateFailed, reshapeErrors(errors, shape))
    return this.app.runInTransaction((tx) =>
      tx.collections.saveChecked(draft, undefined, messages.collectionCreateFailed, shape),
    )
  }

  /** Applies a CollectionInput onto an existing collection. */
  async update(
    idOrName: string,
    input: Record<string, unknown>,
    merge: FieldMerge = 'replace',
  ): Promise<Collection> {
    const old = this.get(idOrName)
    // PocketBase saves the body's id over the stored one and finds no row to update: a 404,
    // nothing changed. An id is never changed.
    if (typeof input.id === 'string' && input.id !== '' && input.id !== old.id) throw notFound()
    const draft = structuredClone(old)
    const errors: ValidationErrors = {}
    if ('type' in input && input.type !== old.type) {
      errors.type = validationError('validation_collection_type_change')
    }
    const shape = applyCollectionInput(draft, input, errors, { merge })
    if (hasErrors(errors))
      throw badRequest(messages.collectionUpdateFailed, reshapeErrors(errors, shape))
    return this.app.runInTransaction((tx) =>
      tx.collections.saveChecked(draft, old, messages.collectionUpdateFailed, shape),
    )
  }

  /**
   * Validates and saves; validation or DDL failures become a 400 with `message`, its errors at
   * the paths of the view the input used (`shape`).
   */
  async saveChecked(
    draft: Collection,
    old: Collection | undefined,
    message: ApiMessage,
    shape?: InputShape,
  ): Promise<Collection> {
    if (draft.type === 'view') {
      // As PocketBase, a view whose query fails has no fields either: both are reported.
      if ((draft.viewQuery ?? '').trim() === '')
        throw badRequest(message, {
          fields: validationError('validation_required'),
          viewQuery: validationError('validation_required'),
        })
      const problem = await deriveViewFields(this.app, draft)
      if (problem)
        throw badRequest(message, {
          fields: validationError(
            problem === MISSING_VIEW_ID ? 'validation_missing_primary_key' : 'validation_required',
          ),
          viewQuery: validationError('validation_invalid_view_query', { problem }),
        })
    }
    // The default auth indexes are named after the id the write will give a new collection.
    ensureAuthIndexes(draft, draft.id || this.newId(draft))
    const errors = validateCollection(draft, old, this.lookup(), this.app.dbFor(draft).dialect)
    if (hasErrors(errors)) throw badRequest(message, shape ? reshapeErrors(errors, shape) : errors)
    keepIndexes(draft)
    try {
      return await this.save(draft, old)
    } catch (err) {
      // A new unique index over duplicate rows: PocketBase reports it at that index.
      const added = draft.indexes.findIndex(
        (text) => !old?.indexes.includes(text) && /^\s*create\s+unique\s/i.test(text),
      )
      if (err instanceof UniqueViolation && added >= 0) {
        const spec = parseIndex(draft.indexes[added]!, draft)
        const name = typeof spec === 'string' ? '' : spec.name
        throw badRequest(message, {
          indexes: {
            [added]: validationError('validation_invalid_index_expression', {
              reason: `Failed to create index ${name} - ${err.message}.`,
            }),
          },
        })
      }
      if (err instanceof DbError || err instanceof UniqueViolation)
        throw badRequest(messages.collectionSaveRawError({ message, raw: err.message }), {}, err)
      throw err
    }
  }

  /**
   * Stores a collection and syncs its table; must run in a transaction. Views depending on it
   * are checked at once, unless `deferViews` (an import recreates and checks them at its end).
   * Runs inside `onCollectionCreate` / `onCollectionUpdate` (see `model-hooks.ts`).
   */
  async save(
    draft: Collection,
    old: Collection | undefined,
    opts: { deferViews?: boolean } = {},
  ): Promise<Collection> {
    return aroundCollectionWrite(this.app, old ? 'update' : 'create', draft, old, (c) =>
      this.write(c, old, opts),
    )
  }

  /** The built-in action of `save`. */
  private async write(
    draft: Collection,
    old: Collection | undefined,
    opts: { deferViews?: boolean },
  ): Promise<Collection> {
    const now = nowDate()
    const c: Collection = { ...draft, created: old?.created ?? now, updated: now }
    if (c.id === '') c.id = this.newId(c)
    const options = JSON.stringify(optionsToStored(c))
    const fields = JSON.stringify(c.fields.map(fieldToStored))
    if (old) {
      await this.app.db.run(sql`UPDATE _collections SET name = ${c.name}, fields = ${fields},
        indexes = ${JSON.stringify(c.indexes)}, "listRule" = ${c.listRule}, "viewRule" = ${c.viewRule},
        "createRule" = ${c.createRule}, "updateRule" = ${c.updateRule}, "deleteRule" = ${c.deleteRule},
        options = ${options}, updated = ${c.updated} WHERE id = ${c.id}`)
    } else {
      await this.app.db
        .run(sql`INSERT INTO _collections (id, name, type, system, fields, indexes, "listRule",
        "viewRule", "createRule", "updateRule", "deleteRule", options, created, updated) VALUES (${c.id}, ${c.name},
        ${c.type}, ${c.system}, ${fields}, ${JSON.stringify(c.indexes)}, ${c.listRule},
        ${c.viewRule}, ${c.createRule}, ${c.updateRule}, ${c.deleteRule}, ${options}, ${c.created}, ${c.updated})`)
    }
    const orphaned = old ? await this.filesOfRemovedFields(old, c) : []
    await syncSchema(this.app.schema, this.app.dbFor(c), c, old)
    this.app.registry.put(c)
    if (old && !opts.deferViews) await this.revalidateViews(c)
    this.app.onAfterCommit(async () => {
      this.app.db.resetStatements()
      this.app.events.publish({
        kind: 'collection',
        action: old ? 'update' : 'create',
        collection: c,
      })
      for (const [recordId, names] of orphaned) await deleteFiles(this.app, c, recordId, names)
    })
    return c
  }

  /** The stored files of file fields that `next` drops, per record, to delete after commit. */
  private async filesOfRemovedFields(
    old: Collection,
    next: Collection,
  ): Promise<[string, string[]][]> {
    const gone = old.fields.filter(
      (f) => f.type === 'file' && !next.fields.some((n) => n.id === f.id),
    )
    if (gone.length === 0 || old.type === 'view') return []
    const rows = await this.app.dbFor(old).all(sql`SELECT * FROM ${ident(old.name)}`)
    const shape: Collection = { ...old, fields: gone }
    return rows.map((row) => [String(row.id), fileNames(shape, recordFromRow(shape, row))])
  }

  /** Deletes a collection with its records; refuses system and referenced collections. */
  async delete(idOrName: string): Promise<void> {
    const c = this.get(idOrName)
    // PocketBase answers it with no field error.
    if (c.system) throw badRequest(messages.collectionDeleteFailed)
    const refs = this.all()
      .filter(
        (o) =>
          o.id !== c.id &&
          o.fields.some((f) => f.type === 'relation' && f.options.collectionId === c.id),
      )
      .map((o) => o.name)
    if (refs.length > 0) throw badRequest(messages.collectionReferenced({ names: refs.join(', ') }))
    await this.app.runInTransaction(async (tx) => {
      await tx.collections.drop(c, { deferViews: true })
      // A view that reads it fails the delete; PocketBase words it as any failed delete.
      await tx.collections.revalidateViews(c).catch((err: unknown) => {
        throw badRequest(messages.collectionDeleteFailed, {}, err)
      })
    })
  }

  /**
   * Drops a collection's table, row and cached entry, with no reference checks; must run in a
   * transaction. Views are checked at once unless `deferViews`. Runs inside `onCollectionDelete`.
   */
  async drop(c: Collection, opts: { deferViews?: boolean } = {}): Promise<void> {
    await aroundCollectionWrite(this.app, 'delete', c, undefined, async (e) => {
      await this.remove(e, opts)
      return e
    })
  }

  /** The built-in action of `drop`. */
  private async remove(c: Collection, opts: { deferViews?: boolean }): Promise<void> {
    await dropSchema(this.app.schema, this.app.dbFor(c), c)
    await this.app.db.run(sql`DELETE FROM _collections WHERE id = ${c.id}`)
    this.app.registry.remove(c.id)
    if (!opts.deferViews) await this.revalidateViews(c)
    this.app.onAfterCommit(async () => {
      this.app.db.resetStatements()
      this.app.events.publish({ kind: 'collection', action: 'delete', collection: c })
      if (c.fields.some((f) => f.type === 'file')) await deletePrefixLater(this.app, `${c.id}/`)
    })
  }

  /** Fails when a view no longer compiles after `changed` was altered or dropped. */
  async revalidateViews(changed: Collection): Promise<void> {
    for (const v of this.all()) {
      if (v.type !== 'view' || v.id === changed.id) continue
      try {
        await this.app.schema.describeQuery(this.app.db, v.viewQuery ?? '')
      } catch (err) {
        throw badRequest(messages.collectionViewBroken({ name: v.name }), {}, err)
      }
    }
  }

  /** Deletes every record of a collection and keeps its schema and rules. */
  async truncate(idOrName: string): Promise<void> {
    const c = this.get(idOrName)
    if (c.type === 'view') throw badRequest(messages.viewNotTruncatable)
    await this.app.records.truncate(c)
  }

  /**
   * Imports collections in one transaction, as PocketBase does: every collection is saved
   * first, then the whole set is validated, so relations and rules may point at collections
   * later in the list (or at views, or in cycles). See `import.ts`.
   */
  async import(items: unknown, deleteMissing: boolean): Promise<void> {
    await importCollections(this.app, items, deleteMissing)
  }

  /** A new collection id: `pbc_<crc32(type + name)>`, suffixed on collision (PocketBase's). */
  newId(c: Collection): string {
    const base = `pbc_${crc32(c.type + c.name)}`
    let id = base
    for (let i = 2; this.app.registry.find(id); i++) id = `${base}${i}`
    return id
  }
}
