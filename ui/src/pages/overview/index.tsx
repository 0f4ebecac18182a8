/**
 * `#/overview?system=1`: every collection's API rules on one page, and a diagram of the
 * relations between collections (boxes link to each collection).
 */
import { useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { collections } from '../../collections'
import { Checkbox } from '../../components/ui'
import type { PageProps } from '../../pages'
import { navigate } from '../../router'
import { RelationsDiagram } from './diagram'
import { EditRules } from './edit-rules'
import { RulesTable } from './rules-table'
import './overview.css'

export default function OverviewPage(props: PageProps) {
  const all = collections.value
  const withSystem = props.route.query.get('system') === '1'
  const list = (all ?? []).filter((c) => withSystem || !c.system)
  const [editing, setEditing] = useState<CollectionModel | null>(null)
  return (
    <div class="overview-page">
      <div class="page-header">
        <h1>Overview</h1>
        <Checkbox
          label="Show system collections"
          checked={withSystem}
          onChange={(v) => navigate('overview', { system: v ? '1' : undefined }, true)}
        />
      </div>
      {!all && <p class="muted">Loading…</p>}
      {all && list.length === 0 && <p class="muted">No collections yet.</p>}
      {all && list.length > 0 && (
        <>
          <section aria-labelledby="overview-rules">
            <h2 id="overview-rules">API rules</h2>
            <RulesTable list={list} onEdit={setEditing} />
          </section>
          <section aria-labelledby="overview-relations">
            <h2 id="overview-relations">Relations</h2>
            <p class="muted">
              Each box is a collection with its fields; an arrow goes from a relation field to the
              collection it points to. Tab to a box and press Enter to open the collection.
            </p>
            <RelationsDiagram list={list} all={all} />
          </section>
        </>
      )}
      {editing && <EditRules collection={editing} onClose={() => setEditing(null)} />}
    </div>
  )
}
