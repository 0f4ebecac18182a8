/**
 * What the App exposes of the record service (`app.records`), as an interface: the App depends
 * on this contract, never on `service.ts`, so the service can import the App without a loop.
 */
import type { Collection } from '../collections/model.js'
import type { RecordData, RequestInfo } from '../request-info.js'
import type { RuleContext } from '../rules/context.js'
import type { AppliedInput } from './input.js'

/** A file part of a multipart body, spooled to a temp file by the HTTP layer. */
export interface UploadedFile {
  /** The form key, possibly with a modifier (`docs+`, `+docs`). */
  field: string
  filename: string
  /** The type the client claimed; the stored type is sniffed from the content. */
  mimetype: string
  size: number
  path: string
  /** The name to store it under (a script's file, named when made), instead of a new one. */
  storedName?: string
}

/** A page of records as the list endpoint returns it. */
export interface RecordListResult {
  page: number
  perPage: number
  totalItems: number
  totalPages: number
  items: Record<string, unknown>[]
}

/** Options of `list` beyond the query parameters. */
export interface RecordListOptions {
  /** The perPage cap: 500 for the records endpoint, 1000 elsewhere (SPEC §8). */
  maxPerPage?: number
}

/** A record loaded for an update, with the body applied (see `RecordsApi.loadForUpdate`). */
export interface LoadedForUpdate {
  original: RecordData
  record: RecordData
  applied: AppliedInput
}

/**
 * The one path for every record operation (rules, validation, hooks, events). Results are
 * serialised for the requester in `info`. Implemented by `RecordService`.
 */
export interface RecordsApi {
  /** Lists records visible to the requester; a failing listRule yields an empty page. */
  list(
    collection: Collection,
    query: Record<string, unknown>,
    info: RequestInfo,
    opts?: RecordListOptions,
  ): Promise<RecordListResult>
  /** Loads a record that passes `rule` for the requester, or throws 404. */
  load(
    collection: Collection,
    id: string,
    rule: 'viewRule' | 'updateRule' | 'deleteRule' | null,
    info: RequestInfo,
  ): Promise<RecordData>
  /** Finds a record by id with no rule (internal use), or undefined. */
  findById(collection: Collection, id: string): Promise<RecordData | undefined>
  /** One record, gated by viewRule (failing → 404). */
  view(collection: Collection, id: string, info: RequestInfo): Promise<Record<string, unknown>>
  /** Creates a record from a submitted body; createRule is checked against the would-be record. */
  create(
    collection: Collection,
    body: Record<string, unknown>,
    info: RequestInfo,
    files?: readonly UploadedFile[],
  ): Promise<Record<string, unknown>>
  /** Updates a record that passes updateRule (failing → 404). */
  update(
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
    info: RequestInfo,
    files?: readonly UploadedFile[],
  ): Promise<Record<string, unknown>>
  /** Loads a record for an update and applies `body`, checking updateRule against the result. */
  loadForUpdate(
    collection: Collection,
    id: string,
    body: Record<string, unknown>,
    info: RequestInfo,
  ): Promise<LoadedForUpdate>
  /** Deletes a record that passes deleteRule (failing → 404), detaching references to it. */
  delete(collection: Collection, id: string, info: RequestInfo): Promise<void>
  /** Deletes a loaded record with no rule check (cascades and truncate use it). */
  deleteLoaded(collection: Collection, record: RecordData, info: RequestInfo): Promise<void>
  /** Deletes every record of a collection, through the delete path when others reference it. */
  truncate(collection: Collection): Promise<void>
  /** Records as one requester sees them: relations expanded, emails shown to managers. */
  present(
    collection: Collection,
    records: RecordData[],
    info: RequestInfo,
  ): Promise<Record<string, unknown>[]>
  /** The ids among `records` that the requester manages through the collection's manageRule. */
  managedIds(collection: Collection, records: RecordData[], info: RequestInfo): Promise<Set<string>>
  /** The context rules of `collection` compile in for the requester (realtime, files, tests). */
  ruleContext(collection: Collection, info: RequestInfo | null): RuleContext
}
