/**
 * Sign-in of a superuser (`#/login`): e-mail and password, then, when the `_superusers`
 * collection asks for MFA, a one-time password sent by e-mail as the second factor.
 */
import { useState } from 'preact/hooks'
import { errorMessage, pb } from '../api'
import { Button, Card, TextField } from '../components/ui'

export default function Login() {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [mfaId, setMfaId] = useState('')
  const [otpId, setOtpId] = useState('')
  const [code, setCode] = useState('')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')

  const users = pb.collection('_superusers')

  async function signIn(e: Event) {
    e.preventDefault()
    setBusy(true)
    setError('')
    try {
      if (otpId) await users.authWithOTP(otpId, code, { mfaId })
      else await users.authWithPassword(email, password)
    } catch (err) {
      const id = (err as { response?: { mfaId?: unknown } }).response?.mfaId
      if (typeof id === 'string' && id) setMfaId(id)
      else setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  async function sendOtp() {
    setBusy(true)
    setError('')
    try {
      setOtpId((await users.requestOTP(email)).otpId)
    } catch (err) {
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Card title="Superuser sign-in">
      <form onSubmit={(e) => void signIn(e)} class="stack">
        {!mfaId && (
          <>
            <TextField
              label="Email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onInput={setEmail}
            />
            <TextField
              label="Password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onInput={setPassword}
            />
          </>
        )}
        {mfaId && !otpId && (
          <p>
            A second factor is needed: a one-time password sent to <b>{email}</b>.{' '}
            <Button kind="primary" busy={busy} onClick={() => void sendOtp()}>
              Send one-time password
            </Button>
          </p>
        )}
        {otpId && (
          <TextField
            label="One-time password"
            autoComplete="one-time-code"
            required
            value={code}
            onInput={setCode}
          />
        )}
        {error && (
          <p class="error-text" role="alert">
            {error}
          </p>
        )}
        {(!mfaId || otpId) && (
          <Button kind="primary" type="submit" busy={busy}>
            Sign in
          </Button>
        )}
      </form>
    </Card>
  )
}
