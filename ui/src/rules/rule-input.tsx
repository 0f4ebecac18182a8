/**
 * The rule field of the collection editor and the filter bar of the records page.
 * `RuleInput`: three states — superusers only (`null`), anyone (`''`) or a filter — with the
 * expression editor (completion) and the server's syntax check as you type.
 * `FilterInput`: one line, filter mode (no `@request.*`), Enter applies it.
 */
import { useEffect, useId, useRef, useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { ExpressionEditor } from './editor'
import { useSyntaxCheck } from './check'

type RuleMode = 'superusers' | 'anyone' | 'filter'

function modeOf(value: string | null): RuleMode {
  return value === null ? 'superusers' : value === '' ? 'anyone' : 'filter'
}

/** A rule: superusers only (null), anyone (''), or a filter expression. */
export function RuleInput(props: {
  label: string
  value: string | null
  collection: CollectionModel | null
  onChange(v: string | null): void
}) {
  const id = useId()
  const [mode, setMode] = useState<RuleMode>(modeOf(props.value))
  const [text, setText] = useState(props.value ?? '')
  // Values this input sent: one of them coming back is an echo (maybe a stale one), not a change.
  const sent = useRef(new Set<string | null>())
  const send = (v: string | null) => {
    if (sent.current.size > 500) sent.current.clear()
    sent.current.add(v)
    props.onChange(v)
  }
  // A value set from outside (another collection loaded) resets the state; an empty filter
  // being typed stays a filter.
  useEffect(() => {
    if (sent.current.has(props.value)) return
    sent.current.clear()
    if (props.value === null) setMode('superusers')
    else if (props.value !== '') {
      setMode('filter')
      setText(props.value)
    } else if (mode !== 'filter') setMode('anyone')
  }, [props.value])
  const check = useSyntaxCheck(text, props.collection, 'rule', mode === 'filter')

  const choose = (next: RuleMode) => {
    setMode(next)
    send(next === 'superusers' ? null : next === 'anyone' ? '' : text)
  }
  const modes: [RuleMode, string][] = [
    ['superusers', 'Superusers only'],
    ['anyone', 'Anyone'],
    ['filter', 'Filter'],
  ]
  const statusId = `${id}-status`
  return (
    <fieldset class="rule-input">
      <legend>{props.label}</legend>
      <div class="rule-modes">
        {modes.map(([m, title]) => (
          <label key={m}>
            <input
              type="radio"
              name={`${id}-mode`}
              value={m}
              checked={mode === m}
              onChange={() => choose(m)}
            />
            {title}
          </label>
        ))}
      </div>
      {mode === 'superusers' && (
        <div class="rule-status muted">Only superusers can perform this action.</div>
      )}
      {mode === 'anyone' && (
        <div class="rule-status muted">Anyone can perform this action, guests included.</div>
      )}
      {mode === 'filter' && (
        <>
          <ExpressionEditor
            value={text}
            label={`${props.label} filter`}
            collection={props.collection}
            mode="rule"
            describedBy={statusId}
            invalid={check.error !== null}
            placeholder="e.g. owner = @request.auth.id"
            onChange={(v) => {
              setText(v)
              send(v)
            }}
          />
          <RuleStatus id={statusId} text={text} check={check} />
        </>
      )}
    </fieldset>
  )
}

function RuleStatus(props: { id: string; text: string; check: ReturnType<typeof useSyntaxCheck> }) {
  const { error, checking, skipped } = props.check
  if (error) {
    return (
      <div class="rule-status bad" id={props.id} role="alert">
        {error}
      </div>
    )
  }
  const [cls, message] =
    props.text.trim() === ''
      ? ['muted', 'An empty filter lets anyone in.']
      : skipped
        ? ['muted', skipped]
        : checking
          ? ['muted', 'Checking…']
          : ['ok', 'The rule is valid.']
  return (
    <div class={`rule-status ${cls}`} id={props.id} aria-live="polite">
      {message}
    </div>
  )
}

/** A one-line filter (records page): completion without `@request.*`; Enter calls `onSubmit`. */
export function FilterInput(props: {
  value: string
  collection: CollectionModel | null
  onChange: (v: string) => void
  onSubmit?: (v: string) => void
  label?: string
  placeholder?: string
}) {
  const id = useId()
  const check = useSyntaxCheck(props.value, props.collection, 'filter')
  return (
    <div class="filter-input">
      <ExpressionEditor
        value={props.value}
        label={props.label ?? 'Filter'}
        collection={props.collection}
        mode="filter"
        singleLine
        describedBy={check.error ? `${id}-error` : undefined}
        invalid={check.error !== null}
        placeholder={props.placeholder ?? 'Filter, e.g. title ~ "hello" && created > @todayStart'}
        onChange={props.onChange}
        {...(props.onSubmit ? { onSubmit: props.onSubmit } : {})}
      />
      {check.error && (
        <div class="rule-status bad" id={`${id}-error`} role="alert">
          {check.error}
        </div>
      )}
    </div>
  )
}
