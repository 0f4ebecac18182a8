/**
 * The seam between the record service and the vectors feature (`features/vectors`): auto-embedding
 * of `vector` fields with a `sourceField`, and `nearestTo` vector search. Core declares the service;
 * the feature sets it on `app.services`. Without it, vectors are not filled and `nearestTo` answers
 * 400.
 */
import type { App } from './app.js'
import type { Collection, Field } from './collections/model.js'
import type { RecordListResult } from './records/api.js'
import type { RequestInfo } from './request-info.js'

/** What the vectors feature offers the record service. */
export interface VectorsService {
  /**
   * One embedding per text, each of the field's `dimensions`. Called outside any transaction (the
   * writer is not held while a provider answers); throws an ApiError (502) when the provider fails.
   */
  embed(field: Field, texts: string[]): Promise<number[][]>
  /** A `nearestTo` list: ranked by cosine similarity, under the listRule and `filter`. */
  search(
    app: App,
    collection: Collection,
    query: Record<string, unknown>,
    info: RequestInfo,
  ): Promise<RecordListResult>
}

declare module './services.js' {
  interface AppServices {
    /** Auto-embedding and vector search (set by the vectors feature). */
    vectors: VectorsService
  }
}
