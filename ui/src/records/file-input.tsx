/**
 * A file field's input: the files kept (thumbnail, name, open in a new tab, remove / restore),
 * the new files chosen or dropped (previews, remove), and max-select enforced. Saved as
 * multipart through the SDK: new files as `field+`, removals as `field-: [names]`.
 */
import type { CollectionField } from 'pocketbase'
import { useEffect, useId, useState } from 'preact/hooks'
import { fileURL, isImage } from './cells'

/** What the editor holds for a file field. */
export interface FileState {
  /** The names the record has now. */
  existing: string[]
  /** Names marked for removal on save. */
  removed: string[]
  /** New files to upload on save. */
  added: File[]
}

/** A preview of a new file (an object URL for images, revoked when gone). */
function NewFile(props: { file: File; onRemove: () => void; disabled: boolean }) {
  const [url, setUrl] = useState('')
  useEffect(() => {
    if (!props.file.type.startsWith('image/')) return
    const u = URL.createObjectURL(props.file)
    setUrl(u)
    return () => URL.revokeObjectURL(u)
  }, [props.file])
  return (
    <li class="file-item file-new">
      {url ? (
        <img class="thumb" src={url} alt="" />
      ) : (
        <span class="thumb thumb-doc" aria-hidden="true">
          📄
        </span>
      )}
      <span class="file-name">{props.file.name}</span>
      <span class="badge">new</span>
      <button
        type="button"
        class="btn btn-link"
        onClick={props.onRemove}
        disabled={props.disabled}
        aria-label={`Remove new file ${props.file.name}`}
      >
        Remove
      </button>
    </li>
  )
}

export function FileInput(props: {
  field: CollectionField
  state: FileState
  onChange: (state: FileState) => void
  record: { id: string; collectionId: string; collectionName: string } | null
  fileToken: string
  error?: string | undefined
  readOnly: boolean
}) {
  const id = useId()
  const { field: f, state } = props
  const max = Math.max(1, Number(f.maxSelect ?? 1))
  const kept = state.existing.filter((n) => !state.removed.includes(n))
  const room = max - kept.length - state.added.length
  const [dragging, setDragging] = useState(false)
  const add = (list: FileList | null) => {
    if (!list?.length) return
    const files = [...list]
    if (max === 1) {
      // A single file field: the new file replaces the old one.
      props.onChange({ ...state, removed: [...state.existing], added: files.slice(0, 1) })
      return
    }
    props.onChange({ ...state, added: [...state.added, ...files.slice(0, Math.max(0, room))] })
  }
  const token = props.fileToken
  return (
    <fieldset class={`field file-field${props.error ? ' has-error' : ''}`}>
      <legend>
        {f.name}
        {f.required ? ' *' : ''} {max > 1 && <span class="muted">(up to {max})</span>}
      </legend>
      <ul class="file-list">
        {state.existing.map((n) => {
          const gone = state.removed.includes(n)
          const r = props.record
          return (
            <li key={n} class={`file-item${gone ? ' file-removed' : ''}`}>
              {r && isImage(n) ? (
                <img class="thumb" alt="" src={fileURL(r, n, { thumb: '100x100', token })} />
              ) : (
                <span class="thumb thumb-doc" aria-hidden="true">
                  📄
                </span>
              )}
              {r ? (
                <a
                  class="file-name"
                  href={fileURL(r, n, { token })}
                  target="_blank"
                  rel="noreferrer"
                >
                  {n}
                </a>
              ) : (
                <span class="file-name">{n}</span>
              )}
              {!props.readOnly && (
                <button
                  type="button"
                  class="btn btn-link"
                  aria-label={`${gone ? 'Restore' : 'Remove'} file ${n}`}
                  onClick={() =>
                    props.onChange({
                      ...state,
                      removed: gone ? state.removed.filter((x) => x !== n) : [...state.removed, n],
                    })
                  }
                >
                  {gone ? 'Restore' : 'Remove'}
                </button>
              )}
            </li>
          )
        })}
        {state.added.map((file, i) => (
          <NewFile
            key={`${file.name}-${i}`}
            file={file}
            disabled={props.readOnly}
            onRemove={() =>
              props.onChange({ ...state, added: state.added.filter((_, j) => j !== i) })
            }
          />
        ))}
      </ul>
      {!props.readOnly && (
        <div
          class={`dropzone${dragging ? ' dragging' : ''}`}
          onDragOver={(e) => {
            e.preventDefault()
            setDragging(true)
          }}
          onDragLeave={() => setDragging(false)}
          onDrop={(e) => {
            e.preventDefault()
            setDragging(false)
            add(e.dataTransfer?.files ?? null)
          }}
        >
          {room > 0 || max === 1 ? (
            <>
              <input
                id={id}
                class="sr-only file-picker"
                type="file"
                multiple={max > 1}
                onChange={(e) => {
                  add(e.currentTarget.files)
                  e.currentTarget.value = ''
                }}
              />
              <label for={id} class="btn btn-secondary">
                Upload or drop new file{max > 1 ? 's' : ''} <span class="sr-only">to {f.name}</span>
              </label>
            </>
          ) : (
            <span class="muted">Max allowed files reached.</span>
          )}
        </div>
      )}
      {props.error && <div class="error-text">{props.error}</div>}
    </fieldset>
  )
}

/**
 * The request body parts of a file field: new files as `name+` (a single-file field's new file
 * as `name`, replacing the old one), removals as `name-: [names]`.
 */
export function fileBody(
  field: CollectionField,
  state: FileState,
  body: Record<string, unknown>,
): void {
  const single = Number(field.maxSelect ?? 1) <= 1
  if (single && state.added.length) {
    body[field.name] = state.added[0]
    return
  }
  if (state.added.length) body[`${field.name}+`] = state.added
  if (state.removed.length) body[`${field.name}-`] = state.removed
}
