/**
 * Every collection's definition, shared by the pages (sidebar, records, rules, relations):
 * loaded once after sign-in and again after any change (`reloadCollections()`).
 */
import { signal } from '@preact/signals'
import type { CollectionModel } from 'pocketbase'
import { errorMessage, pb } from './api'
import { toast } from './toasts'

/** The collections, sorted by name; null until first loaded. */
export const collections = signal<CollectionModel[] | null>(null)

/** Loads every collection again (after a create, update, delete or import). */
export async function reloadCollections(): Promise<CollectionModel[]> {
  try {
    const list = await pb.collections.getFullList({ sort: 'name' })
    collections.value = list
    return list
  } catch (err) {
    toast('error', `The collections could not be loaded: ${errorMessage(err)}`)
    return collections.value ?? []
  }
}

/** A collection by id or name, from the loaded list. */
export function findCollection(idOrName: string): CollectionModel | undefined {
  return collections.value?.find((c) => c.id === idOrName || c.name === idOrName)
}
