/**
 * The record editor (a modal; `record=ID` in the URL, `record=new` to create): the right input
 * per field type, password and confirmation and the account actions for auth records, the API's
 * field errors under each input, delete with confirmation. View records are read-only.
 */
import type { CollectionField, CollectionModel, RecordModel } from 'pocketbase'
import { useEffect, useRef, useState } from 'preact/hooks'
import { errorMessage, fieldErrors, pb } from '../api'
import { Button, Confirm, Modal, TextField } from '../components/ui'
import { toast } from '../toasts'
import { AuthActions } from './auth-actions'
import { fileBody, type FileState } from './file-input'
import { FieldInput, jsonState } from './inputs'
import { fileToken } from './file-token'
import { asList } from './query'
import { expandOf } from './use-records'

/** A stored value as the editor holds it (json and numbers as text). */
function toEdit(f: CollectionField, v: unknown): unknown {
  if (f.type === 'json') return v === null || v === undefined ? '' : JSON.stringify(v, null, 2)
  if (f.type === 'number') return typeof v === 'number' ? String(v) : ''
  if (f.type === 'select' || f.type === 'relation')
    return Number(f.maxSelect ?? 1) > 1 ? asList(v) : (asList(v)[0] ?? '')
  if (f.type === 'geoPoint') return v ?? { lat: 0, lon: 0 }
  return v ?? ''
}

/** Fields the editor never sends as data. */
const SKIP = new Set(['autodate', 'password', 'file'])

