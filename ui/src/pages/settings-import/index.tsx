/**
 * `#/settings-import`: paste or load a collections JSON (an export of this dashboard, of
 * `GET /api/collections` or of PocketBase), see what it would change — the server's own dry run,
 * `POST /api/schema/apply?dryRun=1` (with `force=1` unless merging, as the import drops omitted
 * fields then), plus the collections the import would delete — and confirm the import
 * (`PUT /api/collections/import`).
 */
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { collections, reloadCollections } from '../../collections'
import { Button, Checkbox, Confirm, TextArea } from '../../components/ui'
import { href } from '../../router'
import { toast } from '../../toasts'
import '../../collection-editor/transfer.css'

/** One entry of the server's plan (docs/schema.md). */
interface PlanEntry {
  name: string
  action: 'create' | 'update' | 'unchanged'
  fieldsAdded: string[]
  fieldsRemoved: string[]
  fieldsChanged: string[]
  pendingRemoval: boolean
}

interface Diff {
  plan: PlanEntry[]
  deleted: string[]
  merge: boolean
  items: Record<string, unknown>[]
}

/** The collections of a pasted text: an array, `{collections}` or `{items}`. */
function parseCollections(text: string): Record<string, unknown>[] {
  const v = JSON.parse(text) as unknown
  const list = Array.isArray(v)
    ? v
    : v && typeof v === 'object'
      ? ((v as { collections?: unknown; items?: unknown }).collections ??
        (v as { items?: unknown }).items)
      : undefined
  if (!Array.isArray(list))
    throw new Error('Expected a list of collections (or {"collections": [...]}).')
  if (list.length === 0) throw new Error('The list holds no collections.')
  if (!list.every((c) => c && typeof c === 'object' && !Array.isArray(c)))
    throw new Error('Every item of the list must be a collection object.')
  return list as Record<string, unknown>[]
}

function DiffView(props: { diff: Diff }) {
  const { plan, deleted, merge } = props.diff
  const changed = plan.filter((p) => p.action !== 'unchanged')
  const same = plan.filter((p) => p.action === 'unchanged')
  return (
    <section class="transfer-diff" aria-label="Changes">
      <h2>Changes</h2>
      {changed.length === 0 && deleted.length === 0 && (
        <p class="muted">Nothing changes: the collections are already as in the file.</p>
      )}
      <ul>
        {changed.map((p) => (
          <li key={p.name} class={`diff-${p.action}`}>
            <strong>
              {p.action === 'create' ? 'Create' : 'Update'} {p.name}
            </strong>
            {p.fieldsAdded.length > 0 && (
              <div class="diff-add">+ fields: {p.fieldsAdded.join(', ')}</div>
            )}
            {p.fieldsChanged.length > 0 && (
              <div class="diff-change">~ fields: {p.fieldsChanged.join(', ')}</div>
            )}
            {p.fieldsRemoved.length > 0 &&
              (merge ? (
                <div class="muted">kept (not in the file): {p.fieldsRemoved.join(', ')}</div>
              ) : (
                <div class="diff-del">
                  − fields deleted with their data: {p.fieldsRemoved.join(', ')}
                </div>
              ))}
          </li>
        ))}
        {deleted.map((name) => (
          <li key={name} class="diff-delete">
            <strong class="diff-del">Delete {name}</strong> (every record in it)
          </li>
        ))}
      </ul>
      {same.length > 0 && <p class="muted">Unchanged: {same.map((p) => p.name).join(', ')}</p>}
    </section>
  )
}

export default function ImportPage() {
  const [text, setText] = useState('')
  const [merge, setMerge] = useState(true)
  const [error, setError] = useState('')
  const [diff, setDiff] = useState<Diff | null>(null)
  const [busy, setBusy] = useState(false)
  const [confirming, setConfirming] = useState(false)
  useEffect(() => {
    if (!collections.value) void reloadCollections()
  }, [])
  // Any edit makes the shown diff stale.
  useEffect(() => setDiff(null), [text, merge])

  const review = async () => {
    setError('')
    let items: Record<string, unknown>[]
    try {
      items = parseCollections(text)
    } catch (err) {
      setError(`Invalid JSON: ${errorMessage(err)}`)
      return
    }
    setBusy(true)
    try {
      const res = await pb.send<{ collections: PlanEntry[] }>(
        `/api/schema/apply?dryRun=1${merge ? '' : '&force=1'}`,
        { method: 'POST', body: { collections: items } },
      )
      const stored = await reloadCollections()
      const ids = new Set(items.map((c) => c.id))
      const names = new Set(items.map((c) => c.name))
      const deleted = merge
        ? []
        : stored.filter((c) => !c.system && !ids.has(c.id) && !names.has(c.name)).map((c) => c.name)
      setDiff({ plan: res.collections, deleted, merge, items })
    } catch (err) {
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  const load = (file: File | undefined) => {
    if (!file) return
    file.text().then(setText, (err: unknown) => setError(errorMessage(err)))
  }

  const doImport = async () => {
    if (!diff) return
    setBusy(true)
    try {
      await pb.collections.import(diff.items as never, !diff.merge)
      toast('success', `Imported ${diff.items.length} collections.`)
      setConfirming(false)
      setDiff(null)
      setText('')
      await reloadCollections()
    } catch (err) {
      setConfirming(false)
      const data = (err as { response?: { data?: { collections?: { message?: string } } } })
        .response?.data?.collections?.message
      setError(data ? `${errorMessage(err)}\n${data}` : errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  const loses =
    diff !== null &&
    (diff.deleted.length > 0 || (!diff.merge && diff.plan.some((p) => p.fieldsRemoved.length > 0)))

  return (
    <div class="transfer-page">
      <p>
        <a href={href('settings')}>← Settings</a>
      </p>
      <h1>Import collections</h1>
      <TextArea
        label="Collections JSON"
        mono
        rows={16}
        value={text}
        onInput={setText}
        placeholder='[{"name": "posts", "type": "base", "fields": [...]}]'
        hint="An export of this dashboard, of GET /api/collections or of PocketBase."
      />
      <div class="field">
        <label for="import-file">Or load a JSON file</label>
        <input
          id="import-file"
          type="file"
          accept="application/json,.json"
          onChange={(e) => load(e.currentTarget.files?.[0])}
        />
      </div>
      <Checkbox
        label="Merge (keep the collections and fields the file does not list)"
        checked={merge}
        onChange={setMerge}
      />
      {error && (
        <p class="error-text transfer-error" role="alert">
          {error}
        </p>
      )}
      <div class="transfer-actions">
        <Button
          kind="primary"
          busy={busy && !diff}
          onClick={() => void review()}
          disabled={!text.trim()}
        >
          Review changes
        </Button>
        {diff && (
          <Button kind={loses ? 'danger' : 'primary'} onClick={() => setConfirming(true)}>
            Import
          </Button>
        )}
      </div>
      {diff && <DiffView diff={diff} />}
      {confirming && diff && (
        <Confirm
          title="Import the collections?"
          confirmLabel="Confirm import"
          danger={loses}
          busy={busy}
          onCancel={() => setConfirming(false)}
          onConfirm={() => void doImport()}
        >
          <DiffView diff={diff} />
        </Confirm>
      )}
    </div>
  )
}
