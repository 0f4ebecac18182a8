/**
 * The Fields tab: one row per field (name, type, required/hidden/presentable, its options),
 * add, remove (restorable until saved), move up/down, rename (the field keeps its id, so its
 * data is kept).
 */
import { useRef, useState } from 'preact/hooks'
import { Button, Checkbox, SelectField, TextField } from '../components/ui'
import { FieldOptions } from './field-options'
import { defaultOptions, str, fieldTypes, newKey, typeChanged, type FieldDraft } from './model'

/** Props of the fields list. */
export interface FieldsProps {
  fields: FieldDraft[]
  onChange: (fields: FieldDraft[]) => void
  selfId: string | undefined
  /** `data.fields.<i>` errors of the last save, by index of the sent list. */
  errors: Record<string, string>
}

function FieldRow(props: {
  f: FieldDraft
  index: number
  count: number
  update: (patch: Record<string, unknown>) => void
  move: (step: number) => void
  /** Drag and drop (mouse): the row dragged onto this one takes its place. */
  drag: { start: () => void; drop: () => void }
  setRemoved: (removed: boolean) => void
  selfId: string | undefined
  error: string | undefined
}) {
  const { f } = props
  const [open, setOpen] = useState(f.original === null)
  // Only the badge starts a drag, so text in the inputs stays selectable.
  const [dragReady, setDragReady] = useState(false)
  const system = f.data.system === true
  const name = str(f.data.name)
  const type = String(f.data.type)
  if (f.removed) {
    return (
      <li class="ce-field ce-removed" data-field-key={f.key}>
        <span>
          <s>{str(f.original?.name) || name}</s> <span class="muted">({type}) will be deleted</span>
        </span>
        <Button onClick={() => props.setRemoved(false)}>Restore {name}</Button>
      </li>
    )
  }
  const types: string[] = [...fieldTypes]
  if (!types.includes(type)) types.push(type)
  return (
    <li
      class={`ce-field${props.error ? ' has-error' : ''}`}
      data-field-key={f.key}
      draggable={dragReady}
      onDragStart={props.drag.start}
      onDragEnd={() => setDragReady(false)}
      onDragOver={(e) => e.preventDefault()}
      onDrop={(e) => {
        e.preventDefault()
        props.drag.drop()
      }}
    >
      <div class="ce-field-head">
        <span
          class="ce-type-badge ce-drag"
          title="Drag to reorder (or use the arrow buttons)"
          onMouseDown={() => setDragReady(true)}
          onMouseUp={() => setDragReady(false)}
        >
          {type}
        </span>
        <TextField
          label="Field name"
          value={name}
          disabled={system}
          onInput={(v) => props.update({ name: v })}
          error={props.error}
        />
        <SelectField
          label="Type"
          value={type}
          options={types}
          disabled={system || type === 'password'}
          onChange={(v) => props.update({ type: v, ...defaultOptions(v) })}
        />
        <div class="ce-field-actions">
          <Button
            aria-label={`Move ${name} up`}
            disabled={props.index === 0}
            onClick={() => props.move(-1)}
          >
            ↑
          </Button>
          <Button
            aria-label={`Move ${name} down`}
            disabled={props.index === props.count - 1}
            onClick={() => props.move(1)}
          >
            ↓
          </Button>
          <Button aria-expanded={open} onClick={() => setOpen(!open)}>
            {open ? 'Hide options' : 'Options'}
            <span class="sr-only"> of {name}</span>
          </Button>
          {!system && (
            <Button
              kind="danger"
              aria-label={`Remove ${name}`}
              onClick={() => props.setRemoved(true)}
            >
              Remove
            </Button>
          )}
        </div>
      </div>
      {typeChanged(f) && (
        <p class="ce-warn">
          Changing the type replaces the field: its current values are deleted on save.
        </p>
      )}
      {open && (
        <div class="ce-field-body">
          <div class="ce-flags">
            <Checkbox
              label="Nonempty (required)"
              checked={f.data.required === true}
              onChange={(c) => props.update({ required: c })}
            />
            <Checkbox
              label="Hidden"
              checked={f.data.hidden === true}
              onChange={(c) => props.update({ hidden: c })}
            />
            <Checkbox
              label="Presentable"
              checked={f.data.presentable === true}
              onChange={(c) => props.update({ presentable: c })}
            />
          </div>
          <FieldOptions key={type} data={f.data} set={props.update} selfId={props.selfId} />
        </div>
      )}
    </li>
  )
}

/** The fields of a base or auth collection. */
export function FieldsTab(props: FieldsProps) {
  const [newType, setNewType] = useState<string>('text')
  const set = (i: number, next: FieldDraft) =>
    props.onChange(props.fields.map((f, j) => (j === i ? next : f)))
  const move = (i: number, step: number) => {
    const j = i + step
    if (j < 0 || j >= props.fields.length) return
    const next = [...props.fields]
    ;[next[i], next[j]] = [next[j]!, next[i]!]
    props.onChange(next)
    // Keep the keyboard where the moved field went.
    const key = props.fields[i]!.key
    requestAnimationFrame(() => {
      const row = document.querySelector(`[data-field-key="${key}"]`)
      row
        ?.querySelector<HTMLButtonElement>(
          `button[aria-label^="Move"][aria-label$="${step < 0 ? 'up' : 'down'}"]:not(:disabled)`,
        )
        ?.focus()
    })
  }
  const dragged = useRef<string | null>(null)
  const dropOn = (to: number) => {
    const from = props.fields.findIndex((f) => f.key === dragged.current)
    dragged.current = null
    if (from < 0 || from === to) return
    const next = [...props.fields]
    const [item] = next.splice(from, 1)
    next.splice(to, 0, item!)
    props.onChange(next)
  }
  const add = () => {
    const taken = new Set(props.fields.map((f) => String(f.data.name)))
    let n = 1
    while (taken.has(`field${n}`)) n++
    props.onChange([
      ...props.fields,
      {
        key: newKey(),
        original: null,
        removed: false,
        data: {
          name: `field${n}`,
          type: newType,
          required: false,
          hidden: false,
          presentable: false,
          system: false,
          ...defaultOptions(newType),
        },
      },
    ])
  }
  // The index in the sent list (removed fields are not sent) of each shown field.
  let sent = -1
  return (
    <div class="ce-fields">
      <ul class="ce-field-list" aria-label="Fields">
        {props.fields.map((f, i) => {
          if (!f.removed) sent++
          return (
            <FieldRow
              key={f.key}
              f={f}
              index={i}
              count={props.fields.length}
              selfId={props.selfId}
              error={f.removed ? undefined : props.errors[String(sent)]}
              update={(patch) => set(i, { ...f, data: { ...f.data, ...patch } })}
              move={(step) => move(i, step)}
              drag={{
                start: () => (dragged.current = f.key),
                drop: () => dropOn(i),
              }}
              setRemoved={(removed) => {
                if (removed && f.original === null) {
                  props.onChange(props.fields.filter((_, j) => j !== i))
                } else set(i, { ...f, removed })
              }}
            />
          )
        })}
      </ul>
      <div class="ce-add-field">
        <SelectField
          label="New field type"
          value={newType}
          options={fieldTypes}
          onChange={setNewType}
        />
        <Button kind="primary" onClick={add}>
          + New field
        </Button>
      </div>
    </div>
  )
}
