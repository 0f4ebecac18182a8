/**
 * The API rules tab: the five record rules (and the auth and manage rules of auth collections),
 * each "superusers only" (null), "anyone" ("") or a filter expression, through the rules
 * area's `RuleInput` (expression editor with completion and the server's syntax check).
 */
import type { CollectionModel } from 'pocketbase'
import { RuleInput } from '../rules/rule-input'
import { authRuleLabels, ruleLabels } from './model'

/** The rules of a collection draft. */
export function RulesTab(props: {
  base: Record<string, unknown>
  collection: CollectionModel | null
  set: (patch: Record<string, unknown>) => void
  errors: Record<string, string>
}) {
  const labels = props.base.type === 'auth' ? [...ruleLabels, ...authRuleLabels] : ruleLabels
  const shown = props.base.type === 'view' ? labels.slice(0, 2) : labels
  return (
    <div class="ce-rules">
      {shown.map(([key, label]) => (
        <div key={key}>
          <RuleInput
            label={label}
            value={(props.base[key] as string | null | undefined) ?? null}
            collection={props.collection}
            onChange={(v) => props.set({ [key]: v })}
          />
          {props.errors[key] && <div class="error-text">{props.errors[key]}</div>}
        </div>
      ))}
    </div>
  )
}
