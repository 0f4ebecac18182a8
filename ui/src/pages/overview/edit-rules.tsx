/**
 * Edits one collection's five API rules (the overview's "Edit rules"): a `RuleInput` each, with
 * completion and the server's syntax check; saved with `PATCH /api/collections/{id}`.
 */
import { useState } from 'preact/hooks'
import type { CollectionModel } from 'pocketbase'
import { errorMessage, fieldErrors, pb } from '../../api'
import { reloadCollections } from '../../collections'
import { Button, Modal } from '../../components/ui'
import { RuleInput } from '../../rules/rule-input'
import { toast } from '../../toasts'

type RuleKey = 'listRule' | 'viewRule' | 'createRule' | 'updateRule' | 'deleteRule'
const RULES: [RuleKey, string][] = [
  ['listRule', 'List/Search rule'],
  ['viewRule', 'View rule'],
  ['createRule', 'Create rule'],
  ['updateRule', 'Update rule'],
  ['deleteRule', 'Delete rule'],
]

export function EditRules(props: { collection: CollectionModel; onClose: () => void }) {
  const c = props.collection
  const keys = RULES.filter(([k]) => c.type !== 'view' || k === 'listRule' || k === 'viewRule')
  const [rules, setRules] = useState<Record<RuleKey, string | null>>({
    listRule: c.listRule ?? null,
    viewRule: c.viewRule ?? null,
    createRule: c.createRule ?? null,
    updateRule: c.updateRule ?? null,
    deleteRule: c.deleteRule ?? null,
  })
  const [busy, setBusy] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})

  const save = async () => {
    setBusy(true)
    setErrors({})
    try {
      const body = Object.fromEntries(keys.map(([k]) => [k, rules[k]]))
      await pb.collections.update(c.id, body)
      await reloadCollections()
      toast('success', `The rules of ${c.name} are saved.`)
      props.onClose()
    } catch (err) {
      setErrors(fieldErrors(err))
      toast('error', `The rules could not be saved: ${errorMessage(err)}`)
    } finally {
      setBusy(false)
    }
  }

  return (
    <Modal
      title={`API rules of ${c.name}`}
      wide
      onClose={props.onClose}
      footer={
        <>
          <Button onClick={props.onClose}>Cancel</Button>
          <Button kind="primary" busy={busy} onClick={() => void save()}>
            Save rules
          </Button>
        </>
      }
    >
      <p class="muted">
        Superusers only: nobody else may. Anyone: guests too. Filter: the records it matches
        (Ctrl+Space suggests fields, <code>@request.*</code>, macros and operators).
      </p>
      {keys.map(([k, label]) => (
        <div key={k}>
          <RuleInput
            label={label}
            value={rules[k]}
            collection={c}
            onChange={(v) => setRules((r) => ({ ...r, [k]: v }))}
          />
          {errors[k] && <p class="error-text">{errors[k]}</p>}
        </div>
      ))}
    </Modal>
  )
}
