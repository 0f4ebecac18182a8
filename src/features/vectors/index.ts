/**
 * Auto-embedding and vector search (issue 15 parts 2–3; docs/vectors.md). Offers the `vectors`
 * service the record service calls: `embed` before a write's transaction (echo embeddings, or
 * the OpenAI-compatible `/embeddings` the `llm` settings name) and `search` for `nearestTo` lists.
 * The in-memory indexes follow committed record changes through the after-success record hooks
 * and are dropped when their collection's schema changes.
 */
import type { Feature } from '../../http/feature.js'
import { embedTexts } from './embed.js'
import { VectorSearch } from './service.js'

/** The vectors feature. */
export function vectorsFeature(): Feature {
  return {
    name: 'vectors',
    register: ({ app }) => {
      const search = new VectorSearch(app)
      app.services.set('vectors', {
        embed: (field, texts) => embedTexts(app, field, texts),
        search: (a, collection, query, info) => search.search(a, collection, query, info),
      })
      const changed =
        (deleted: boolean) =>
        async (e: {
          collection: Parameters<VectorSearch['recordChanged']>[0]
          record: Parameters<VectorSearch['recordChanged']>[1]
          next: () => Promise<void>
        }) => {
          if (e.collection.fields.some((f) => f.type === 'vector'))
            search.recordChanged(e.collection, e.record, deleted)
          await e.next()
        }
      app.hooks.onRecordAfterCreateSuccess.bind({
        id: '__svcVectorsCreate__',
        func: changed(false),
      })
      app.hooks.onRecordAfterUpdateSuccess.bind({
        id: '__svcVectorsUpdate__',
        func: changed(false),
      })
      app.hooks.onRecordAfterDeleteSuccess.bind({ id: '__svcVectorsDelete__', func: changed(true) })
      const dropped = async (e: { collection: { id: string }; next: () => Promise<void> }) => {
        search.dropCollection(e.collection.id)
        await e.next()
      }
      app.hooks.onCollectionAfterUpdateSuccess.bind({ id: '__svcVectorsSchema__', func: dropped })
      app.hooks.onCollectionAfterDeleteSuccess.bind({ id: '__svcVectorsDrop__', func: dropped })
      app.hooks.onTerminate.bind({
        id: '__svcVectorsClose__',
        func: async (e) => {
          search.clear()
          await e.next()
        },
      })
    },
  }
}
