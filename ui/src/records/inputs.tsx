/**
 * The record editor's input for each field type (text, number, bool, email, url, date, autodate,
 * select, json, geoPoint; editor, relation and file have their own modules), each labelled and
 * showing the API's error for its field under it.
 */
import type { CollectionField, CollectionModel } from 'pocketbase'
import { useId } from 'preact/hooks'
import { Checkbox, SelectField, TextArea, TextField } from '../components/ui'
import { FileInput, type FileState } from './file-input'
import { fromInputDate, toInputDate } from './query'
import { RelationInput } from './relation-input'
import { RichText } from './rich-text'

/** The value of a json field while edited: its text, and whether it parses. */
export function jsonState(text: string): { ok: boolean; value: unknown } {
  if (text.trim() === '') return { ok: true, value: null }
  try {
    return { ok: true, value: JSON.parse(text) as unknown }
  } catch {
    return { ok: false, value: undefined }
  }
}

const label = (f: CollectionField) => `${f.name}${f.required ? ' *' : ''}`

/** One field's input. `value` is the edited value (json: its text; number: its text). */
export function FieldInput(props: {
  field: CollectionField
  collection: CollectionModel
  value: unknown
  onChange: (value: unknown) => void
  error?: string | undefined
  files?: FileState
  onFiles?: (state: FileState) => void
  record?: { id: string; collectionId: string; collectionName: string } | null
  fileToken?: string
  readOnly?: boolean
}) {
  const { field: f, value, onChange, error } = props
  const text = typeof value === 'string' ? value : typeof value === 'number' ? String(value) : ''
  const ro = Boolean(props.readOnly)
  switch (f.type) {
    case 'bool':
      return (
        <div class={`field${error ? ' has-error' : ''}`}>
          <Checkbox label={f.name} checked={Boolean(value)} disabled={ro} onChange={onChange} />
          {error && <div class="error-text">{error}</div>}
        </div>
      )
    case 'number':
      return (
        <TextField
          label={label(f)}
          type="number"
          step="any"
          value={text}
          onInput={onChange}
          error={error}
          readOnly={ro}
        />
      )
    case 'email':
    case 'url':
      return (
        <TextField
          label={label(f)}
          type={f.type}
          value={text}
          onInput={onChange}
          error={error}
          readOnly={ro}
        />
      )
    case 'date':
      return (
        <TextField
          label={`${label(f)} (UTC)`}
          type="datetime-local"
          step="1"
          value={toInputDate(value)}
          onInput={(v) => onChange(fromInputDate(v))}
          error={error}
          readOnly={ro}
        />
      )
    case 'autodate':
      return (
        <TextField
          label={`${f.name} (UTC)`}
          value={text}
          onInput={() => undefined}
          readOnly
          hint="Set by the server."
        />
      )
    case 'select': {
      const values = (Array.isArray(f.values) ? f.values : []) as string[]
      if (Number(f.maxSelect ?? 1) <= 1)
        return (
          <SelectField
            label={label(f)}
            value={Array.isArray(value) ? String(value[0] ?? '') : text}
            options={[
              { value: '', label: '— none —' },
              ...values.map((v) => ({ value: v, label: v })),
            ]}
            onChange={onChange}
            error={error}
            disabled={ro}
          />
        )
      const chosen = new Set(Array.isArray(value) ? (value as string[]) : [])
      return (
        <fieldset class={`field choice-group${error ? ' has-error' : ''}`}>
          <legend>
            {label(f)} <span class="muted">(up to {String(f.maxSelect)})</span>
          </legend>
          <div class="row">
            {values.map((v) => (
              <Checkbox
                key={v}
                label={v}
                checked={chosen.has(v)}
                disabled={ro}
                onChange={(on) =>
                  onChange(on ? [...chosen, v] : [...chosen].filter((x) => x !== v))
                }
              />
            ))}
          </div>
          {error && <div class="error-text">{error}</div>}
        </fieldset>
      )
    }
    case 'json':
      return <JsonInput field={f} text={text} onChange={onChange} error={error} />
    case 'geoPoint':
      return <GeoInput field={f} value={value} onChange={onChange} error={error} readOnly={ro} />
    case 'editor':
      return (
        <RichText label={label(f)} value={text} onChange={onChange} error={error} readOnly={ro} />
      )
    case 'relation':
      return (
        <RelationInput field={f} value={value} onChange={onChange} error={error} readOnly={ro} />
      )
    case 'file':
      return props.files && props.onFiles ? (
        <FileInput
          field={f}
          state={props.files}
          onChange={props.onFiles}
          record={props.record ?? null}
          fileToken={props.fileToken ?? ''}
          error={error}
          readOnly={ro}
        />
      ) : null
    default:
      // An auto-growing text area (one line for short values); read-only views get an input.
      return ro ? (
        <TextField label={label(f)} value={text} onInput={onChange} error={error} readOnly />
      ) : (
        <TextArea
          label={label(f)}
          value={text}
          onInput={onChange}
          error={error}
          rows={Math.min(8, Math.max(1, Math.ceil(text.length / 70), text.split('\n').length))}
        />
      )
  }
}

function JsonInput(props: {
  field: CollectionField
  text: string
  onChange: (v: string) => void
  error?: string | undefined
}) {
  const state = jsonState(props.text)
  return (
    <TextArea
      label={label(props.field)}
      mono
      rows={5}
      value={props.text}
      onInput={props.onChange}
      error={props.error || (state.ok ? undefined : 'Invalid JSON')}
      hint={
        <span class={`badge ${state.ok ? 'badge-on' : 'badge-bad'}`}>
          {state.ok ? 'Valid JSON' : 'Invalid JSON'}
        </span>
      }
    />
  )
}

function GeoInput(props: {
  field: CollectionField
  value: unknown
  onChange: (v: unknown) => void
  error?: string | undefined
  readOnly: boolean
}) {
  const id = useId()
  const p = (props.value ?? {}) as { lat?: number | string; lon?: number | string }
  const set = (k: 'lat' | 'lon', v: string) => props.onChange({ ...p, [k]: v })
  return (
    <fieldset
      class={`field geo${props.error ? ' has-error' : ''}`}
      aria-describedby={props.error ? `${id}-e` : undefined}
    >
      <legend>{label(props.field)}</legend>
      <div class="row">
        <TextField
          label="Latitude"
          type="number"
          step="any"
          min="-90"
          max="90"
          value={String(p.lat ?? 0)}
          onInput={(v) => set('lat', v)}
          readOnly={props.readOnly}
        />
        <TextField
          label="Longitude"
          type="number"
          step="any"
          min="-180"
          max="180"
          value={String(p.lon ?? 0)}
          onInput={(v) => set('lon', v)}
          readOnly={props.readOnly}
        />
      </div>
      {props.error && (
        <div class="error-text" id={`${id}-e`}>
          {props.error}
        </div>
      )}
    </fieldset>
  )
}