export function RecordEditor(props: {
  collection: CollectionModel
  /** '' to create. */
  recordId: string
  onClose: () => void
  onSaved: (record: RecordModel) => void
  onDeleted: (id: string) => void
}) {
  const c = props.collection
  const isAuth = c.type === 'auth'
  const readOnly = c.type === 'view'
  const creating = !props.recordId
  const [record, setRecord] = useState<RecordModel | null>(null)
  const [loadError, setLoadError] = useState('')
  const [data, setData] = useState<Record<string, unknown>>({})
  const [files, setFiles] = useState<Record<string, FileState>>({})
  const [password, setPassword] = useState('')
  const [passwordConfirm, setPasswordConfirm] = useState('')
  const [newId, setNewId] = useState('')
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [saving, setSaving] = useState(false)
  const [confirmDelete, setConfirmDelete] = useState(false)
  const [token, setToken] = useState('')

  const init = (r: RecordModel | null) => {
    const d: Record<string, unknown> = {}
    const fs: Record<string, FileState> = {}
    for (const f of c.fields) {
      if (f.type === 'file')
        fs[f.name] = { existing: r ? asList(r[f.name]) : [], removed: [], added: [] }
      else d[f.name] = toEdit(f, r?.[f.name])
    }
    setData(d)
    setFiles(fs)
  }

  useEffect(() => {
    if (c.fields.some((f) => f.type === 'file')) fileToken().then(setToken, () => undefined)
    if (creating) {
      init(null)
      return
    }
    pb.collection(c.name)
      .getOne(props.recordId, { expand: expandOf(c) })
      .then(
        (r) => {
          setRecord(r)
          init(r)
        },
        (err: unknown) => setLoadError(errorMessage(err)),
      )
  }, [])

  // Autodate fields have no value before the server sets them.
  const fields = c.fields.filter(
    (f) =>
      f.name !== 'id' &&
      f.name !== 'tokenKey' &&
      f.type !== 'password' &&
      !(creating && f.type === 'autodate'),
  )

  const save = async () => {
    const body: Record<string, unknown> = {}
    const bad: Record<string, string> = {}
    if (creating && newId.trim()) body.id = newId.trim()
    for (const f of c.fields) {
      if (f.name === 'id' || f.name === 'tokenKey') continue
      if (f.type === 'file') {
        const s = files[f.name]
        if (s) fileBody(f, s, body)
        continue
      }
      if (SKIP.has(f.type)) continue
      const v = data[f.name]
      if (f.type === 'json') {
        const j = jsonState(typeof v === 'string' ? v : '')
        if (!j.ok) bad[f.name] = 'Invalid JSON: fix it before saving.'
        else body[f.name] = j.value
      } else if (f.type === 'number') {
        const t = typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : ''
        body[f.name] = t === '' ? 0 : Number.isNaN(Number(t)) ? t : Number(t)
      } else if (f.type === 'geoPoint') {
        const p = (v ?? {}) as { lat?: unknown; lon?: unknown }
        body[f.name] = { lat: Number(p.lat ?? 0), lon: Number(p.lon ?? 0) }
      } else body[f.name] = v
    }
    if (isAuth && (password || creating)) {
      body.password = password
      body.passwordConfirm = passwordConfirm
    }
    if (Object.keys(bad).length) {
      setErrors(bad)
      toast('error', 'Some fields are not valid.')
      return
    }
    setSaving(true)
    try {
      const opts = { expand: expandOf(c) }
      const saved = creating
        ? await pb.collection(c.name).create(body, opts)
        : await pb.collection(c.name).update(props.recordId, body, opts)
      toast('success', creating ? 'Record created.' : 'Record saved.')
      props.onSaved(saved)
    } catch (err) {
      setErrors(fieldErrors(err))
      toast('error', errorMessage(err))
    } finally {
      setSaving(false)
    }
  }

  // Ctrl/Cmd+S saves (when this editor is the top-most modal).
  const saveRef = useRef(save)
  saveRef.current = save
  useEffect(() => {
    if (readOnly) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 's' || !(e.ctrlKey || e.metaKey)) return
      const modals = document.querySelectorAll('.modal')
      const top = modals[modals.length - 1]
      if (!top?.querySelector('.record-form')) return
      e.preventDefault()
      void saveRef.current()
    }
    document.addEventListener('keydown', onKey)
    return () => document.removeEventListener('keydown', onKey)
  }, [])

  const remove = async () => {
    setSaving(true)
    try {
      await pb.collection(c.name).delete(props.recordId)
      toast('success', 'Record deleted.')
      props.onDeleted(props.recordId)
    } catch (err) {
      toast('error', errorMessage(err))
      setSaving(false)
      setConfirmDelete(false)
    }
  }

  const title = readOnly
    ? `View ${c.name} record`
    : `${creating ? 'Create' : 'Edit'} ${c.name} record`
  const ready = creating || record
  return (
    <Modal
      title={title}
      wide
      onClose={props.onClose}
      footer={
        <>
          {!creating && !readOnly && record && (
            <Button kind="danger" onClick={() => setConfirmDelete(true)}>
              Delete
            </Button>
          )}
          <span class="grow" />
          <Button onClick={props.onClose}>{readOnly ? 'Close' : 'Cancel'}</Button>
          {!readOnly && (
            <Button kind="primary" busy={saving} disabled={!ready} onClick={() => void save()}>
              {creating ? 'Create' : 'Save changes'}
            </Button>
          )}
        </>
      }
    >
      {loadError && (
        <p class="error-text" role="alert">
          {loadError}
        </p>
      )}
      {!ready && !loadError && <p class="muted">Loading…</p>}
      {ready && (
        <form
          class="stack record-form"
          onSubmit={(e) => {
            e.preventDefault()
            if (!readOnly) void save()
          }}
        >
          {creating ? (
            <TextField
              label="id"
              value={newId}
              onInput={setNewId}
              placeholder="Leave empty to autogenerate"
              error={errors.id}
            />
          ) : (
            <p class="record-id">
              <span class="muted">id</span> <code>{props.recordId}</code>
            </p>
          )}
          {isAuth && record && <AuthActions collection={c} record={record} />}
          {fields.map((f) => (
            <FieldInput
              key={f.name}
              field={f}
              collection={c}
              value={data[f.name]}
              onChange={(v) => {
                setData((d) => ({ ...d, [f.name]: v }))
                // An edited field's error is stale.
                if (errors[f.name]) setErrors((e) => ({ ...e, [f.name]: '' }))
              }}
              error={errors[f.name]}
              files={files[f.name]}
              onFiles={(s) => setFiles((all) => ({ ...all, [f.name]: s }))}
              record={record ? { id: record.id, collectionId: c.id, collectionName: c.name } : null}
              fileToken={token}
              readOnly={readOnly}
            />
          ))}
          {isAuth && (
            <div class="row password-row">
              <TextField
                label={creating ? 'Password *' : 'New password'}
                type="password"
                autoComplete="new-password"
                value={password}
                onInput={setPassword}
                error={errors.password}
                hint={creating ? undefined : 'Leave empty to keep the current password.'}
              />
              <TextField
                label="Password confirm"
                type="password"
                autoComplete="new-password"
                value={passwordConfirm}
                onInput={setPasswordConfirm}
                error={errors.passwordConfirm}
              />
            </div>
          )}
          <button type="submit" hidden aria-hidden="true" tabIndex={-1} />
        </form>
      )}
      {confirmDelete && (
        <Confirm
          title="Delete record"
          confirmLabel="Delete"
          danger
          busy={saving}
          onConfirm={() => void remove()}
          onCancel={() => setConfirmDelete(false)}
        >
          <p>
            Delete record <code>{props.recordId}</code>? This cannot be undone.
          </p>
        </Confirm>
      )}
    </Modal>
  )
}
