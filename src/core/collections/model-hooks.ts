import type { App } from '../app.js'
import { afterWriteError } from '../hooks.js'
import type { Collection } from './model.js'

/**
 * Runs a collection write inside its model hook (`onCollectionCreate`, `onCollectionUpdate`,
 * `onCollectionDelete`; tagged with the collection's id and name), in the caller's transaction:
 * `write` is the built-in action and gets `e.collection`. When it ran, the matching
 * `onCollectionAfter*Success` hook is queued for after the commit. A handler that skips
 * `e.next()` writes nothing; the collection is then returned as the handlers left it. A failure
 * of the chain or the write fires `onCollectionAfter*Error` once the transaction rolled back.
 */
export async function aroundCollectionWrite(
  app: App,
  action: 'create' | 'update' | 'delete',
  collection: Collection,
  original: Collection | undefined,
  write: (c: Collection) => Promise<Collection>,
): Promise<Collection> {
  const hooks = app.hooks
  const [hook, success, failure] =
    action === 'create'
      ? [
          hooks.onCollectionCreate,
          hooks.onCollectionAfterCreateSuccess,
          hooks.onCollectionAfterCreateError,
        ]
      : action === 'update'
        ? [
            hooks.onCollectionUpdate,
            hooks.onCollectionAfterUpdateSuccess,
            hooks.onCollectionAfterUpdateError,
          ]
        : [
            hooks.onCollectionDelete,
            hooks.onCollectionAfterDeleteSuccess,
            hooks.onCollectionAfterDeleteError,
          ]
  let written: Collection | undefined
  const event = { app, collection, ...(original ? { original } : {}) }
  try {
    await hook.trigger(
      event,
      async (e) => {
        written = await write(e.collection)
        e.collection = written
      },
      tagsOf(collection),
    )
  } catch (error) {
    // After the rollback of the caller's transaction (or at once outside one).
    if (failure.length > 0)
      await afterWriteError(app, () =>
        failure.trigger({ app, collection: event.collection, error }, () => {}, tagsOf(collection)),
      )
    throw error
  }
  if (!written) return event.collection
  const done = written
  app.onAfterCommit(() => success.trigger({ app, collection: done }, () => {}, tagsOf(done)))
  return done
}

/** The tags a collection's hooks fire with: its id (when it has one) and name. */
const tagsOf = (c: Collection): string[] => (c.id === '' ? [c.name] : [c.id, c.name])
