/**
 * The panels some settings sections add under their inputs: the rate-limit rules table, "Send
 * test email", the S3 round-trip test and the test SMS. The tests use the SAVED settings, so
 * they are disabled while the section has unsaved changes.
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { collections } from '../../collections'
import { Button, Modal, SelectField, TextField } from '../../components/ui'
import { toast } from '../../toasts'
import { errorAt, flatErrors, getAt } from './model'
import type { FieldContext } from './fields'

interface Rule {
  label: string
  audience: string
  duration: number | string
  maxRequests: number | string
}

const AUDIENCES = [
  { value: '', label: 'All' },
  { value: '@guest', label: 'Guests only' },
  { value: '@auth', label: 'Signed-in only' },
]

/** The rules of `rateLimits.rules`: label, max requests, interval and audience, add and remove. */
export function RateLimitRules({ ctx }: { ctx: FieldContext }) {
  const raw = getAt(ctx.draft, 'rateLimits.rules')
  const rules = (Array.isArray(raw) ? raw : []) as Rule[]
  const put = (i: number, patch: Partial<Rule>) =>
    ctx.set(
      'rateLimits.rules',
      rules.map((r, j) => (j === i ? { ...r, ...patch } : r)),
    )
  const num = (v: string) => (v.trim() === '' || isNaN(Number(v)) ? v : Number(v))
  const err = (i: number, key: string) => errorAt(ctx.errors, `rateLimits.rules.${i}.${key}`)
  return (
    <section class="stack" aria-label="Rate limit rules">
      <h3 class="settings-subheading">Rules</h3>
      <div class="table-wrap">
        <table class="rules-table">
          <thead>
            <tr>
              <th>Label</th>
              <th>Max requests</th>
              <th>Interval (s)</th>
              <th>Audience</th>
              <th>
                <span class="sr-only">Remove</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r, i) => (
              <tr key={i}>
                <td>
                  <input
                    aria-label={`Rule ${i + 1} label`}
                    value={r.label}
                    onInput={(e) => put(i, { label: e.currentTarget.value })}
                  />
                  {err(i, 'label') && <div class="error-text">{err(i, 'label')}</div>}
                </td>
                <td>
                  <input
                    aria-label={`Rule ${i + 1} max requests`}
                    type="number"
                    value={String(r.maxRequests)}
                    onInput={(e) => put(i, { maxRequests: num(e.currentTarget.value) })}
                  />
                  {err(i, 'maxRequests') && <div class="error-text">{err(i, 'maxRequests')}</div>}
                </td>
                <td>
                  <input
                    aria-label={`Rule ${i + 1} interval in seconds`}
                    type="number"
                    value={String(r.duration)}
                    onInput={(e) => put(i, { duration: num(e.currentTarget.value) })}
                  />
                  {err(i, 'duration') && <div class="error-text">{err(i, 'duration')}</div>}
                </td>
                <td>
                  <select
                    aria-label={`Rule ${i + 1} audience`}
                    value={r.audience}
                    onChange={(e) => put(i, { audience: e.currentTarget.value })}
                  >
                    {AUDIENCES.map((a) => (
                      <option key={a.value} value={a.value}>
                        {a.label}
                      </option>
                    ))}
                  </select>
                </td>
                <td>
                  <Button
                    kind="link"
                    aria-label={`Remove rule ${i + 1}`}
                    onClick={() =>
                      ctx.set(
                        'rateLimits.rules',
                        rules.filter((_, j) => j !== i),
                      )
                    }
                  >
                    Remove
                  </Button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div>
        <Button
          onClick={() =>
            ctx.set('rateLimits.rules', [
              ...rules,
              { label: '', audience: '', duration: 10, maxRequests: 100 },
            ])
          }
        >
          Add rule
        </Button>
      </div>
    </section>
  )
}

const TEMPLATES = [
  { value: 'verification', label: 'Verification' },
  { value: 'password-reset', label: 'Password reset' },
  { value: 'email-change', label: 'Email change' },
  { value: 'otp', label: 'One-time password' },
  { value: 'login-alert', label: 'Login alert' },
]

