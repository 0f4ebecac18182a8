/**
 * The dashboard's small building blocks: labelled inputs (every control has a label), buttons,
 * a modal dialog (Esc closes it, focus moves into it and back), confirmations and toasts.
 */
import type { ButtonHTMLAttributes, ComponentChildren } from 'preact'
import { useId, useLayoutEffect, useRef } from 'preact/hooks'
import { dismiss, toasts } from '../toasts'

interface InputProps {
  label: string
  value: string
  onInput: (value: string) => void
  error?: string | undefined
  hint?: ComponentChildren
  type?: 'text' | 'email' | 'password' | 'url' | 'number' | 'search' | 'datetime-local' | 'color'
  required?: boolean
  disabled?: boolean
  readOnly?: boolean
  placeholder?: string
  autoComplete?: string
  name?: string
  min?: string
  max?: string
  step?: string
}

/** A labelled text-like input with its error under it. */
export function TextField({
  label,
  value,
  onInput,
  error,
  hint,
  type = 'text',
  ...rest
}: InputProps) {
  const id = useId()
  return (
    <div class={`field${error ? ' has-error' : ''}`}>
      <label for={id}>{label}</label>
      <input
        id={id}
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-type-assertion -- Preact's input types narrow `type` per role
        type={type as 'text'}
        value={value}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        {...rest}
      />
      {hint && <div class="hint">{hint}</div>}
      {error && (
        <div class="error-text" id={`${id}-error`}>
          {error}
        </div>
      )}
    </div>
  )
}

/** A labelled checkbox. */
export function Checkbox(props: {
  label: string
  checked: boolean
  onChange: (checked: boolean) => void
  disabled?: boolean
}) {
  const id = useId()
  return (
    <div class="field checkbox">
      <input
        id={id}
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      <label for={id}>{props.label}</label>
    </div>
  )
}

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  kind?: 'primary' | 'secondary' | 'danger' | 'link'
  busy?: boolean
}

/** A button; `busy` disables it and says so. */
export function Button({ kind = 'secondary', busy, children, disabled, ...rest }: ButtonProps) {
  return (
    <button
      type="button"
      class={`btn btn-${kind}`}
      disabled={Boolean(disabled) || busy}
      aria-busy={busy ? true : undefined}
      {...rest}
    >
      {children}
    </button>
  )
}

/** A modal dialog: Esc or the close button calls `onClose`; focus goes into it and back. */
export function Modal(props: {
  title: string
  onClose: () => void
  children: ComponentChildren
  footer?: ComponentChildren
  wide?: boolean
}) {
  const ref = useRef<HTMLDivElement>(null)
  const titleId = useId()
  // NB: a layout effect, so Esc works from the moment the dialog is on screen.
  useLayoutEffect(() => {
    const before = document.activeElement as HTMLElement | null
    const first = ref.current?.querySelector<HTMLElement>(
      'input, select, textarea, button:not(.modal-close), [tabindex]:not([tabindex="-1"])',
    )
    ;(first ?? ref.current)?.focus()
    const onKey = (e: KeyboardEvent) => {
      // NB: an Escape an inner widget handled (a completion popup closing) is not the modal's.
      if (e.key !== 'Escape' || e.defaultPrevented) return
      // Only the top-most modal closes.
      const modals = document.querySelectorAll('.modal')
      if (modals[modals.length - 1] === ref.current) {
        e.preventDefault()
        props.onClose()
      }
    }
    document.addEventListener('keydown', onKey)
    return () => {
      document.removeEventListener('keydown', onKey)
      before?.focus()
    }
  }, [])
  return (
    <div class="modal-backdrop">
      <div
        class={`modal${props.wide ? ' modal-wide' : ''}`}
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        ref={ref}
        tabIndex={-1}
      >
        <header class="modal-header">
          <h2 id={titleId}>{props.title}</h2>
          <button type="button" class="modal-close" aria-label="Close" onClick={props.onClose}>
            ×
          </button>
        </header>
        <div class="modal-body">{props.children}</div>
        {props.footer && <footer class="modal-footer">{props.footer}</footer>}
      </div>
    </div>
  )
}

