/**
 * `#/backups`: the backups of `GET /api/backups` (name, size, date) with download (a superuser
 * file token), restore (type the name; the server restarts, the page waits for it and reloads)
 * and delete; create (optional name) and upload; and the schedule (`backups` settings).
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../../api'
import { Button, Confirm, Modal, TextField } from '../../components/ui'
import { formatBytes, formatDate, saveUrl } from '../../components/operations'
import type { PageProps } from '../../pages'
import { toast } from '../../toasts'
import { RestoreModal } from './restore'
import { BackupSchedule } from './schedule'
import './backups.css'

/** One archive of `GET /api/backups`. */
interface BackupFileInfo {
  key: string
  size: number
  modified: string
}

export default function BackupsPage(_props: PageProps) {
  const [list, setList] = useState<BackupFileInfo[] | null>(null)
  const [error, setError] = useState('')
  const [creating, setCreating] = useState(false)
  const [name, setName] = useState('')
  const [nameError, setNameError] = useState('')
  const [busy, setBusy] = useState('')
  const [deleting, setDeleting] = useState<string | null>(null)
  const [restoring, setRestoring] = useState<string | null>(null)
  /** `GET /api/health` says no backup can start now (one is running, or no S3 bucket). */
  const [locked, setLocked] = useState(false)

  const reload = async () => {
    try {
      const [l, health] = await Promise.all([pb.backups.getFullList(), pb.health.check()])
      setList(l)
      setLocked((health.data as { canBackup?: boolean } | undefined)?.canBackup === false)
      setError('')
    } catch (err) {
      setError(errorMessage(err))
    }
  }
  useEffect(() => {
    void reload()
  }, [])

  const create = async () => {
    setBusy('create')
    setNameError('')
    try {
      await pb.backups.create(name.trim())
      toast('success', 'The backup was created.')
      setCreating(false)
      setName('')
      await reload()
    } catch (err) {
      setNameError(fieldErrors(err).name ?? errorMessage(err))
    } finally {
      setBusy('')
    }
  }

  const download = async (key: string) => {
    try {
      const token = await pb.files.getToken()
      saveUrl(pb.backups.getDownloadURL(token, key), key)
    } catch (err) {
      toast('error', errorMessage(err))
    }
  }

  const upload = async (file: File) => {
    setBusy('upload')
    try {
      await pb.backups.upload({ file })
      toast('success', `${file.name} was uploaded.`)
      await reload()
    } catch (err) {
      toast('error', fieldErrors(err).file ?? errorMessage(err))
    } finally {
      setBusy('')
    }
  }

  const remove = async (key: string) => {
    setBusy('delete')
    try {
      await pb.backups.delete(key)
      toast('success', `${key} was deleted.`)
      setDeleting(null)
      await reload()
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setBusy('')
    }
  }

  return (
    <div class="stack ops-page backups-page">
      <div class="page-header">
        <h1>Backups</h1>
        <Button kind="primary" onClick={() => setCreating(true)} disabled={busy !== '' || locked}>
          New backup
        </Button>
        <label class={`btn btn-secondary upload-label${busy === 'upload' ? ' is-busy' : ''}`}>
          {busy === 'upload' ? 'Uploading…' : 'Upload backup'}
          <input
            type="file"
            accept=".zip,application/zip"
            class="sr-only"
            disabled={busy !== '' || locked}
            onChange={(e) => {
              const f = e.currentTarget.files?.[0]
              e.currentTarget.value = ''
              if (f) void upload(f)
            }}
          />
        </label>
        <Button kind="link" onClick={() => void reload()}>
          Refresh
        </Button>
      </div>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      {locked && (
        <p class="muted" role="status">
          A backup or restore is in progress (or backups cannot be stored right now): new backups
          and restores wait until it ends. Refresh to check again.
        </p>
      )}
      <div class="table-wrap">
        <table class="backups-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Date</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list?.map((b) => (
              <tr key={b.key} data-key={b.key}>
                <td class="mono">{b.key}</td>
                <td>{formatBytes(b.size)}</td>
                <td>{formatDate(b.modified)}</td>
                <td class="actions">
                  <Button
                    kind="link"
                    aria-label={`Download ${b.key}`}
                    onClick={() => void download(b.key)}
                  >
                    Download
                  </Button>
                  <Button
                    kind="link"
                    aria-label={`Restore ${b.key}`}
                    disabled={locked}
                    onClick={() => setRestoring(b.key)}
                  >
                    Restore
                  </Button>
                  <Button
                    kind="link"
                    aria-label={`Delete ${b.key}`}
                    onClick={() => setDeleting(b.key)}
                  >
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
            {list?.length === 0 && (
              <tr>
                <td colSpan={4} class="muted">
                  No backups yet.
                </td>
              </tr>
            )}
            {list === null && !error && (
              <tr>
                <td colSpan={4} class="muted">
                  Loading…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <BackupSchedule />
      {creating && (
        <Modal
          title="New backup"
          onClose={() => setCreating(false)}
          footer={
            <>
              <Button onClick={() => setCreating(false)}>Cancel</Button>
              <Button kind="primary" busy={busy === 'create'} onClick={() => void create()}>
                Start backup
              </Button>
            </>
          }
        >
          <form
            onSubmit={(e) => {
              e.preventDefault()
              void create()
            }}
          >
            <TextField
              label="Name (optional)"
              value={name}
              onInput={setName}
              error={nameError}
              placeholder="Leave empty for a generated name"
              hint="Lowercase letters, digits, _ and -, ending in .zip."
            />
          </form>
          <p class="muted">The app keeps running while the snapshot is taken.</p>
        </Modal>
      )}
      {deleting && (
        <Confirm
          title="Delete backup"
          confirmLabel="Delete"
          danger
          busy={busy === 'delete'}
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Delete <strong class="mono">{deleting}</strong>? This cannot be undone.
          </p>
        </Confirm>
      )}
      {restoring && <RestoreModal name={restoring} onClose={() => setRestoring(null)} />}
    </div>
  )
}
