/**
 * What the App exposes of the collection service (`app.collections`), as an interface: the App
 * depends on this contract, never on `service.ts`, so the service can import the App without a
 * loop.
 */
import type { ApiMessage } from '../errors.js'
import type { FieldLookup } from '../fields/field-type.js'
import type { FieldMerge, InputShape } from './input.js'
import type { Collection } from './model.js'

/** Collections: lookups in the registry, and validated, transactional schema changes. */
export interface CollectionsApi {
  /** A collection by id or name, or undefined. */
  find(idOrName: string): Collection | undefined
  /** A collection by id or name; throws 404 when missing. */
  get(idOrName: string): Collection
  /** Every collection. */
  all(): Collection[]
  /** The lookup validation and rules use to resolve other collections. */
  lookup(): FieldLookup & { all(): Collection[] }
  /** Creates a collection from a CollectionInput. */
  create(input: Record<string, unknown>): Promise<Collection>
  /** Applies a CollectionInput onto an existing collection. */
  update(idOrName: string, input: Record<string, unknown>, merge?: FieldMerge): Promise<Collection>
  /** Validates and saves; failures become a 400 with `message`, errors at the paths of `shape`. */
  saveChecked(
    draft: Collection,
    old: Collection | undefined,
    message: ApiMessage,
    shape?: InputShape,
  ): Promise<Collection>
  /** Stores a collection and syncs its table, unvalidated; views are rechecked unless deferred. */
  save(
    draft: Collection,
    old: Collection | undefined,
    opts?: { deferViews?: boolean },
  ): Promise<Collection>
  /** Deletes a collection with its records; refuses system and referenced collections. */
  delete(idOrName: string): Promise<void>
  /** Drops a collection's table and row with no checks. */
  drop(c: Collection, opts?: { deferViews?: boolean }): Promise<void>
  /** Fails when a view no longer compiles after `changed` was altered or dropped. */
  revalidateViews(changed: Collection): Promise<void>
  /** Deletes every record of a collection and keeps its schema and rules. */
  truncate(idOrName: string): Promise<void>
  /** Imports collections in one transaction (see `import.ts`). */
  import(items: unknown, deleteMissing: boolean): Promise<void>
  /** A new collection id: `pbc_<crc32(type + name)>`, suffixed on collision. */
  newId(c: Collection): string
}
