/** Picks who the simulation runs as: a guest, or a user of an auth collection (searched). */
import { useEffect, useState } from 'preact/hooks'
import type { CollectionModel, RecordModel } from 'pocketbase'
import { errorMessage, pb } from '../../api'
import { Button, SelectField, TextField } from '../../components/ui'
import type { Subject } from './simulate'

const PAGE = 10

/** A user's label: e-mail, name or username when it has one, and the id. */
export function userLabel(r: RecordModel): string {
  const values: unknown[] = [r.email, r.name, r.username]
  const name = values.find((v): v is string => typeof v === 'string' && v !== '')
  return name ? `${name} (${r.id})` : r.id
}

export function SubjectPicker(props: {
  auths: CollectionModel[]
  subject: Subject
  onChange: (s: Subject) => void
}) {
  const [authName, setAuthName] = useState(
    props.subject.kind === 'user' ? props.subject.collection : '',
  )
  const [query, setQuery] = useState('')
  const [found, setFound] = useState<RecordModel[]>([])
  const [error, setError] = useState('')
  const auth = props.auths.find((c) => c.name === authName)

  useEffect(() => {
    if (!auth) return
    let live = true
    const timer = window.setTimeout(() => {
      const q = query.trim()
      const has = (n: string) => auth.fields.some((f) => f.name === n)
      const parts = ['id = {:q}', 'email ~ {:q}']
      if (has('name')) parts.push('name ~ {:q}')
      if (has('username')) parts.push('username ~ {:q}')
      pb.collection(auth.name)
        .getList(1, PAGE, {
          skipTotal: true,
          filter: q ? pb.filter(parts.join(' || '), { q }) : '',
          requestKey: null,
        })
        .then(
          (res) => live && (setFound(res.items), setError('')),
          (err: unknown) => live && setError(errorMessage(err)),
        )
    }, 250)
    return () => {
      live = false
      window.clearTimeout(timer)
    }
  }, [auth?.name, query])

  const chosen = props.subject.kind === 'user' ? props.subject.record : null
  return (
    <div class="subject-picker">
      <SelectField
        label="Run as"
        value={authName}
        options={[
          { value: '', label: 'Guest (not signed in)' },
          ...props.auths.map((c) => ({ value: c.name, label: `A user of ${c.name}` })),
        ]}
        onChange={(v) => {
          setAuthName(v)
          setFound([])
          setQuery('')
          if (v === '') props.onChange({ kind: 'guest' })
        }}
      />
      {auth && (
        <>
          <TextField
            label={`Find a user of ${auth.name}`}
            type="search"
            value={query}
            onInput={setQuery}
            placeholder="e-mail, name or id"
          />
          {error && <p class="error-text">{error}</p>}
          <ul class="user-results" aria-label="Users found">
            {found.map((r) => (
              <li key={r.id}>
                <Button
                  kind={chosen?.id === r.id ? 'primary' : 'secondary'}
                  aria-pressed={chosen?.id === r.id}
                  onClick={() => props.onChange({ kind: 'user', collection: auth.name, record: r })}
                >
                  {userLabel(r)}
                </Button>
              </li>
            ))}
            {found.length === 0 && !error && <li class="muted">No users found.</li>}
          </ul>
        </>
      )}
      <p class="subject-now" aria-live="polite">
        Running as:{' '}
        <strong>
          {props.subject.kind === 'guest'
            ? 'a guest'
            : `${userLabel(props.subject.record)} of ${props.subject.collection}`}
        </strong>
      </p>
    </div>
  )
}
