/** Every collection's five API rules in one table (null: superusers only, '': anyone). */
import type { CollectionModel } from 'pocketbase'
import { href } from '../../router'
import { RuleCell } from '../../rules/rule-cell'
import { Button } from '../../components/ui'

export const RULE_KEYS = ['listRule', 'viewRule', 'createRule', 'updateRule', 'deleteRule'] as const
const TITLES = ['List/Search', 'View', 'Create', 'Update', 'Delete']

export function RulesTable(props: {
  list: CollectionModel[]
  onEdit: (c: CollectionModel) => void
}) {
  return (
    <div class="table-wrap">
      <table class="rules-table">
        <caption class="sr-only">API rules of every collection</caption>
        <thead>
          <tr>
            <th scope="col">Collection</th>
            <th scope="col">
              <span class="sr-only">Edit</span>
            </th>
            {TITLES.map((t) => (
              <th scope="col" key={t}>
                {t}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {props.list.map((c) => (
            <tr key={c.id} data-collection={c.name}>
              <th scope="row">
                <a href={href('collections', { collection: c.name })}>{c.name}</a>{' '}
                <span class="badge">{c.type}</span>
              </th>
              <td>
                <Button
                  kind="link"
                  onClick={() => props.onEdit(c)}
                  aria-label={`Edit the rules of ${c.name}`}
                >
                  Edit
                </Button>
              </td>
              {RULE_KEYS.map((k) => (
                <td key={k} title={c[k] ?? 'superusers only'}>
                  <RuleCell
                    rule={c[k]}
                    applies={c.type !== 'view' || k === 'listRule' || k === 'viewRule'}
                  />
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
