/**
 * The rule editor's syntax check: the text is sent (debounced) to
 * `POST /api/collections/meta/check-filter`, which compiles it with the server's own code, so the
 * message shown is the one a save or a list would answer.
 */
import { useEffect, useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { errorMessage, pb } from '../api'
import { collections } from '../collections'

/** How long typing must pause before the text is checked. */
export const CHECK_DELAY_MS = 400

/** What the check says: `error` (null when fine or not checked) and whether it is under way. */
export interface SyntaxCheck {
  error: string | null
  checking: boolean
  /** Why the text is not checked on the server (an unsaved collection), else null. */
  skipped: string | null
}

/** Asks the server whether `text` compiles for `collection`; resolves to its message or null. */
export async function checkFilter(
  collection: string,
  filter: string,
  mode: 'rule' | 'filter',
): Promise<string | null> {
  try {
    await pb.send('/api/collections/meta/check-filter', {
      method: 'POST',
      body: { collection, filter, mode },
    })
    return null
  } catch (err) {
    const status = (err as { status?: number }).status
    if (status === 400) return errorMessage(err)
    throw err
  }
}

/**
 * Whether the server can check rules of `c` as it is: it must be saved, with the same fields
 * (a rule naming a field added in the form would be reported unknown until the save).
 */
export function checkable(c: CollectionModel | null): string | null {
  if (!c) return 'Checked when the collection is saved.'
  const saved = collections.value?.find((x) => x.id === c.id)
  if (!saved) return 'Checked when the collection is saved.'
  const names = (m: CollectionModel) =>
    m.fields
      .map((f) => f.name)
      .sort()
      .join('\u0000')
  if (names(saved) !== names(c)) return 'Checked fully once the field changes are saved.'
  return null
}

/** The debounced server check of `text` (empty text is always fine). */
export function useSyntaxCheck(
  text: string,
  collection: CollectionModel | null,
  mode: 'rule' | 'filter',
  enabled = true,
): SyntaxCheck {
  const [state, setState] = useState<SyntaxCheck>({ error: null, checking: false, skipped: null })
  const skipped = checkable(collection)
  const id = collection?.id ?? ''
  useEffect(() => {
    if (!enabled || text.trim() === '' || skipped !== null) {
      setState({ error: null, checking: false, skipped: enabled ? skipped : null })
      return
    }
    let live = true
    setState((s) => ({ ...s, checking: true, skipped: null }))
    const timer = window.setTimeout(() => {
      checkFilter(id, text, mode).then(
        (error) => live && setState({ error, checking: false, skipped: null }),
        (err: unknown) =>
          live &&
          setState({
            error: `The rule could not be checked: ${errorMessage(err)}`,
            checking: false,
            skipped: null,
          }),
      )
    }, CHECK_DELAY_MS)
    return () => {
      live = false
      window.clearTimeout(timer)
    }
  }, [text, id, mode, enabled, skipped])
  return state
}
