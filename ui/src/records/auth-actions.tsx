/**
 * The auth record actions of the record editor: send a verification e-mail (when unverified),
 * send a password-reset e-mail, and impersonate (a non-refreshable token for the record, with an
 * optional duration, shown to copy).
 */
import type { CollectionModel, RecordModel } from 'pocketbase'
import { useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../api'
import { Button, Modal, TextField } from '../components/ui'
import { toast } from '../toasts'

export function AuthActions(props: { collection: CollectionModel; record: RecordModel }) {
  const { collection: c, record: r } = props
  const [busy, setBusy] = useState('')
  const [impersonating, setImpersonating] = useState(false)
  const email = typeof r.email === 'string' ? r.email : ''
  const run = async (what: string, fn: () => Promise<unknown>, done: string) => {
    setBusy(what)
    try {
      await fn()
      toast('success', done)
    } catch (err) {
      toast('error', errorMessage(err))
    } finally {
      setBusy('')
    }
  }
  return (
    <div class="auth-actions row" role="group" aria-label="Account actions">
      {!r.verified && email && (
        <Button
          busy={busy === 'verify'}
          onClick={() =>
            void run(
              'verify',
              () => pb.collection(c.name).requestVerification(email),
              `Verification e-mail sent to ${email}.`,
            )
          }
        >
          Send verification email
        </Button>
      )}
      {email && (
        <Button
          busy={busy === 'reset'}
          onClick={() =>
            void run(
              'reset',
              () => pb.collection(c.name).requestPasswordReset(email),
              `Password reset e-mail sent to ${email}.`,
            )
          }
        >
          Send password reset email
        </Button>
      )}
      <Button onClick={() => setImpersonating(true)}>Impersonate</Button>
      {impersonating && (
        <Impersonate collection={c} record={r} onClose={() => setImpersonating(false)} />
      )}
    </div>
  )
}

function Impersonate(props: {
  collection: CollectionModel
  record: RecordModel
  onClose: () => void
}) {
  const [duration, setDuration] = useState('')
  const [token, setToken] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const generate = async () => {
    setBusy(true)
    setError('')
    try {
      const res = await pb.send<{ token: string }>(
        `/api/collections/${encodeURIComponent(props.collection.name)}/impersonate/${encodeURIComponent(props.record.id)}`,
        { method: 'POST', body: { duration: duration === '' ? 0 : Number(duration) } },
      )
      setToken(res.token)
    } catch (err) {
      setError(fieldErrors(err).duration ?? errorMessage(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <Modal
      title={`Impersonate ${props.record.id}`}
      onClose={props.onClose}
      footer={
        <>
          <Button onClick={props.onClose}>Close</Button>
          <Button kind="primary" busy={busy} onClick={() => void generate()}>
            Generate token
          </Button>
        </>
      }
    >
      <div class="stack">
        <p class="muted">
          A non-refreshable auth token for this record, to act as it through the API. Anyone holding
          it is this user until it expires.
        </p>
        <TextField
          label="Token duration in seconds (empty or 0: the collection's auth token duration)"
          type="number"
          min="0"
          value={duration}
          onInput={setDuration}
          error={error || undefined}
        />
        {token && (
          <div class="field">
            <label for="impersonate-token">Token</label>
            <textarea id="impersonate-token" class="mono" rows={4} readOnly value={token} />
            <div>
              <Button
                onClick={() =>
                  void navigator.clipboard.writeText(token).then(
                    () => toast('success', 'Token copied.'),
                    () =>
                      toast(
                        'error',
                        'The clipboard is not available: select the token and copy it.',
                      ),
                  )
                }
              >
                Copy token
              </Button>
            </div>
          </div>
        )}
      </div>
    </Modal>
  )
}
