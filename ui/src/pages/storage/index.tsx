/**
 * `#/storage?prefix=a/b/`: the object browser over the configured storage
 * (`GET /api/storage/objects?prefix=`, one level): folders and files, download
 * (`/api/storage/objects/download`, fetched with the bearer token) and delete with a confirmation.
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { Button, Confirm } from '../../components/ui'
import { fetchAuthed, formatBytes, formatDate, saveBlob } from '../../components/operations'
import type { PageProps } from '../../pages'
import { href, navigate } from '../../router'
import { toast } from '../../toasts'
import './storage.css'

interface Listing {
  folders: string[]
  files: { key: string; size: number; lastModified: string }[]
}

/** The last part of a key or folder prefix (`a/b/` → `b/`). */
function base(key: string): string {
  const trimmed = key.endsWith('/') ? key.slice(0, -1) : key
  return key.slice(trimmed.lastIndexOf('/') + 1)
}

export default function StoragePage(props: PageProps) {
  const prefix = props.route.query.get('prefix') ?? ''
  const [listing, setListing] = useState<Listing | null>(null)
  const [error, setError] = useState('')
  const [deleting, setDeleting] = useState<string | null>(null)
  const [busy, setBusy] = useState('')
  const [reloads, setReloads] = useState(0)

  useEffect(() => {
    let live = true
    setListing(null)
    setError('')
    pb.send<Listing>('/api/storage/objects', { query: { prefix } }).then(
      (l) => live && setListing(l),
      (err: unknown) => live && setError(errorMessage(err)),
    )
    return () => {
      live = false
    }
  }, [prefix, reloads])

  const download = async (key: string) => {
    setBusy(key)
    try {
      const res = await fetchAuthed(`/api/storage/objects/download?key=${encodeURIComponent(key)}`)
      saveBlob(await res.blob(), base(key))
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setBusy('')
    }
  }

  const remove = async (key: string) => {
    setBusy(key)
    try {
      await pb.send('/api/storage/objects', { method: 'DELETE', query: { key } })
      toast('success', `${key} was deleted.`)
      setDeleting(null)
      setReloads((n) => n + 1)
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setBusy('')
    }
  }

  const crumbs = prefix.split('/').filter(Boolean)
  return (
    <div class="stack ops-page storage-page">
      <div class="page-header">
        <h1>Storage</h1>
        <Button kind="link" onClick={() => setReloads((n) => n + 1)}>
          Refresh
        </Button>
      </div>
      <nav aria-label="Folder" class="storage-crumbs">
        <a href={href('storage')}>root</a>
        {crumbs.map((c, i) => (
          <span key={i}>
            {' / '}
            <a href={href('storage', { prefix: `${crumbs.slice(0, i + 1).join('/')}/` })}>{c}</a>
          </span>
        ))}
      </nav>
      <p class="muted">
        Raw objects of the file storage (records' files live under
        <code> collectionId/recordId/</code>). Deleting here does not change any record.
      </p>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <div class="table-wrap">
        <table class="storage-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Size</th>
              <th scope="col">Modified</th>
              <th scope="col">
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {listing?.folders.map((f) => (
              <tr key={f}>
                <td colSpan={4}>
                  <a href={href('storage', { prefix: f })} class="storage-folder">
                    <span aria-hidden="true">📁 </span>
                    {base(f)}
                  </a>
                </td>
              </tr>
            ))}
            {listing?.files.map((f) => (
              <tr key={f.key}>
                <td class="mono">{base(f.key)}</td>
                <td>{formatBytes(f.size)}</td>
                <td>{formatDate(f.lastModified)}</td>
                <td class="actions">
                  <Button
                    kind="link"
                    busy={busy === f.key}
                    aria-label={`Download ${f.key}`}
                    onClick={() => void download(f.key)}
                  >
                    Download
                  </Button>
                  <Button
                    kind="link"
                    aria-label={`Delete ${f.key}`}
                    onClick={() => setDeleting(f.key)}
                  >
                    Delete
                  </Button>
                </td>
              </tr>
            ))}
            {listing && listing.folders.length + listing.files.length === 0 && (
              <tr>
                <td colSpan={4} class="muted">
                  This folder is empty.
                </td>
              </tr>
            )}
            {!listing && !error && (
              <tr>
                <td colSpan={4} class="muted">
                  Loading…
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      {prefix && (
        <div>
          <Button
            kind="link"
            onClick={() => {
              const up = crumbs.slice(0, -1).join('/')
              navigate('storage', { prefix: up ? `${up}/` : undefined })
            }}
          >
            ↑ Up one folder
          </Button>
        </div>
      )}
      {deleting && (
        <Confirm
          title="Delete file"
          confirmLabel="Delete"
          danger
          busy={busy === deleting}
          onConfirm={() => void remove(deleting)}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Delete <strong class="mono">{deleting}</strong> from the storage? A record that names
            this file will point at nothing. This cannot be undone.
          </p>
        </Confirm>
      )}
    </div>
  )
}
