/**
 * The type-specific options of one field (option names as in `src/core/fields/`): text pattern
 * and lengths, number range, select values, file limits, relation target, and so on.
 */
import { useState } from 'preact/hooks'
import { Checkbox, SelectField, TextField } from '../components/ui'
import { collections } from '../collections'
import { str } from './model'

type Data = Record<string, unknown>

/** Props of one field's options. */
export interface OptionsProps {
  data: Data
  set: (patch: Data) => void
  /** Id of the collection being edited (a relation may point at it). */
  selfId: string | undefined
}

function num(v: unknown): string {
  return str(v)
}

function toNum(s: string, allowNull = false): number | null {
  if (s.trim() === '') return allowNull ? null : 0
  const n = Number(s)
  return Number.isFinite(n) ? n : allowNull ? null : 0
}

function list(v: unknown): string {
  return Array.isArray(v) ? v.join(', ') : ''
}

function toList(s: string): string[] {
  return s
    .split(',')
    .map((x) => x.trim())
    .filter((x) => x !== '')
}

function NumberOpt(props: OptionsProps & { k: string; label: string; nullable?: boolean }) {
  // The text as typed ("1.", "-"), parsed into the option on each input.
  const [text, setText] = useState(num(props.data[props.k]))
  return (
    <TextField
      label={props.label}
      type="number"
      value={text}
      onInput={(v) => {
        setText(v)
        props.set({ [props.k]: toNum(v, props.nullable) })
      }}
    />
  )
}

function TextOpt(props: OptionsProps & { k: string; label: string; placeholder?: string }) {
  const v = props.data[props.k]
  return (
    <TextField
      label={props.label}
      value={typeof v === 'string' ? v : ''}
      placeholder={props.placeholder}
      onInput={(s) => props.set({ [props.k]: s })}
    />
  )
}

function ListOpt(props: OptionsProps & { k: string; label: string; placeholder?: string }) {
  // The text as typed (a trailing comma stays), parsed into the list on each input.
  const [text, setText] = useState(list(props.data[props.k]))
  return (
    <TextField
      label={props.label}
      value={text}
      placeholder={props.placeholder}
      hint="Comma separated"
      onInput={(s) => {
        setText(s)
        props.set({ [props.k]: toList(s) })
      }}
    />
  )
}

/** A comma-separated list input that keeps the text as typed. */
export function ListInput(props: {
  label: string
  value: unknown
  hint?: string
  error?: string | undefined
  onChange: (list: string[]) => void
}) {
  const [text, setText] = useState(list(props.value))
  return (
    <TextField
      label={props.label}
      value={text}
      hint={props.hint ?? 'Comma separated'}
      error={props.error}
      onInput={(s) => {
        setText(s)
        props.onChange(toList(s))
      }}
    />
  )
}

function BoolOpt(props: OptionsProps & { k: string; label: string }) {
  return (
    <Checkbox
      label={props.label}
      checked={props.data[props.k] === true}
      onChange={(c) => props.set({ [props.k]: c })}
    />
  )
}

/** The type-specific options of a field. */
export function FieldOptions(props: OptionsProps) {
  const type = String(props.data.type)
  switch (type) {
    case 'text':
      return (
        <div class="ce-opts">
          <NumberOpt {...props} k="min" label="Min length" />
          <NumberOpt {...props} k="max" label="Max length" />
          <TextOpt {...props} k="pattern" label="Regex pattern" placeholder="^[a-z]+$" />
          <TextOpt
            {...props}
            k="autogeneratePattern"
            label="Autogenerate pattern"
            placeholder="[a-z0-9]{8}"
          />
        </div>
      )
    case 'editor':
      return (
        <div class="ce-opts">
          <NumberOpt {...props} k="maxSize" label="Max size (bytes)" />
          <BoolOpt {...props} k="convertURLs" label="Convert URLs to relative" />
        </div>
      )
    case 'number':
      return (
        <div class="ce-opts">
          <NumberOpt {...props} k="min" label="Min" nullable />
          <NumberOpt {...props} k="max" label="Max" nullable />
          <BoolOpt {...props} k="onlyInt" label="Integers only" />
        </div>
      )
    case 'email':
    case 'url':
      return (
        <div class="ce-opts">
          <ListOpt {...props} k="exceptDomains" label="Except domains" />
          <ListOpt {...props} k="onlyDomains" label="Only domains" />
        </div>
      )
    case 'date':
      return (
        <div class="ce-opts">
          <TextOpt {...props} k="min" label="Min date" placeholder="2024-01-01 00:00:00.000Z" />
          <TextOpt {...props} k="max" label="Max date" placeholder="2030-12-31 00:00:00.000Z" />
        </div>
      )
    case 'autodate':
      return (
        <div class="ce-opts">
          <BoolOpt {...props} k="onCreate" label="Set on create" />
          <BoolOpt {...props} k="onUpdate" label="Set on update" />
        </div>
      )
    case 'select':
      return (
        <div class="ce-opts">
          <ListOpt {...props} k="values" label="Choices" placeholder="draft, published" />
          <NumberOpt {...props} k="maxSelect" label="Max select (1 = single)" />
        </div>
      )
    case 'file':
      return (
        <div class="ce-opts">
          <NumberOpt {...props} k="maxSelect" label="Max files (1 = single)" />
          <NumberOpt {...props} k="maxSize" label="Max size per file (bytes)" />
          <ListOpt {...props} k="mimeTypes" label="Allowed MIME types" placeholder="image/png" />
          <ListOpt {...props} k="thumbs" label="Thumb sizes" placeholder="100x100, 0x300" />
          <BoolOpt {...props} k="protected" label="Protected (needs a file token)" />
        </div>
      )
    case 'relation': {
      const targets = (collections.value ?? []).map((c) => ({
        value: c.id,
        label: c.name,
      }))
      return (
        <div class="ce-opts">
          <SelectField
            label="Related collection"
            value={str(props.data.collectionId)}
            options={[{ value: '', label: '— choose —' }, ...targets]}
            onChange={(v) => props.set({ collectionId: v })}
          />
          <NumberOpt {...props} k="minSelect" label="Min select" />
          <NumberOpt {...props} k="maxSelect" label="Max select (1 = single)" />
          <BoolOpt {...props} k="cascadeDelete" label="Cascade delete" />
        </div>
      )
    }
    case 'json':
      return (
        <div class="ce-opts">
          <NumberOpt {...props} k="maxSize" label="Max size (bytes, 0 = 1 MiB)" />
        </div>
      )
    case 'password':
      return (
        <div class="ce-opts">
          <NumberOpt {...props} k="min" label="Min length" />
          <NumberOpt {...props} k="max" label="Max length" />
          <TextOpt {...props} k="pattern" label="Regex pattern" />
          <NumberOpt {...props} k="cost" label="Bcrypt cost" />
        </div>
      )
    default:
      return null
  }
}
