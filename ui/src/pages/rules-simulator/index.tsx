/**
 * `#/rules-simulator?collection=NAME`: pick a collection, who to run as (a guest or a user of an
 * auth collection) and an action (list or view one record); see what that requester gets and
 * the rule that decides it. Requests run through a separate SDK client (an impersonation token
 * or none), so the superuser's session is never replaced.
 */
import { useState } from 'preact/hooks'
import { errorMessage } from '../../api'
import { collections, findCollection } from '../../collections'
import { Button, SelectField, TextField } from '../../components/ui'
import type { PageProps } from '../../pages'
import { navigate } from '../../router'
import { RuleCell } from '../../rules/rule-cell'
import { simulate, type Action, type Outcome, type Subject } from './simulate'
import { SubjectPicker, userLabel } from './subject'
import './simulator.css'

export default function RulesSimulatorPage(props: PageProps) {
  const all = collections.value ?? []
  const name = props.route.query.get('collection') ?? ''
  const c = name ? findCollection(name) : undefined
  const [subject, setSubject] = useState<Subject>({ kind: 'guest' })
  const [action, setAction] = useState<Action>('list')
  const [recordId, setRecordId] = useState('')
  const [busy, setBusy] = useState(false)
  const [outcome, setOutcome] = useState<Outcome | null>(null)
  const [error, setError] = useState('')
  const targets = all.filter((x) => x.name !== '_superusers')
  const auths = all.filter((x) => x.type === 'auth' && x.name !== '_superusers')

  const run = async () => {
    if (!c) return
    setBusy(true)
    setError('')
    try {
      setOutcome(await simulate(c, subject, action, recordId.trim()))
    } catch (err) {
      setOutcome(null)
      setError(`The simulation failed: ${errorMessage(err)}`)
    } finally {
      setBusy(false)
    }
  }

  return (
    <div class="simulator-page">
      <div class="page-header">
        <h1>Rules simulator</h1>
      </div>
      <form
        class="simulator-form"
        onSubmit={(e) => {
          e.preventDefault()
          void run()
        }}
      >
        <SelectField
          label="Collection"
          value={c?.name ?? ''}
          options={[
            { value: '', label: 'Choose a collection…' },
            ...targets.map((x) => ({ value: x.name, label: `${x.name} (${x.type})` })),
          ]}
          onChange={(v) => {
            setOutcome(null)
            navigate('rules-simulator', { collection: v || undefined }, true)
          }}
        />
        <SubjectPicker
          auths={auths}
          subject={subject}
          onChange={(s) => {
            setSubject(s)
            setOutcome(null)
          }}
        />
        <SelectField
          label="Action"
          value={action}
          options={[
            { value: 'list', label: 'List (first page)' },
            { value: 'view', label: 'View one record' },
          ]}
          onChange={(v) => {
            setAction(v as Action)
            setOutcome(null)
          }}
        />
        {action === 'view' && (
          <TextField label="Record id" value={recordId} onInput={setRecordId} required />
        )}
        <div>
          <Button
            kind="primary"
            type="submit"
            busy={busy}
            disabled={!c || (action === 'view' && recordId.trim() === '')}
          >
            Run
          </Button>
        </div>
      </form>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      {c && outcome && <Result outcome={outcome} subject={subject} fields={c.fields} />}
    </div>
  )
}

function Result(props: {
  outcome: Outcome
  subject: Subject
  fields: { name: string; type: string; hidden?: boolean }[]
}) {
  const o = props.outcome
  const cols = props.fields
    .filter((f) => f.name !== 'id' && !f.hidden && !['password', 'file'].includes(f.type))
    .slice(0, 4)
    .map((f) => f.name)
  const who = props.subject.kind === 'guest' ? 'a guest' : userLabel(props.subject.record)
  return (
    <section class="simulator-result" aria-labelledby="sim-result" aria-live="polite">
      <h2 id="sim-result">
        Result for {who}: <span class={o.status === 200 ? 'ok' : 'bad'}>{o.status}</span>
      </h2>
      <p>
        <code>{o.request}</code>
      </p>
      <p>
        Deciding rule ({o.action === 'list' ? 'List/Search' : 'View'}): <RuleCell rule={o.rule} />
      </p>
      <p class="explanation">{o.explanation}</p>
      {o.message && o.status !== 200 && <p class="muted">Server message: {o.message}</p>}
      {o.status === 200 && o.items.length === 0 && <p class="muted">No records.</p>}
      {o.items.length > 0 && (
        <div class="table-wrap">
          <table class="sim-records">
            <caption class="sr-only">Records {who} gets</caption>
            <thead>
              <tr>
                <th scope="col">id</th>
                {cols.map((n) => (
                  <th scope="col" key={n}>
                    {n}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {o.items.map((r) => (
                <tr key={r.id}>
                  <td class="mono">{r.id}</td>
                  {cols.map((n) => (
                    <td key={n}>{show(r[n])}</td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {o.more && <p class="muted">Only the first records are shown; there are more.</p>}
    </section>
  )
}

function show(v: unknown): string {
  if (v === null || v === undefined) return ''
  if (typeof v === 'string') return v
  return JSON.stringify(v)
}
