/**
 * API keys (`#/api-keys`): the signed-in superuser's own keys (`_api_keys` through the records
 * API, filtered by owner, a page of 50, newest first), minting one with `POST /api/api-keys` (the key is shown once,
 * with a copy button) and revoking one (deleting its row).
 */
import { useState } from 'preact/hooks'
import type { RecordModel } from 'pocketbase'
import { errorMessage, fieldErrors, pb } from '../../api'
import { Button, Confirm, Modal, SelectField, TextField } from '../../components/ui'
import { useAction, useLoaded } from '../../components/use-api'
import type { PageProps } from '../../pages'
import { toast } from '../../toasts'
import '../settings/settings.css'

const DURATIONS = [
  { value: '0', label: 'Never expires' },
  { value: String(24 * 3600), label: '1 day' },
  { value: String(7 * 24 * 3600), label: '7 days' },
  { value: String(30 * 24 * 3600), label: '30 days' },
  { value: String(90 * 24 * 3600), label: '90 days' },
  { value: String(365 * 24 * 3600), label: '1 year' },
]

interface Minted {
  id: string
  name: string
  key: string
  expires: string
}

const when = (s: unknown) => (typeof s === 'string' && s ? s.replace(/\.\d+Z$/, 'Z') : '—')

function CreateKey(props: { onClose: () => void; onMinted: () => void }) {
  const [name, setName] = useState('')
  const [duration, setDuration] = useState('0')
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [minted, setMinted] = useState<Minted | null>(null)
  const [copied, setCopied] = useState(false)

  async function create(e?: Event) {
    e?.preventDefault()
    setBusy(true)
    setErrors({})
    try {
      const res = await pb.send<Minted>('/api/api-keys', {
        method: 'POST',
        body: { name, duration: Number(duration) },
      })
      setMinted(res)
      props.onMinted()
    } catch (err) {
      setErrors(fieldErrors(err))
      toast('error', errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  async function copy() {
    if (!minted) return
    try {
      await navigator.clipboard.writeText(minted.key)
      setCopied(true)
    } catch {
      toast('error', 'The clipboard is not available: select the key and copy it.')
    }
  }

  if (minted)
    return (
      <Modal
        title="API key created"
        onClose={props.onClose}
        footer={
          <Button kind="primary" onClick={props.onClose}>
            Done
          </Button>
        }
      >
        <div class="stack">
          <p>
            Copy the key of <strong>{minted.name}</strong> now: it is shown only this once, and only
            its hash is stored.
          </p>
          <div class="row">
            <input
              class="grow mono"
              readOnly
              aria-label="The new API key"
              value={minted.key}
              onFocus={(e) => e.currentTarget.select()}
            />
            <Button onClick={() => void copy()}>{copied ? 'Copied' : 'Copy'}</Button>
          </div>
          <p class="muted">Expires: {minted.expires ? when(minted.expires) : 'never'}</p>
        </div>
      </Modal>
    )

  return (
    <Modal
      title="New API key"
      onClose={props.onClose}
      footer={
        <>
          <Button onClick={props.onClose}>Cancel</Button>
          <Button kind="primary" busy={busy} onClick={() => void create()}>
            Create key
          </Button>
        </>
      }
    >
      <form class="stack" onSubmit={(e) => void create(e)}>
        <TextField label="Name" value={name} onInput={setName} error={errors.name} required />
        <SelectField
          label="Expires after"
          value={duration}
          options={DURATIONS}
          onChange={setDuration}
          error={errors.duration}
        />
        <p class="muted">
          The key acts as you (a superuser) until it expires or is revoked. A key cannot mint other
          keys.
        </p>
      </form>
    </Modal>
  )
}

export default function ApiKeysPage(_props: PageProps) {
  const [creating, setCreating] = useState(false)
  const [revoking, setRevoking] = useState<RecordModel | null>(null)
  const loaded = useLoaded(async () => {
    const list = await pb.collection('_api_keys').getList(1, 50, {
      sort: '-created',
      skipTotal: true,
      // Superusers pass every rule: keep to the keys this superuser minted.
      filter: pb.filter('recordRef = {:id} && collectionRef = {:cid}', {
        id: pb.authStore.record?.id ?? '',
        cid: pb.authStore.record?.collectionId ?? '',
      }),
    })
    return list.items
  })
  const { value: keys, error, reload } = loaded
  const { busy, run } = useAction()

  async function revoke() {
    if (!revoking) return
    const done = await run(
      () => pb.collection('_api_keys').delete(revoking.id),
      `Key "${revoking.name as string}" revoked.`,
    )
    if (!done) return
    setRevoking(null)
    await reload()
  }

  return (
    <div class="stack">
      <div class="page-header">
        <h1>API keys</h1>
        <Button kind="primary" onClick={() => setCreating(true)}>
          New API key
        </Button>
        <a href="#/settings">Back to settings</a>
      </div>
      <p class="muted">
        Keys act as the superuser who made them: use one as a bearer token (for scripts, agents
        through <a href="#/mcp">MCP</a>). The 50 newest are listed.
      </p>
      {error && <p class="error-text">{error}</p>}
      {keys && keys.length === 0 && <p class="muted">No API keys yet.</p>}
      {keys && keys.length > 0 && (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Created</th>
                <th>Expires</th>
                <th>Last used</th>
                <th>
                  <span class="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id}>
                  <td>{k.name as string}</td>
                  <td>{when(k.created)}</td>
                  <td>{k.expires ? when(k.expires) : 'never'}</td>
                  <td>{when(k.lastUsed)}</td>
                  <td>
                    <Button
                      kind="danger"
                      aria-label={`Revoke ${k.name as string}`}
                      onClick={() => setRevoking(k)}
                    >
                      Revoke
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {creating && <CreateKey onClose={() => setCreating(false)} onMinted={() => void reload()} />}
      {revoking && (
        <Confirm
          title="Revoke API key"
          confirmLabel="Revoke"
          danger
          busy={busy}
          onConfirm={() => void revoke()}
          onCancel={() => setRevoking(null)}
        >
          <p>
            Revoke <strong>{revoking.name as string}</strong>? Requests made with it fail from now
            on.
          </p>
        </Confirm>
      )}
    </div>
  )
}
