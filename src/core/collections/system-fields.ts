/** Field definitions of the system collections (`system.ts`), in PocketBase's terms. */
import type { Field } from './model.js'

export type Spec = Partial<Field> & Pick<Field, 'name' | 'type'>

export const text = (name: string, extra: Partial<Field> = {}): Spec => ({
  name,
  type: 'text',
  ...extra,
})
export const bool = (name: string): Spec => ({ name, type: 'bool' })
export const date = (name: string): Spec => ({ name, type: 'date' })
export const json = (name: string): Spec => ({ name, type: 'json' })
export const select = (name: string, values: string[]): Spec => ({
  name,
  type: 'select',
  options: { values, maxSelect: 1 },
})
export const relation = (name: string, collectionId: string, cascadeDelete = true): Spec => ({
  name,
  type: 'relation',
  required: true,
  options: { collectionId, cascadeDelete, minSelect: 0, maxSelect: 1 },
})

/** A required system text field, as PocketBase defines its own collections' fields. */
export const ref = (name: string): Spec => text(name, { required: true, system: true })
