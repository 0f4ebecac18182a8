/**
 * The home page, `#/collections?collection=NAME&filter=…&sort=…&record=ID`: the collections
 * sidebar and the chosen collection's records (the last one opened when none is named).
 */
import type { FunctionComponent } from 'preact'
import type { CollectionModel } from 'pocketbase'
import { useEffect, useState } from 'preact/hooks'
import { collections, findCollection, reloadCollections } from '../../collections'
import type { PageProps } from '../../pages'
import { navigate } from '../../router'
import { RecordsView } from '../../records/table'
import { Sidebar } from './sidebar'
import './collections.css'

const LAST = 'svcLastCollection'

type EditorProps = {
  collection?: CollectionModel
  onClose: () => void
  onSaved: (c: CollectionModel) => void
}

// The collection editor is another module, loaded on first use (and optional at build time).
const editorModules = import.meta.glob<{ CollectionEditor: FunctionComponent<EditorProps> }>(
  '../../collection-editor/editor.tsx',
)
const loadEditor = Object.values(editorModules)[0]

export default function CollectionsPage(props: PageProps) {
  const list = collections.value
  const name = props.route.query.get('collection') ?? ''
  const current = name ? findCollection(name) : undefined
  const [editing, setEditing] = useState<{ c: CollectionModel | null } | null>(null)
  const [Editor, setEditor] = useState<FunctionComponent<EditorProps> | null>(null)

  // No collection named: open the last one, or the first non-system one.
  useEffect(() => {
    if (!list || name) return
    const last = window.localStorage.getItem(LAST)
    const pick =
      (last && list.find((c) => c.name === last)) || list.find((c) => !c.system) || list[0]
    if (pick) navigate('collections', { collection: pick.name }, true)
  }, [list, name])
  useEffect(() => {
    if (current) window.localStorage.setItem(LAST, current.name)
  }, [current?.name])

  const openEditor = loadEditor
    ? (c: CollectionModel | null) => {
        setEditing({ c })
        if (!Editor) void loadEditor().then((m) => setEditor(() => m.CollectionEditor))
      }
    : undefined

  return (
    <div class="split collections-page">
      <Sidebar collections={list ?? []} active={current?.name ?? ''} onEdit={openEditor} />
      <div class="records-pane">
        {!list && <p class="muted">Loading…</p>}
        {list && name && !current && (
          <p class="error-text" role="alert">
            There is no collection named “{name}”.
          </p>
        )}
        {list && list.length === 0 && <p class="muted">No collections yet.</p>}
        {current && (
          <RecordsView
            key={current.id}
            collection={current}
            route={props.route}
            onEditCollection={openEditor ? () => openEditor(current) : undefined}
          />
        )}
      </div>
      {editing && Editor && (
        <Editor
          collection={editing.c ?? undefined}
          onClose={() => {
            setEditing(null)
            // A deleted or changed collection shows at once.
            void reloadCollections()
          }}
          onSaved={(saved) => {
            setEditing(null)
            void reloadCollections().then(() => {
              if (saved.name !== current?.name) navigate('collections', { collection: saved.name })
            })
          }}
        />
      )}
    </div>
  )
}
