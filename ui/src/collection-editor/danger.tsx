/**
 * The editor's danger zone: truncate (delete every record, after a confirmation) and delete the
 * collection (confirmed by typing its name).
 */
import { useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { errorMessage, pb } from '../api'
import { reloadCollections } from '../collections'
import { Button, Confirm, TextField } from '../components/ui'
import { toast } from '../toasts'

/** Truncate and delete buttons with their confirmations. */
export function DangerZone(props: { collection: CollectionModel; onGone: () => void }) {
  const c = props.collection
  const [ask, setAsk] = useState<'truncate' | 'delete' | null>(null)
  const [typed, setTyped] = useState('')
  const [busy, setBusy] = useState(false)
  const run = async () => {
    setBusy(true)
    try {
      if (ask === 'truncate') {
        await pb.collections.truncate(c.id)
        toast('success', `Every record of "${c.name}" was deleted.`)
        setAsk(null)
      } else {
        await pb.collections.delete(c.id)
        toast('success', `Collection "${c.name}" was deleted.`)
        setAsk(null)
        await reloadCollections()
        props.onGone()
      }
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="ce-danger" aria-label="Danger zone">
      {c.type !== 'view' && (
        <Button kind="danger" onClick={() => setAsk('truncate')}>
          Truncate
        </Button>
      )}
      <Button
        kind="danger"
        onClick={() => {
          setTyped('')
          setAsk('delete')
        }}
      >
        Delete collection
      </Button>
      {ask === 'truncate' && (
        <Confirm
          title={`Truncate "${c.name}"?`}
          confirmLabel="Delete every record"
          danger
          busy={busy}
          onCancel={() => setAsk(null)}
          onConfirm={() => void run()}
        >
          <p>
            Every record of "{c.name}" is deleted (with their files, and the records whose relations
            cascade). The collection and its fields stay.
          </p>
        </Confirm>
      )}
      {ask === 'delete' && (
        <Confirm
          title={`Delete collection "${c.name}"?`}
          confirmLabel="Delete the collection"
          danger
          busy={busy || typed !== c.name}
          onCancel={() => setAsk(null)}
          onConfirm={() => typed === c.name && void run()}
        >
          <p>
            The collection, every record in it, its files and its fields ({' '}
            {(c.fields ?? []).map((f) => f.name).join(', ')}) are deleted.
          </p>
          <TextField
            label={`Type "${c.name}" to confirm`}
            value={typed}
            onInput={setTyped}
            autoComplete="off"
          />
        </Confirm>
      )}
    </section>
  )
}
