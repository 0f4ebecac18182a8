/**
 * The webhook editor (a modal: name, URL, collection, events, enabled, write-only secret) and
 * the pending deliveries of one webhook (`_webhook_outbox`: attempts, next attempt).
 */
import { useEffect, useState } from 'preact/hooks'
import type { RecordModel } from 'pocketbase'
import { errorMessage, fieldErrors, pb } from '../../api'
import { collections } from '../../collections'
import { Button, Checkbox, Modal, SelectField, TextField } from '../../components/ui'
import { toast } from '../../toasts'

const EVENTS = ['create', 'update', 'delete'] as const

/** A random `whsec_` secret (32 random bytes, base64), as docs/webhooks.md suggests. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32))
  return `whsec_${btoa(String.fromCharCode(...bytes))}`
}

/** Creates (`row` null) or edits a `_webhooks` row. */
export function WebhookForm(props: {
  row: RecordModel | null
  onClose: () => void
  onSaved: () => void
}) {
  const r = props.row
  const [name, setName] = useState((r?.name as string | undefined) ?? '')
  const [url, setUrl] = useState((r?.url as string | undefined) ?? '')
  const [collection, setCollection] = useState((r?.collection as string | undefined) ?? '')
  const initial = ((r?.events as string | undefined) ?? '').split(',').filter(Boolean)
  const [events, setEvents] = useState<string[]>(initial.length ? initial : [...EVENTS])
  const [enabled, setEnabled] = useState(r ? Boolean(r.enabled) : true)
  const [secret, setSecret] = useState(r ? '' : newSecret())
  const [replacing, setReplacing] = useState(!r)
  const [shown, setShown] = useState(false)
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})

  const names = (collections.value ?? [])
    .map((c) => c.name)
    .filter((n) => n !== '_webhooks' && n !== '_webhook_outbox')
  const options = ['', ...names].map((n) => ({ value: n, label: n || 'Choose a collection' }))
  if (collection && !names.includes(collection))
    options.push({ value: collection, label: collection })

  async function save(e?: Event) {
    e?.preventDefault()
    setBusy(true)
    setErrors({})
    const body: Record<string, unknown> = {
      name,
      url,
      collection,
      events: events.length === EVENTS.length ? '' : events.join(','),
      enabled,
    }
    if (replacing) body.secret = secret
    try {
      if (r) await pb.collection('_webhooks').update(r.id, body)
      else await pb.collection('_webhooks').create(body)
      toast('success', `Webhook "${name}" saved.`)
      props.onSaved()
    } catch (err) {
      setErrors(fieldErrors(err))
      toast('error', errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal
      title={r ? `Edit webhook ${r.name as string}` : 'New webhook'}
      onClose={props.onClose}
      footer={
        <>
          <Button onClick={props.onClose}>Cancel</Button>
          <Button kind="primary" busy={busy} onClick={() => void save()}>
            {r ? 'Save webhook' : 'Create webhook'}
          </Button>
        </>
      }
    >
      <form class="stack" onSubmit={(e) => void save(e)}>
        <TextField label="Name" value={name} onInput={setName} error={errors.name} required />
        <TextField
          label="URL"
          type="url"
          value={url}
          onInput={setUrl}
          error={errors.url}
          placeholder="https://example.com/hooks/svcbase"
          required
        />
        <SelectField
          label="Collection"
          value={collection}
          options={options}
          onChange={setCollection}
          error={errors.collection}
        />
        <fieldset class="wh-events">
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <Checkbox
              key={ev}
              label={ev}
              checked={events.includes(ev)}
              onChange={(on) =>
                setEvents(
                  on
                    ? EVENTS.filter((x) => x === ev || events.includes(x))
                    : events.filter((x) => x !== ev),
                )
              }
            />
          ))}
          {errors.events && <div class="error-text">{errors.events}</div>}
        </fieldset>
        <Checkbox label="Enabled" checked={enabled} onChange={setEnabled} />
        {replacing ? (
          <div class="stack">
            <div class="row">
              <div class="grow">
                <TextField
                  label="Signing secret (16–256 characters)"
                  type={shown ? 'text' : 'password'}
                  value={secret}
                  onInput={setSecret}
                  error={errors.secret}
                  autoComplete="new-password"
                />
              </div>
              <Button onClick={() => setShown(!shown)}>{shown ? 'Hide' : 'Show'}</Button>
              <Button onClick={() => setSecret(newSecret())}>Generate</Button>
            </div>
            <p class="muted">
              Keep a copy for the receiver: the secret is never shown again after saving.
            </p>
          </div>
        ) : (
          <div class="row">
            <span>
              Signing secret <span class="badge badge-set">set</span>
            </span>
            <Button
              onClick={() => {
                setReplacing(true)
                setSecret(newSecret())
              }}
            >
              Replace secret
            </Button>
          </div>
        )}
      </form>
    </Modal>
  )
}

/**
 * The pending deliveries of a webhook: queued or waiting for a retry (outbox rows), each with
 * "Retry now" (`POST /api/webhooks/deliveries/{id}/retry`).
 */
export function Deliveries({ webhook }: { webhook: RecordModel }) {
  const [rows, setRows] = useState<RecordModel[] | null>(null)
  const [error, setError] = useState('')
  const [round, setRound] = useState(0)
  const [busy, setBusy] = useState('')
  async function retry(id: string) {
    setBusy(id)
    try {
      await pb.send(`/api/webhooks/deliveries/${encodeURIComponent(id)}/retry`, {
        method: 'POST',
      })
      toast('success', 'The delivery is being sent again.')
      setRound((n) => n + 1)
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setBusy('')
    }
  }
  useEffect(() => {
    pb.collection('_webhook_outbox')
      .getList(1, 20, {
        filter: pb.filter('webhook = {:id}', { id: webhook.id }),
        sort: 'nextAttemptAt',
        skipTotal: true,
        fields: 'id,attempts,nextAttemptAt,created',
      })
      .then(
        (l) => setRows(l.items),
        (err: unknown) => setError(errorMessage(err)),
      )
  }, [webhook.id, round])
  if (error) return <p class="error-text">{error}</p>
  if (!rows) return <p class="muted">Loading…</p>
  const last = webhook.lastAttemptAt
    ? `Last attempt ${String(webhook.lastAttemptAt)}: ${
        (webhook.lastStatus as string) || 'no answer'
      }${webhook.lastError ? ` (${webhook.lastError as string})` : ''}.`
    : 'Nothing was sent yet.'
  return (
    <div class="stack">
      <p class="muted">{last}</p>
      {rows.length === 0 ? (
        <p class="muted">No pending deliveries.</p>
      ) : (
        <table aria-label={`Pending deliveries of ${webhook.name as string}`}>
          <thead>
            <tr>
              <th>Delivery id (webhook-id)</th>
              <th>Queued</th>
              <th>Attempts so far</th>
              <th>Next attempt</th>
              <th>
                <span class="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((d) => (
              <tr key={d.id}>
                <td class="mono">{d.id}</td>
                <td>{d.created}</td>
                <td>{String(d.attempts ?? 0)}</td>
                <td>{(d.nextAttemptAt as string) || 'now'}</td>
                <td>
                  <Button
                    kind="link"
                    busy={busy === d.id}
                    aria-label={`Retry delivery ${d.id} now`}
                    onClick={() => void retry(d.id)}
                  >
                    Retry now
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  )
}
