/**
 * The inputs of a settings section, one per `FieldSpec`: text, number, colour, switches, selects,
 * lists (one item per line), JSON, and write-only secrets, which show only "set" or "not set"
 * with Replace and Clear (a stored secret is never sent to the page).
 */
import { useEffect, useId, useState } from 'preact/hooks'
import { Button, Checkbox, SelectField, TextArea, TextField } from '../../components/ui'
import { errorAt, getAt, type SecretEdit, type SecretEdits } from './model'
import type { FieldSpec } from './sections'

/** What every input gets from the page. */
export interface FieldContext {
  draft: Record<string, unknown>
  set: (path: string, value: unknown) => void
  errors: Record<string, string>
  /** Which secrets hold a value (`GET /api/settings/secrets`). */
  secretsSet: Record<string, boolean>
  /** Pending secret changes (a path not in it keeps its stored value). */
  secretEdits: SecretEdits
  setSecret: (path: string, edit: SecretEdit | undefined) => void
  /** Marks a JSON input whose text does not parse (the section cannot be saved). */
  setInvalid: (path: string, bad: boolean) => void
}

function SecretField({ spec, ctx }: { spec: FieldSpec; ctx: FieldContext }) {
  const id = useId()
  const edit = ctx.secretEdits[spec.path]
  const isSet = ctx.secretsSet[spec.path] === true
  const error = errorAt(ctx.errors, spec.path)
  return (
    <div class={`field secret-field${error ? ' has-error' : ''}`}>
      <span class="secret-label" id={`${id}-label`}>
        {spec.label}{' '}
        <span class={`badge ${isSet ? 'badge-set' : 'badge-unset'}`} data-secret={spec.path}>
          {isSet ? 'set' : 'not set'}
        </span>
      </span>
      {edit === undefined ? (
        <div class="row">
          <Button onClick={() => ctx.setSecret(spec.path, { kind: 'replace', value: '' })}>
            {isSet ? 'Replace' : 'Set'}
          </Button>
          {isSet && (
            <Button kind="danger" onClick={() => ctx.setSecret(spec.path, { kind: 'clear' })}>
              Clear
            </Button>
          )}
        </div>
      ) : edit.kind === 'clear' ? (
        <div class="row">
          <span class="muted">Will be cleared when saved.</span>
          <Button kind="link" onClick={() => ctx.setSecret(spec.path, undefined)}>
            Keep it
          </Button>
        </div>
      ) : (
        <div class="row">
          <input
            class="grow"
            type="password"
            autoComplete="new-password"
            aria-label={`New ${spec.label}`}
            value={edit.value}
            onInput={(e) =>
              ctx.setSecret(spec.path, { kind: 'replace', value: e.currentTarget.value })
            }
          />
          <Button kind="link" onClick={() => ctx.setSecret(spec.path, undefined)}>
            Cancel
          </Button>
        </div>
      )}
      {spec.hint && <div class="hint">{spec.hint}</div>}
      {error && <div class="error-text">{error}</div>}
    </div>
  )
}

/** A list of strings edited one per line; the raw text stays while the list it means is unchanged. */
function ListField({ spec, ctx }: { spec: FieldSpec; ctx: FieldContext }) {
  const value = getAt(ctx.draft, spec.path)
  const list = Array.isArray(value) ? value.map(String) : []
  const [raw, setRaw] = useState(list.join('\n'))
  const parse = (text: string) =>
    text
      .split('\n')
      .map((s) => s.trim())
      .filter(Boolean)
  useEffect(() => {
    if (JSON.stringify(parse(raw)) !== JSON.stringify(list)) setRaw(list.join('\n'))
  }, [JSON.stringify(list)])
  return (
    <TextArea
      label={spec.label}
      rows={Math.max(3, list.length + 1)}
      mono
      value={raw}
      onInput={(text) => {
        setRaw(text)
        ctx.set(spec.path, parse(text))
      }}
      error={errorAt(ctx.errors, spec.path)}
      hint={spec.hint}
    />
  )
}

