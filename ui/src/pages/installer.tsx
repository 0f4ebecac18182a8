/**
 * First run (`#/pbinstall/{token}` or `/_/` while no superuser exists): creates the first
 * superuser through `POST /api/setup`. The one-time setup token is printed by `svcbase serve`
 * (the link it prints carries it); a browser on the server's own machine (loopback) needs none.
 */
import { useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../api'
import { Button, Card, TextField } from '../components/ui'
import { navigate } from '../router'

export default function Installer(props: { token?: string | undefined; onDone: () => void }) {
  const [email, setEmail] = useState('')
  const [password, setPassword] = useState('')
  const [passwordConfirm, setPasswordConfirm] = useState('')
  const [token, setToken] = useState(props.token ?? '')
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})

  async function submit(e: Event) {
    e.preventDefault()
    setBusy(true)
    setError('')
    setErrors({})
    try {
      const body: Record<string, string> = { email, password, passwordConfirm }
      if (token.trim()) body.token = token.trim()
      const res = await pb.send<{ token: string; record: never }>('/api/setup', {
        method: 'POST',
        body,
      })
      pb.authStore.save(res.token, res.record)
      props.onDone()
      navigate('collections')
    } catch (err) {
      setErrors(fieldErrors(err))
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <Card title="Create the first superuser">
      <p>
        This server has no superuser yet. The one you create here can sign in to this dashboard and
        manage everything. You can also run <code>svcbase superuser create EMAIL PASSWORD</code>.
      </p>
      <form onSubmit={(e) => void submit(e)} class="stack">
        <TextField
          label="Email"
          type="email"
          required
          autoComplete="username"
          value={email}
          onInput={setEmail}
          error={errors.email}
        />
        <TextField
          label="Password"
          type="password"
          required
          autoComplete="new-password"
          value={password}
          onInput={setPassword}
          error={errors.password}
        />
        <TextField
          label="Password confirm"
          type="password"
          required
          autoComplete="new-password"
          value={passwordConfirm}
          onInput={setPasswordConfirm}
          error={errors.passwordConfirm}
        />
        <TextField
          label="Setup token"
          value={token}
          onInput={setToken}
          error={errors.token}
          hint="Printed by svcbase serve. Not needed from a browser on the server's own machine."
        />
        {error && (
          <p class="error-text" role="alert">
            {error}
          </p>
        )}
        <Button kind="primary" type="submit" busy={busy}>
          Create superuser and sign in
        </Button>
      </form>
    </Card>
  )
}
