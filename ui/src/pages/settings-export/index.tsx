/**
 * `#/settings-export`: pick collections (a checkbox each), see their JSON (as
 * `GET /api/collections` returns them, the shape `PUT /api/collections/import` takes) and
 * download it or copy it.
 */
import { useEffect, useMemo, useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { collections, reloadCollections } from '../../collections'
import { Button, Checkbox } from '../../components/ui'
import { href } from '../../router'
import { toast } from '../../toasts'
import '../../collection-editor/transfer.css'

/** A collection as exported: without the read-only timestamps and the duplicate `schema`. */
export function exportShape(c: CollectionModel): Record<string, unknown> {
  const out: Record<string, unknown> = { ...c }
  for (const k of ['created', 'updated', 'schema', 'authOptions']) delete out[k]
  return out
}

export default function ExportPage() {
  const list = collections.value
  const [picked, setPicked] = useState<Set<string> | null>(null)
  useEffect(() => {
    if (!list) void reloadCollections()
  }, [])
  useEffect(() => {
    if (list && picked === null) setPicked(new Set(list.map((c) => c.id)))
  }, [list])
  const chosen = (list ?? []).filter((c) => picked?.has(c.id))
  const json = useMemo(
    () => JSON.stringify(chosen.map(exportShape), null, 2),
    [chosen.map((c) => c.id).join()],
  )
  const toggle = (id: string, on: boolean) => {
    const next = new Set(picked ?? [])
    if (on) next.add(id)
    else next.delete(id)
    setPicked(next)
  }
  const download = () => {
    const url = URL.createObjectURL(new Blob([json], { type: 'application/json' }))
    const a = document.createElement('a')
    a.href = url
    a.download = `pb_schema_${new Date().toISOString().slice(0, 10)}.json`
    document.body.append(a)
    a.click()
    a.remove()
    URL.revokeObjectURL(url)
  }
  const copy = () =>
    navigator.clipboard.writeText(json).then(
      () => toast('success', 'Copied.'),
      () => toast('error', 'The clipboard is not available here: select the text instead.'),
    )
  return (
    <div class="transfer-page">
      <p>
        <a href={href('settings')}>← Settings</a>
      </p>
      <h1>Export collections</h1>
      {!list && <p class="muted">Loading…</p>}
      {list && (
        <div class="transfer-grid">
          <fieldset class="transfer-pick">
            <legend>Collections</legend>
            <div class="transfer-pick-actions">
              <Button kind="link" onClick={() => setPicked(new Set(list.map((c) => c.id)))}>
                Select all
              </Button>
              <Button kind="link" onClick={() => setPicked(new Set())}>
                Select none
              </Button>
            </div>
            {list.map((c) => (
              <Checkbox
                key={c.id}
                label={c.name}
                checked={picked?.has(c.id) ?? false}
                onChange={(on) => toggle(c.id, on)}
              />
            ))}
          </fieldset>
          <section class="transfer-preview">
            <label for="export-json">JSON ({chosen.length} collections)</label>
            <textarea id="export-json" class="mono" readOnly rows={24} value={json} />
            <div class="transfer-actions">
              <Button kind="primary" onClick={download} disabled={chosen.length === 0}>
                Download JSON
              </Button>
              <Button onClick={() => void copy()} disabled={chosen.length === 0}>
                Copy
              </Button>
            </div>
          </section>
        </div>
      )}
    </div>
  )
}
