/**
 * Webhooks (`#/webhooks`): the `_webhooks` rows (records API, 50 a page) with the outcome of
 * their last delivery (status, error, time, attempts), create / edit / delete, and the pending
 * deliveries of one webhook (`_webhook_outbox`) with "Retry now". The secret is write-only: it is
 * typed when creating, and can be replaced when editing, never shown. A delivery that succeeded or
 * was given up cannot be sent again (the API keeps no history beyond the last outcome).
 */
import { useState } from 'preact/hooks'
import type { RecordModel } from 'pocketbase'
import { pb } from '../../api'
import { Button, Confirm } from '../../components/ui'
import { useAction, useLoaded } from '../../components/use-api'
import type { PageProps } from '../../pages'
import { Deliveries, WebhookForm } from './form'
import '../settings/settings.css'
import './webhooks.css'

const when = (s: unknown) => (typeof s === 'string' && s ? s.replace(/\.\d+Z$/, 'Z') : '—')

/** The outcome of the last delivery as a short status. */
function outcome(w: RecordModel): { text: string; cls: string } {
  if (!w.lastAttemptAt) return { text: 'never sent', cls: 'wh-none' }
  const status = w.lastStatus as string
  const ok = /^2\d\d$/.test(status) && !w.lastError
  return ok
    ? { text: `${status} OK`, cls: 'wh-ok' }
    : { text: status ? `${status} failed` : 'failed', cls: 'wh-fail' }
}

export default function WebhooksPage(_props: PageProps) {
  const [editing, setEditing] = useState<RecordModel | 'new' | null>(null)
  const [deleting, setDeleting] = useState<RecordModel | null>(null)
  const [open, setOpen] = useState<string | null>(null)
  const {
    value: rows,
    error,
    reload,
  } = useLoaded(
    async () =>
      (await pb.collection('_webhooks').getList(1, 50, { sort: 'name', skipTotal: true })).items,
  )
  const { busy, run } = useAction()

  async function remove() {
    if (!deleting) return
    const done = await run(
      () => pb.collection('_webhooks').delete(deleting.id),
      `Webhook "${deleting.name as string}" deleted.`,
    )
    if (!done) return
    setDeleting(null)
    await reload()
  }

  return (
    <div class="stack">
      <div class="page-header">
        <h1>Webhooks</h1>
        <Button kind="primary" onClick={() => setEditing('new')}>
          New webhook
        </Button>
        <Button onClick={() => void reload()}>Refresh</Button>
        <a href="#/settings/webhooks">Delivery settings</a>
      </div>
      <p class="muted">
        Each webhook POSTs the create, update and delete events of one collection to a URL, signed
        with its secret, retried with backoff until a 2xx answer. The first 50 by name are listed.
      </p>
      {error && <p class="error-text">{error}</p>}
      {rows && rows.length === 0 && <p class="muted">No webhooks yet.</p>}
      {rows && rows.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Collection</th>
                <th>Events</th>
                <th>URL</th>
                <th>Enabled</th>
                <th>Last delivery</th>
                <th>At</th>
                <th>Attempts</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((w) => {
                const o = outcome(w)
                return [
                  <tr key={w.id}>
                    <td>{w.name as string}</td>
                    <td>{w.collection as string}</td>
                    <td>{(w.events as string) || 'all'}</td>
                    <td class="mono" title={w.url as string}>
                      {w.url as string}
                    </td>
                    <td>{w.enabled ? 'yes' : 'no'}</td>
                    <td>
                      <span class={`badge ${o.cls}`}>{o.text}</span>
                      {w.lastError && (
                        <div class="muted wh-error" title={w.lastError as string}>
                          {w.lastError as string}
                        </div>
                      )}
                    </td>
                    <td>{when(w.lastAttemptAt)}</td>
                    <td>{String(w.attempts ?? 0)}</td>
                    <td>
                      <div class="row wh-actions">
                        <Button
                          kind="link"
                          aria-expanded={open === w.id}
                          aria-label={`Pending deliveries of ${w.name as string}`}
                          onClick={() => setOpen(open === w.id ? null : w.id)}
                        >
                          Pending
                        </Button>
                        <Button
                          kind="link"
                          aria-label={`Edit ${w.name as string}`}
                          onClick={() => setEditing(w)}
                        >
                          Edit
                        </Button>
                        <Button
                          kind="link"
                          aria-label={`Delete ${w.name as string}`}
                          onClick={() => setDeleting(w)}
                        >
                          Delete
                        </Button>
                      </div>
                    </td>
                  </tr>,
                  open === w.id && (
                    <tr key={`${w.id}-deliveries`}>
                      <td colSpan={9} class="wh-deliveries">
                        <Deliveries webhook={w} />
                      </td>
                    </tr>
                  ),
                ]
              })}
            </tbody>
          </table>
        </div>
      )}
      {editing && (
        <WebhookForm
          row={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null)
            void reload()
          }}
        />
      )}
      {deleting && (
        <Confirm
          title="Delete webhook"
          confirmLabel="Delete"
          danger
          busy={busy}
          onConfirm={() => void remove()}
          onCancel={() => setDeleting(null)}
        >
          <p>
            Delete <strong>{deleting.name as string}</strong>? Its pending deliveries are dropped.
          </p>
        </Confirm>
      )}
    </div>
  )
}
