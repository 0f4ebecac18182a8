/**
 * The API rules tab: the five record rules (and the auth and manage rules of auth collections),
 * each "superusers only" (null), "anyone" ("") or a filter expression.
 */
import { useId } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { TextArea } from '../components/ui'
import { authRuleLabels, ruleLabels } from './model'

type Mode = 'null' | 'anyone' | 'filter'

function modeOf(v: unknown): Mode {
  if (v === null || v === undefined) return 'null'
  return v === '' ? 'anyone' : 'filter'
}

/** One rule: a mode choice and, for a filter, its expression. */
export function RuleField(props: {
  label: string
  value: string | null
  collection: CollectionModel | null
  onChange: (v: string | null) => void
}) {
  const id = useId()
  const mode = modeOf(props.value)
  const choose = (m: Mode) =>
    props.onChange(m === 'null' ? null : m === 'anyone' ? '' : props.value || 'id != ""')
  return (
    <fieldset class="ce-rule">
      <legend>{props.label}</legend>
      <div class="ce-rule-modes" role="radiogroup" aria-label={`${props.label} access`}>
        {(
          [
            ['null', 'Superusers only'],
            ['anyone', 'Anyone'],
            ['filter', 'Filter'],
          ] as const
        ).map(([m, text]) => (
          <label key={m} class="ce-radio">
            <input type="radio" name={id} checked={mode === m} onChange={() => choose(m)} />
            {text}
          </label>
        ))}
      </div>
      {mode === 'filter' && (
        <TextArea
          label={`${props.label} filter`}
          mono
          rows={2}
          value={props.value ?? ''}
          placeholder={'@request.auth.id != "" && owner = @request.auth.id'}
          onInput={(v) => props.onChange(v)}
        />
      )}
    </fieldset>
  )
}

/** The rules of a collection draft. */
export function RulesTab(props: {
  base: Record<string, unknown>
  collection: CollectionModel | null
  set: (patch: Record<string, unknown>) => void
  errors: Record<string, string>
}) {
  const labels = props.base.type === 'auth' ? [...ruleLabels, ...authRuleLabels] : ruleLabels
  const shown = props.base.type === 'view' ? labels.slice(0, 2) : labels
  return (
    <div class="ce-rules">
      {shown.map(([key, label]) => (
        <div key={key}>
          <RuleField
            label={label}
            value={(props.base[key] as string | null | undefined) ?? null}
            collection={props.collection}
            onChange={(v) => props.set({ [key]: v })}
          />
          {props.errors[key] && <div class="error-text">{props.errors[key]}</div>}
        </div>
      ))}
    </div>
  )
}
