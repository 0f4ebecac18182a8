/**
 * The Options tab of an auth collection, in the JSON shape the server returns
 * (`GET /api/collections/users`): password auth and identity fields, OTP, MFA, OAuth2
 * providers (the client secret is write-only: a stored one shows as "set"), mail templates and
 * token durations.
 */
import { Button, Checkbox, TextArea, TextField } from '../components/ui'
import { ListInput } from './field-options'
import { str, type FieldDraft } from './model'

type Obj = Record<string, unknown>

function obj(v: unknown): Obj {
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {}
}

function numText(v: unknown): string {
  return typeof v === 'number' ? String(v) : ''
}

const templates: [string, string][] = [
  ['verificationTemplate', 'Verification'],
  ['resetPasswordTemplate', 'Password reset'],
  ['confirmEmailChangeTemplate', 'E-mail change'],
  ['otp.emailTemplate', 'One-time password'],
  ['authAlert.emailTemplate', 'Login alert'],
]

const tokens: [string, string][] = [
  ['authToken', 'Auth token'],
  ['verificationToken', 'Verification token'],
  ['passwordResetToken', 'Password reset token'],
  ['emailChangeToken', 'E-mail change token'],
  ['fileToken', 'Protected file token'],
]

/** The auth options editor. */
export function AuthOptionsTab(props: {
  base: Obj
  fields: FieldDraft[]
  set: (patch: Obj) => void
  errors: Record<string, string>
}) {
  const b = props.base
  /** Sets `key` (or `key.sub`) to a merge of its value and `patch`. */
  const patch = (path: string, p: Obj) => {
    const [key, sub] = path.split('.') as [string, string | undefined]
    if (!sub) return props.set({ [key]: { ...obj(b[key]), ...p } })
    const outer = obj(b[key])
    props.set({ [key]: { ...outer, [sub]: { ...obj(outer[sub]), ...p } } })
  }
  const get = (path: string): Obj => {
    const [key, sub] = path.split('.') as [string, string | undefined]
    return sub ? obj(obj(b[key])[sub]) : obj(b[key])
  }
  const pw = obj(b.passwordAuth)
  const otp = obj(b.otp)
  const mfa = obj(b.mfa)
  const oauth2 = obj(b.oauth2)
  const providers = Array.isArray(oauth2.providers) ? (oauth2.providers as Obj[]) : []
  const setProviders = (list: Obj[]) => patch('oauth2', { providers: list })
  const err = (k: string) => props.errors[k]
  return (
    <div class="ce-auth">
      <fieldset>
        <legend>Password authentication</legend>
        <Checkbox
          label="Enable password auth"
          checked={pw.enabled === true}
          onChange={(c) => patch('passwordAuth', { enabled: c })}
        />
        <ListInput
          label="Identity fields"
          value={pw.identityFields}
          hint="Comma separated field names (e.g. email, username); each needs a unique index."
          onChange={(identityFields) => patch('passwordAuth', { identityFields })}
          error={err('passwordAuth')}
        />
      </fieldset>
      <fieldset>
        <legend>One-time password (OTP)</legend>
        <Checkbox
          label="Enable OTP"
          checked={otp.enabled === true}
          onChange={(c) => patch('otp', { enabled: c })}
        />
        <TextField
          label="OTP duration (seconds)"
          type="number"
          value={numText(otp.duration)}
          onInput={(v) => patch('otp', { duration: Number(v) })}
        />
        <TextField
          label="OTP length"
          type="number"
          value={numText(otp.length)}
          onInput={(v) => patch('otp', { length: Number(v) })}
          error={err('otp')}
        />
      </fieldset>
      <fieldset>
        <legend>Multi-factor authentication (MFA)</legend>
        <Checkbox
          label="Enable MFA"
          checked={mfa.enabled === true}
          onChange={(c) => patch('mfa', { enabled: c })}
        />
        <TextField
          label="MFA duration (seconds)"
          type="number"
          value={numText(mfa.duration)}
          onInput={(v) => patch('mfa', { duration: Number(v) })}
        />
        <TextArea
          label="MFA rule (empty: always)"
          mono
          rows={2}
          value={typeof mfa.rule === 'string' ? mfa.rule : ''}
          onInput={(v) => patch('mfa', { rule: v })}
          error={err('mfa')}
        />
      </fieldset>
      <fieldset>
        <legend>OAuth2</legend>
        <Checkbox
          label="Enable OAuth2"
          checked={oauth2.enabled === true}
          onChange={(c) => patch('oauth2', { enabled: c })}
        />
        <ul class="ce-providers" aria-label="OAuth2 providers">
          {providers.map((p, i) => {
            const set = (q: Obj) =>
              setProviders(providers.map((x, j) => (j === i ? { ...x, ...q } : x)))
            const label = str(p.name) || `provider ${i + 1}`
            // A provider that came from the server has a stored secret (never returned).
            const stored = p.__stored === true
            return (
              <li key={i} class="ce-provider">
                <TextField
                  label={`Provider name (${label})`}
                  value={str(p.name)}
                  onInput={(v) => set({ name: v })}
                />
                <TextField
                  label={`Client ID (${label})`}
                  value={str(p.clientId)}
                  onInput={(v) => set({ clientId: v })}
                />
                <TextField
                  label={`Client secret (${label})`}
                  type="password"
                  autoComplete="new-password"
                  value={typeof p.clientSecret === 'string' ? p.clientSecret : ''}
                  placeholder={stored ? 'set (leave empty to keep)' : ''}
                  hint={stored ? 'A secret is set; it is never shown.' : undefined}
                  onInput={(v) => set({ clientSecret: v })}
                />
                <Button
                  kind="danger"
                  onClick={() => setProviders(providers.filter((_, j) => j !== i))}
                >
                  Remove {label}
                </Button>
              </li>
            )
          })}
        </ul>
        <Button
          onClick={() => setProviders([...providers, { name: '', clientId: '', clientSecret: '' }])}
        >
          + Add provider
        </Button>
        {err('oauth2') && <div class="error-text">{err('oauth2')}</div>}
      </fieldset>
      <fieldset>
        <legend>Mail templates</legend>
        {templates.map(([path, label]) => {
          const tpl = get(path)
          return (
            <details key={path} class="ce-template">
              <summary>{label}</summary>
              <TextField
                label={`${label} subject`}
                value={str(tpl.subject)}
                onInput={(v) => patch(path, { subject: v })}
              />
              <TextArea
                label={`${label} body`}
                mono
                rows={6}
                value={str(tpl.body)}
                onInput={(v) => patch(path, { body: v })}
              />
            </details>
          )
        })}
      </fieldset>
      <fieldset>
        <legend>Token durations (seconds)</legend>
        <div class="ce-opts">
          {tokens.map(([key, label]) => (
            <TextField
              key={key}
              label={label}
              type="number"
              value={numText(obj(b[key]).duration)}
              onInput={(v) => props.set({ [key]: { duration: Number(v) } })}
              error={err(key)}
            />
          ))}
        </div>
      </fieldset>
    </div>
  )
}
