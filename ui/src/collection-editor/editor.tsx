/**
 * The collection editor: a modal that creates or edits a base, auth or view collection (name,
 * type on create, fields, indexes, API rules, auth options, view query), deletes (typing the
 * name) or truncates it. A save that drops data (removed fields, type changes, multi → single
 * lists) first shows exactly what will be lost and waits for a confirmation.
 */
import { useEffect, useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { errorMessage, fieldErrors, pb } from '../api'
import { reloadCollections } from '../collections'
import { Button, Confirm, Modal, SelectField, Tabs, TextField } from '../components/ui'
import { toast } from '../toasts'
import { AuthOptionsTab } from './auth-options'
import { DangerZone } from './danger'
import { FieldsTab } from './fields'
import { Indexes } from './indexes'
import { dataLoss, renames, str, toBody, toDraft, type Draft } from './model'
import { QueryTab } from './query'
import { RulesTab } from './rules'
import './editor.css'

type Scaffolds = Record<'base' | 'auth' | 'view', Record<string, unknown>>

let scaffoldsCache: Promise<Scaffolds> | null = null
function loadScaffolds(): Promise<Scaffolds> {
  scaffoldsCache ??= pb.send<Scaffolds>('/api/collections/meta/scaffolds', {})
  scaffoldsCache.catch(() => (scaffoldsCache = null))
  return scaffoldsCache
}

/** The per-field messages of a save error (`data.fields.<i>.<key>.message`), by index. */
function fieldListErrors(err: unknown): Record<string, string> {
  const data = (err as { response?: { data?: Record<string, unknown> } } | null)?.response?.data
  const list = (data?.fields ?? data?.schema) as Record<string, unknown> | undefined
  const out: Record<string, string> = {}
  if (!list || typeof list !== 'object') return out
  for (const [i, v] of Object.entries(list)) {
    if (!v || typeof v !== 'object') continue
    const parts = Object.entries(v as Record<string, { message?: string }>)
      .filter(([, e]) => typeof e?.message === 'string')
      .map(([k, e]) => `${k}: ${e.message!}`)
    if (parts.length) out[i] = parts.join('; ')
  }
  return out
}

/** The draft as a collection (its fields as edited), for the rule editor's completion and check. */
function draftModel(d: Draft, editing: CollectionModel | undefined): CollectionModel {
  return {
    ...d.base,
    id: editing?.id ?? '',
    fields: d.fields.filter((f) => !f.removed).map((f) => f.data),
  } as unknown as CollectionModel
}

/** Opens a collection for editing (or a new one when `collection` is absent). */
export function CollectionEditor(props: {
  collection?: CollectionModel
  onClose(): void
  onSaved(c: CollectionModel): void
}) {
  const editing = props.collection
  const [draft, setDraft] = useState<Draft | null>(editing ? toDraft(editing) : null)
  const [scaffolds, setScaffolds] = useState<Scaffolds | null>(null)
  const [tab, setTab] = useState('fields')
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [fieldErrs, setFieldErrs] = useState<Record<string, string>>({})
  const [loss, setLoss] = useState<string[] | null>(null)

  useEffect(() => {
    if (editing) return
    loadScaffolds().then(
      (s) => {
        setScaffolds(s)
        setDraft((d) => d ?? toDraft({ ...s.base, name: '' }))
      },
      (err: unknown) =>
        toast('error', `The collection defaults could not be loaded: ${errorMessage(err)}`),
    )
  }, [])

  if (!draft) {
    return (
      <Modal title="New collection" onClose={() => props.onClose()} wide>
        <p class="muted">Loading…</p>
      </Modal>
    )
  }

  const type = str(draft.base.type) || 'base'
  const name = str(draft.base.name)
  const setBase = (patch: Record<string, unknown>) =>
    setDraft({ ...draft, base: { ...draft.base, ...patch } })

  const changeType = (t: string) => {
    if (!scaffolds) return
    const s = toDraft({ ...(scaffolds[t as keyof Scaffolds] ?? scaffolds.base) })
    // Keep the user's own fields and rules when switching between base and auth.
    const own = draft.fields.filter((f) => f.data.system !== true)
    const rules = Object.fromEntries(
      ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'].map((k) => [
        k,
        draft.base[k],
      ]),
    )
    setDraft({
      base: { ...s.base, ...rules, name, indexes: draft.base.indexes ?? [] },
      fields: t === 'view' ? [] : [...s.fields, ...own],
    })
    if (t !== 'view' && tab === 'query') setTab('fields')
    if (t !== 'auth' && tab === 'options') setTab('fields')
  }

  const save = async () => {
    setBusy(true)
    setErrors({})
    setFieldErrs({})
    try {
      const body = toBody(draft, !editing, editing)
      const saved = editing
        ? await pb.collections.update(editing.id, body)
        : await pb.collections.create(body)
      const renamed = renames(draft)
      toast(
        'success',
        `Collection "${saved.name}" ${editing ? 'saved' : 'created'}${
          renamed.length ? ` (renamed ${renamed.map(([a, b]) => `${a} → ${b}`).join(', ')})` : ''
        }.`,
      )
      void reloadCollections()
      props.onSaved(saved)
    } catch (err) {
      const fe = fieldErrors(err)
      setErrors(fe)
      setFieldErrs(fieldListErrors(err))
      toast('error', errorMessage(err))
      if (fe.fields || fe.schema) setTab('fields')
      else if (fe.viewQuery) setTab('query')
      else if (Object.keys(fe).some((k) => k.endsWith('Rule'))) setTab('rules')
    } finally {
      setBusy(false)
    }
  }

  const trySave = () => {
    if (!name.trim()) {
      setErrors({ name: 'A name is required.' })
      return
    }
    const lost = dataLoss(draft, editing)
    if (lost.length) setLoss(lost)
    else void save()
  }

  const tabs = [
    ...(type === 'view' ? [{ id: 'query', title: 'Query' }] : [{ id: 'fields', title: 'Fields' }]),
    { id: 'rules', title: 'API rules' },
    ...(type === 'auth' ? [{ id: 'options', title: 'Options' }] : []),
  ].map((t) => ({
    ...t,
    marked:
      (t.id === 'fields' && Boolean(errors.fields || errors.schema || errors.indexes)) ||
      (t.id === 'query' && Boolean(errors.viewQuery)) ||
      (t.id === 'rules' && Object.keys(errors).some((k) => k.endsWith('Rule'))),
  }))
  const active = tabs.some((t) => t.id === tab) ? tab : tabs[0]!.id

  return (
    <Modal
      title={editing ? `Edit collection ${editing.name}` : 'New collection'}
      onClose={() => props.onClose()}
      wide
      footer={
        <>
          <Button onClick={() => props.onClose()}>Cancel</Button>
          <Button kind="primary" busy={busy} onClick={trySave}>
            {editing ? 'Save changes' : 'Create'}
          </Button>
        </>
      }
    >
      <div class="ce-head">
        <TextField
          label="Name"
          value={name}
          required
          onInput={(v) => setBase({ name: v })}
          error={errors.name}
          placeholder='e.g. "posts"'
          disabled={editing?.system === true}
        />
        <SelectField
          label="Collection type"
          value={type}
          options={[
            { value: 'base', label: 'Base' },
            { value: 'auth', label: 'Auth' },
            { value: 'view', label: 'View' },
          ]}
          disabled={Boolean(editing) || !scaffolds}
          onChange={changeType}
        />
      </div>
      <Tabs label="Collection settings" tabs={tabs} active={active} onChange={setTab}>
        {active === 'fields' && (
          <>
            <FieldsTab
              fields={draft.fields}
              onChange={(fields) => setDraft({ ...draft, fields })}
              selfId={editing?.id}
              errors={fieldErrs}
            />
            <Indexes
              collectionName={name}
              indexes={(draft.base.indexes as string[] | undefined) ?? []}
              onChange={(indexes) => setBase({ indexes })}
              error={errors.indexes}
            />
          </>
        )}
        {active === 'query' && (
          <QueryTab
            query={str(draft.base.viewQuery)}
            onChange={(q) => setBase({ viewQuery: q })}
            error={errors.viewQuery}
          />
        )}
        {active === 'rules' && (
          <RulesTab
            base={draft.base}
            collection={draftModel(draft, editing)}
            set={setBase}
            errors={errors}
          />
        )}
        {active === 'options' && (
          <AuthOptionsTab base={draft.base} fields={draft.fields} set={setBase} errors={errors} />
        )}
      </Tabs>
      {editing && !editing.system && (
        <DangerZone collection={editing} onGone={() => props.onClose()} />
      )}
      {loss && (
        <Confirm
          title="Confirm the changes that delete data"
          confirmLabel="Save and delete the data"
          danger
          busy={busy}
          onCancel={() => setLoss(null)}
          onConfirm={() => {
            setLoss(null)
            void save()
          }}
        >
          <p>Saving "{name}" deletes data that cannot be brought back:</p>
          <ul class="ce-loss" aria-label="Data that will be lost">
            {loss.map((l) => (
              <li key={l}>{l}</li>
            ))}
          </ul>
        </Confirm>
      )}
    </Modal>
  )
}