/** A yes/no question in a modal. */
export function Confirm(props: {
  title: string
  children: ComponentChildren
  confirmLabel: string
  danger?: boolean
  busy?: boolean
  onConfirm: () => void
  onCancel: () => void
}) {
  return (
    <Modal
      title={props.title}
      onClose={props.onCancel}
      footer={
        <>
          <Button onClick={props.onCancel}>Cancel</Button>
          <Button
            kind={props.danger ? 'danger' : 'primary'}
            busy={props.busy}
            onClick={props.onConfirm}
          >
            {props.confirmLabel}
          </Button>
        </>
      }
    >
      {props.children}
    </Modal>
  )
}

/** The toasts of the page, announced to screen readers. */
export function Toasts() {
  return (
    <div class="toasts" role="status" aria-live="polite">
      {toasts.value.map((t) => (
        <div key={t.id} class={`toast toast-${t.kind}`}>
          <span>{t.text}</span>
          <button type="button" aria-label="Dismiss" onClick={() => dismiss(t.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  )
}

/** A centred card for the pages outside the shell (sign-in, installer, e-mail links). */
export function Card(props: { title: string; children: ComponentChildren }) {
  return (
    <main class="card-page">
      <section class="card">
        <h1>{props.title}</h1>
        {props.children}
      </section>
    </main>
  )
}

/** A labelled select. */
export function SelectField(props: {
  label: string
  value: string
  options: readonly (string | { value: string; label: string })[]
  onChange: (value: string) => void
  disabled?: boolean
  error?: string | undefined
}) {
  const id = useId()
  return (
    <div class={`field${props.error ? ' has-error' : ''}`}>
      <label for={id}>{props.label}</label>
      <select
        id={id}
        value={props.value}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        {props.options.map((o) =>
          typeof o === 'string' ? (
            <option key={o} value={o}>
              {o}
            </option>
          ) : (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ),
        )}
      </select>
      {props.error && <div class="error-text">{props.error}</div>}
    </div>
  )
}

/** A labelled multi-line text input. */
export function TextArea(props: {
  label: string
  value: string
  onInput: (value: string) => void
  rows?: number
  error?: string | undefined
  hint?: ComponentChildren
  placeholder?: string
  mono?: boolean
}) {
  const id = useId()
  return (
    <div class={`field${props.error ? ' has-error' : ''}`}>
      <label for={id}>{props.label}</label>
      <textarea
        id={id}
        rows={props.rows ?? 4}
        class={props.mono ? 'mono' : undefined}
        value={props.value}
        placeholder={props.placeholder}
        onInput={(e) => props.onInput(e.currentTarget.value)}
      />
      {props.hint && <div class="hint">{props.hint}</div>}
      {props.error && <div class="error-text">{props.error}</div>}
    </div>
  )
}

/** Tabs: a tab list (arrow keys move between tabs) and the chosen panel. */
export function Tabs(props: {
  label: string
  tabs: readonly { id: string; title: string; marked?: boolean }[]
  active: string
  onChange: (id: string) => void
  children: ComponentChildren
}) {
  const base = useId()
  const move = (e: KeyboardEvent) => {
    const i = props.tabs.findIndex((t) => t.id === props.active)
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0
    if (!step) return
    e.preventDefault()
    const next = props.tabs[(i + step + props.tabs.length) % props.tabs.length]!
    props.onChange(next.id)
    document.getElementById(`${base}-${next.id}`)?.focus()
  }
  return (
    <div class="tabs">
      <div role="tablist" aria-label={props.label} class="tablist" onKeyDown={move}>
        {props.tabs.map((t) => (
          <button
            key={t.id}
            id={`${base}-${t.id}`}
            type="button"
            role="tab"
            aria-selected={t.id === props.active}
            tabIndex={t.id === props.active ? 0 : -1}
            onClick={() => props.onChange(t.id)}
          >
            {t.title}
            {t.marked && <span class="tab-mark" aria-label="has errors" />}
          </button>
        ))}
      </div>
      <div role="tabpanel" aria-labelledby={`${base}-${props.active}`} class="tabpanel">
        {props.children}
      </div>
    </div>
  )
}
