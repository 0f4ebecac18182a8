/**
 * The restore modal: explains what happens, asks for the backup's name, then calls
 * `POST /api/backups/{key}/restore`. The server answers 204 and restarts with the backup's data,
 * so the page waits for `/api/health` to go away and answer again, then reloads.
 */
import { useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { Button, Modal, TextField } from '../../components/ui'

const sleep = (ms: number) => new Promise((r) => window.setTimeout(r, ms))

/** Polls `/api/health` until the restarted server answers (at most about 2 minutes). */
async function waitForRestart(): Promise<void> {
  let sawDown = false
  let upInARow = 0
  for (let i = 0; i < 240; i++) {
    await sleep(500)
    try {
      const res = await fetch(pb.buildURL('/api/health'), { cache: 'no-store' })
      if (res.ok) upInARow++
      else sawDown = true
    } catch {
      sawDown = true
      upInARow = 0
    }
    // Up again after being down, or never seen down (the restart was quicker than a poll).
    if ((sawDown && upInARow >= 1) || upInARow >= 6) return
  }
}

export function RestoreModal(props: { name: string; onClose: () => void }) {
  const [typed, setTyped] = useState('')
  const [state, setState] = useState<'ask' | 'restoring' | 'waiting'>('ask')
  const [error, setError] = useState('')
  const restore = async () => {
    if (typed !== props.name) return
    setState('restoring')
    setError('')
    try {
      await pb.backups.restore(props.name)
    } catch (err) {
      setError(errorMessage(err))
      setState('ask')
      return
    }
    setState('waiting')
    await waitForRestart()
    window.location.reload()
  }
  return (
    <Modal
      title="Restore backup"
      onClose={() => state === 'ask' && props.onClose()}
      footer={
        <>
          <Button onClick={props.onClose} disabled={state !== 'ask'}>
            Cancel
          </Button>
          <Button
            kind="danger"
            busy={state !== 'ask'}
            disabled={typed !== props.name}
            onClick={() => void restore()}
          >
            Restore
          </Button>
        </>
      }
    >
      {state === 'waiting' ? (
        <p role="status" class="restore-waiting">
          Restoring… the server is restarting with the backup's data. This page reloads when it is
          back.
        </p>
      ) : (
        <form
          class="stack"
          onSubmit={(e) => {
            e.preventDefault()
            void restore()
          }}
        >
          <p>
            The data (records, collections, settings, logs and local files) is replaced by the
            content of <strong class="mono">{props.name}</strong>. Everything written since that
            backup is lost. The server restarts: connected clients are dropped and reconnect.
          </p>
          <TextField
            label={`Type ${props.name} to confirm`}
            value={typed}
            onInput={setTyped}
            error={error}
            autoComplete="off"
          />
        </form>
      )}
    </Modal>
  )
}
