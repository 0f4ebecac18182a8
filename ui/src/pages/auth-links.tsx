/**
 * The public pages e-mails link to (`{APP_URL}/_/#/auth/…/{TOKEN}`): confirm a verification, a
 * password reset or an e-mail change, and the end of an OAuth2 sign-in. No superuser needed:
 * each calls the auth collection's own endpoint with the token. They show the app's name and
 * accent colour (`/_/branding`).
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../api'
import { Button, Card, TextField } from '../components/ui'
import { setAccent } from '../theme'

/** The collection a record token belongs to (its `collectionId` claim), or ''. */
export function tokenCollection(token: string): string {
  try {
    const part = token.split('.')[1] ?? ''
    const json = atob(part.replace(/-/g, '+').replace(/_/g, '/'))
    const id = (JSON.parse(json) as { collectionId?: unknown }).collectionId
    return typeof id === 'string' ? id : ''
  } catch {
    return ''
  }
}

/** The app's name (and accent colour applied) for the public pages. */
function useBranding(): string {
  const [name, setName] = useState('')
  useEffect(() => {
    fetch(new URL('branding', window.location.href.split('#')[0]))
      .then((r) => (r.ok ? r.json() : null))
      .then((b: { appName?: string; accentColor?: string } | null) => {
        if (!b) return
        setName(b.appName ?? '')
        setAccent(b.accentColor)
        if (b.appName) document.title = b.appName
      })
      .catch(() => undefined)
  }, [])
  return name
}

type Kind = 'confirm-verification' | 'confirm-password-reset' | 'confirm-email-change'

const titles: Record<Kind, string> = {
  'confirm-verification': 'Verify your e-mail address',
  'confirm-password-reset': 'Choose a new password',
  'confirm-email-change': 'Confirm your new e-mail address',
}

/** One of the three confirmation pages. */
export function ConfirmPage(props: { kind: Kind; token: string }) {
  const app = useBranding()
  const collection = tokenCollection(props.token)
  const [password, setPassword] = useState('')
  const [passwordConfirm, setPasswordConfirm] = useState('')
  const [busy, setBusy] = useState(false)
  const [done, setDone] = useState(false)
  const [error, setError] = useState(
    collection ? '' : 'This link is not valid: its token cannot be read.',
  )
  const [errors, setErrors] = useState<Record<string, string>>({})

  async function confirm(e?: Event) {
    e?.preventDefault()
    if (!collection) return
    setBusy(true)
    setError('')
    setErrors({})
    try {
      const c = pb.collection(collection)
      if (props.kind === 'confirm-verification') await c.confirmVerification(props.token)
      else if (props.kind === 'confirm-password-reset')
        await c.confirmPasswordReset(props.token, password, passwordConfirm)
      else await c.confirmEmailChange(props.token, password)
      setDone(true)
    } catch (err) {
      setErrors(fieldErrors(err))
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  // A verification needs no input: it is confirmed as the page opens.
  useEffect(() => {
    if (props.kind === 'confirm-verification') void confirm()
  }, [props.token])

  const doneText: Record<Kind, string> = {
    'confirm-verification': 'Your e-mail address is verified. You can close this page.',
    'confirm-password-reset': 'Your password is changed. You can sign in with it in the app now.',
    'confirm-email-change': 'Your e-mail address is changed. Sign in with the new one.',
  }

  return (
    <Card title={titles[props.kind]}>
      {app && <p class="app-name">{app}</p>}
      {done ? (
        <p class="success-text" role="status">
          {doneText[props.kind]}
        </p>
      ) : props.kind === 'confirm-verification' ? (
        <p>{busy ? 'Verifying…' : ''}</p>
      ) : (
        <form onSubmit={(e) => void confirm(e)} class="stack">
          <TextField
            label={props.kind === 'confirm-password-reset' ? 'New password' : 'Your password'}
            type="password"
            required
            autoComplete={
              props.kind === 'confirm-password-reset' ? 'new-password' : 'current-password'
            }
            value={password}
            onInput={setPassword}
            error={errors.password}
          />
          {props.kind === 'confirm-password-reset' && (
            <TextField
              label="New password confirm"
              type="password"
              required
              autoComplete="new-password"
              value={passwordConfirm}
              onInput={setPasswordConfirm}
              error={errors.passwordConfirm}
            />
          )}
          <Button kind="primary" type="submit" busy={busy} disabled={!collection}>
            Confirm
          </Button>
        </form>
      )}
      {error && !done && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
    </Card>
  )
}

/** Where `/api/oauth2-redirect` sends the browser at the end of an OAuth2 sign-in. */
export function OAuth2RedirectPage(props: { ok: boolean }) {
  const app = useBranding()
  useEffect(() => {
    // The SDK's popup flow closes its window itself; a full-page flow can be closed by hand.
    if (props.ok && window.opener) window.close()
  }, [])
  return (
    <Card title={props.ok ? 'Signed in' : 'Sign-in failed'}>
      {app && <p class="app-name">{app}</p>}
      <p role="status">
        {props.ok
          ? 'You are signed in. You can close this window and go back to the app.'
          : 'The sign-in could not be completed. Close this window and try again from the app.'}
      </p>
    </Card>
  )
}