/** "Send test email": template, auth collection and address → `POST /api/settings/test/email`. */
export function TestEmail({ dirty }: { dirty: boolean }) {
  const [open, setOpen] = useState(false)
  const [template, setTemplate] = useState('verification')
  const [collection, setCollection] = useState('_superusers')
  const [email, setEmail] = useState('')
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const auths = (collections.value ?? []).filter((c) => c.type === 'auth').map((c) => c.name)
  if (!auths.includes('_superusers')) auths.unshift('_superusers')
  async function send(e?: Event) {
    e?.preventDefault()
    setBusy(true)
    setErrors({})
    try {
      await pb.send('/api/settings/test/email', {
        method: 'POST',
        body: { template, collection, email },
      })
      toast('success', `Test email sent to ${email}.`)
      setOpen(false)
    } catch (err) {
      setErrors(flatErrors(err))
      toast('error', errorMessage(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="row">
      <Button onClick={() => setOpen(true)} disabled={dirty}>
        Send test email
      </Button>
      {dirty && <span class="muted">Save first: the test uses the saved settings.</span>}
      {open && (
        <Modal
          title="Send test email"
          onClose={() => setOpen(false)}
          footer={
            <>
              <Button onClick={() => setOpen(false)}>Cancel</Button>
              <Button kind="primary" busy={busy} onClick={() => void send()}>
                Send
              </Button>
            </>
          }
        >
          <form class="stack" onSubmit={(e) => void send(e)}>
            <SelectField
              label="Template"
              value={template}
              options={TEMPLATES}
              onChange={setTemplate}
              error={errors.template}
            />
            <SelectField
              label="Auth collection"
              value={collection}
              options={auths}
              onChange={setCollection}
              error={errors.collection}
            />
            <TextField
              label="To address"
              type="email"
              value={email}
              onInput={setEmail}
              error={errors.email}
              required
            />
          </form>
        </Modal>
      )}
    </div>
  )
}

/** A live test of saved S3 settings (`POST /api/settings/test/s3`), with its outcome. */
export function TestS3({
  filesystem,
  dirty,
}: {
  filesystem: 'storage' | 'backups'
  dirty: boolean
}) {
  const [busy, setBusy] = useState(false)
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null)
  async function run() {
    setBusy(true)
    setResult(null)
    try {
      await pb.send('/api/settings/test/s3', { method: 'POST', body: { filesystem } })
      setResult({ ok: true, text: 'S3 connected successfully.' })
    } catch (err) {
      setResult({ ok: false, text: errorMessage(err) })
    } finally {
      setBusy(false)
    }
  }
  return (
    <div class="row">
      <Button onClick={() => void run()} busy={busy} disabled={dirty}>
        Test S3 connection
      </Button>
      {dirty && <span class="muted">Save first: the test uses the saved settings.</span>}
      {result && (
        <span role="status" class={result.ok ? 'success-text' : 'error-text'}>
          {result.text}
        </span>
      )}
    </div>
  )
}

/** Sends a test text with the saved SMS settings (`POST /api/settings/test/sms`). */
export function TestSms({ dirty }: { dirty: boolean }) {
  const [to, setTo] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  async function send(e: Event) {
    e.preventDefault()
    setBusy(true)
    setError('')
    try {
      await pb.send('/api/settings/test/sms', { method: 'POST', body: { to } })
      toast('success', `Test SMS sent to ${to}.`)
    } catch (err) {
      setError(flatErrors(err).to ?? errorMessage(err))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="row test-sms" onSubmit={(e) => void send(e)}>
      <TextField label="Send a test SMS to" value={to} onInput={setTo} error={error} />
      <Button type="submit" busy={busy} disabled={dirty || !to}>
        Send test SMS
      </Button>
    </form>
  )
}

/** The IP the server sees for this browser and the proxy header it detected (`GET /api/health`). */
export function ClientIp({ ctx, kind }: { ctx: FieldContext; kind: 'proxy' | 'superuser-ips' }) {
  const [info, setInfo] = useState<{ realIP?: string; possibleProxyHeader?: string } | null>(null)
  useEffect(() => {
    pb.health.check().then(
      (res) => setInfo((res.data ?? {}) as { realIP?: string; possibleProxyHeader?: string }),
      () => setInfo({}),
    )
  }, [])
  if (!info) return null
  const headers = getAt(ctx.draft, 'trustedProxy.headers')
  const listed = Array.isArray(headers) ? headers.map((h) => String(h).toLowerCase()) : []
  const detected = info.possibleProxyHeader ?? ''
  if (kind === 'proxy')
    return (
      <div class="stack client-ip" role="note">
        <div>
          Your IP as the server resolves it: <code>{info.realIP || 'unknown'}</code>
        </div>
        <div>
          Proxy header seen on this request: <code>{detected || 'none'}</code>
        </div>
        {detected && !listed.includes(detected.toLowerCase()) && (
          <div class="error-text">
            This request came through a proxy ({detected}) that is not trusted: the IP above is the
            proxy&apos;s, so rate limits and logs see one client.
          </div>
        )}
      </div>
    )
  const ips = getAt(ctx.draft, 'superuserIPs')
  const list = Array.isArray(ips) ? ips.map(String) : []
  return (
    <div class="stack client-ip" role="note">
      <div>
        Your IP as the server resolves it: <code>{info.realIP || 'unknown'}</code>
      </div>
      {list.length > 0 &&
        info.realIP &&
        !list.some((ip) => ip.includes('/')) &&
        !list.includes(info.realIP) && (
          <div class="error-text">Your IP is not in the list: saving it locks you out.</div>
        )}
    </div>
  )
}
