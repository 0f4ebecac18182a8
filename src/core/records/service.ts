/**
 * The record service (`app.records`): a thin facade over one module per verb (`list.ts`,
 * `create.ts`, `update.ts`, `delete.ts`, `present.ts`) around the save pipeline (`save.ts`).
 */
import type { App } from '../app.js'
import type { Collection } from '../collections/model.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import type { RuleContext } from '../rules/index.js'
import type {
  LoadedForUpdate,
  RecordListOptions,
  RecordListResult,
  RecordsApi,
  UploadedFile,
} from './api.js'
import { createRecord } from './create.js'
import { deleteLoaded, deleteRecord, truncateRecords } from './delete.js'
import { findRecord, listRecords, loadRecord } from './list.js'
import { managedIds, presentRecords } from './present.js'
import { MAIN, ruleContext } from './query.js'
import { loadForUpdate, updateRecord } from './update.js'

/** A page of records as the list endpoint returns it. */
export type ListResult = RecordListResult

/** Options of `list` beyond the query parameters. */
export type ListOptions = RecordListOptions

export { MAIN }

/**
 * The one path for every record operation (ARCHITECTURE invariant 1): rules, validation,
 * hooks and events happen here, for the records API, batch, MCP, hooks and realtime alike.
 * Results are serialised for the requester in `info`. Each method delegates to its verb's module
 * with this service's app (a transactional one inside `runInTransaction`).
 */
export class RecordService implements RecordsApi {
  constructor(private readonly app: App) {}

  /** Lists records visible to the requester; a failing listRule yields an empty page. */
  list(
    collection: Collection,
    query: Record<string, unknown>,
    info: RequestInfo,
    opts: ListOptions = {},
  ): Promise<ListResult> {
    return listRecords(this.app, collection, query, info, opts)
  }

  /** Loads a record that passes `rule` for the requester, or throws 404. */
  load(
    collection: Collection,
    id: string,
    rule: 'viewRule' | 'updateRule' | 'deleteRule' | null,
    info: RequestInfo,
  ): Promise<RecordData> {
    return loadRecord(this.app, collection, id, rule, info)
  }

  /** Finds a record by id with no rule (internal use), or undefined. */
  findById(collection: Collection, id: string): Promise<RecordData | undefined> {
    return findRecord(this.app, collection, id)
  }

  /** One record, gated by viewRule (failing → 404). */
  async view(
    collection: Collection,
    id: string,
    info: RequestInfo,
  ): Promise<Record<string, unknown>> {
    const record = await this.load(collection, id, 'viewRule', info)
    const [out] = await this.present(collection, [record], info)
    return out!
  }

  /** Creates a record from a submitted body; createRule is checked against the would-be record. */
  create(
    collection: Collection,
    body: Record<string, unknown>,
    info: RequestInfo,
    files: readonly UploadedFile[] = [],
  ): Promise<Record<string, unknown>> {
    return createRecord(this.app, collection, body, info, files)
  }

  /** Updates a record that passes updateRule (failing → 404). */
  update(
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
    info: RequestInfo,
    files: readonly UploadedFile[] = [],
  ): Promise<Record<string, unknown>> {
    return updateRecord(this.app, collection, id, body, info, files)
  }

  /** Loads a record for an update and applies `body`, checking updateRule against the result. */
  loadForUpdate(
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
    info: RequestInfo,
  ): Promise<LoadedForUpdate> {
    return loadForUpdate(this.app, collection, id, body, info)
  }

  /** Deletes a record that passes deleteRule (failing → 404), detaching references to it. */
  delete(collection: Collection, id: string, info: RequestInfo): Promise<void> {
    return deleteRecord(this.app, collection, id, info)
  }

  /** Deletes a loaded record with no rule check (cascades and truncate use it). */
  deleteLoaded(collection: Collection, record: RecordData, info: RequestInfo): Promise<void> {
    return deleteLoaded(this.app, collection, record, info)
  }

  /** Deletes every record of a collection, through the delete path when others reference it. */
  truncate(collection: Collection): Promise<void> {
    return truncateRecords(this.app, collection)
  }

  /** Records as one requester sees them: relations expanded, emails shown to managers. */
  present(
    collection: Collection,
    records: RecordData[],
    info: RequestInfo,
  ): Promise<Record<string, unknown>[]> {
    return presentRecords(this.app, collection, records, info)
  }

  /** The ids among `records` that the requester manages through the collection's manageRule. */
  managedIds(
    collection: Collection,
    records: RecordData[],
    info: RequestInfo,
  ): Promise<Set<string>> {
    return managedIds(this.app, collection, records, info)
  }

  /** The context rules of `collection` compile in for the requester (realtime, files, tests). */
  ruleContext(collection: Collection, info: RequestInfo | null): RuleContext {
    return ruleContext(this.app, collection, info, false)
  }
}