/** Any JSON value as text; text that does not parse is marked and blocks saving. */
function JsonField({ spec, ctx }: { spec: FieldSpec; ctx: FieldContext }) {
  const value = getAt(ctx.draft, spec.path)
  const [raw, setRaw] = useState(JSON.stringify(value ?? null, null, 2))
  const [bad, setBad] = useState(false)
  useEffect(() => {
    let same = false
    try {
      same = JSON.stringify(JSON.parse(raw)) === JSON.stringify(value)
    } catch {
      same = bad
    }
    if (!same) {
      setRaw(JSON.stringify(value ?? null, null, 2))
      setBad(false)
      ctx.setInvalid(spec.path, false)
    }
  }, [JSON.stringify(value)])
  return (
    <TextArea
      label={spec.label}
      rows={6}
      mono
      value={raw}
      onInput={(text) => {
        setRaw(text)
        try {
          ctx.set(spec.path, JSON.parse(text))
          setBad(false)
          ctx.setInvalid(spec.path, false)
        } catch {
          setBad(true)
          ctx.setInvalid(spec.path, true)
        }
      }}
      error={bad ? 'Not valid JSON.' : errorAt(ctx.errors, spec.path)}
      hint={spec.hint}
    />
  )
}

/** A scalar as input text (anything else: empty). */
const scalar = (v: unknown): string =>
  typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? String(v) : ''

/** The input of one field. */
export function SettingsField({ spec, ctx }: { spec: FieldSpec; ctx: FieldContext }) {
  const value = getAt(ctx.draft, spec.path)
  const error = errorAt(ctx.errors, spec.path)
  switch (spec.kind) {
    case 'heading':
      return (
        <h3 class="settings-subheading">
          {spec.label}
          {spec.hint && <span class="hint"> {spec.hint}</span>}
        </h3>
      )
    case 'bool':
      return (
        <div>
          <Checkbox
            label={spec.label}
            checked={value === true}
            onChange={(v) => ctx.set(spec.path, v)}
          />
          {error && <div class="error-text">{error}</div>}
        </div>
      )
    case 'select': {
      const options = spec.options.map((o) => ({ value: String(o.value), label: o.label }))
      if (!options.some((o) => o.value === scalar(value)))
        options.push({ value: scalar(value), label: scalar(value) })
      return (
        <SelectField
          label={spec.label}
          value={scalar(value)}
          options={options}
          onChange={(v) =>
            ctx.set(spec.path, spec.options.find((o) => String(o.value) === v)?.value ?? v)
          }
          error={error}
        />
      )
    }
    case 'secret':
      return <SecretField spec={spec} ctx={ctx} />
    case 'list':
      return <ListField spec={spec} ctx={ctx} />
    case 'json':
      return <JsonField spec={spec} ctx={ctx} />
    case 'number':
      return (
        <TextField
          label={spec.label}
          type="number"
          value={scalar(value)}
          onInput={(v) => ctx.set(spec.path, v.trim() === '' || isNaN(Number(v)) ? v : Number(v))}
          error={error}
          hint={spec.hint}
        />
      )
    case 'color':
      return (
        <div class="row color-row">
          <TextField
            label={spec.label}
            type="color"
            value={typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value) ? value : '#000000'}
            onInput={(v) => ctx.set(spec.path, v)}
            hint={spec.hint}
          />
          <TextField
            label={`${spec.label} (hex)`}
            value={typeof value === 'string' ? value : ''}
            onInput={(v) => ctx.set(spec.path, v)}
            error={error}
            placeholder="#1055c9"
          />
        </div>
      )
    default:
      return (
        <TextField
          label={spec.label}
          type={spec.kind}
          value={scalar(value)}
          onInput={(v) => ctx.set(spec.path, v)}
          error={error}
          hint={spec.hint}
        />
      )
  }
}
