/** The detail modal of one request log: every attribute, with Copy JSON and Download JSON. */
import { Button, Modal } from '../../components/ui'
import { copyText, formatDate, saveBlob, valueText } from '../../components/operations'
import { toast } from '../../toasts'
import { levelName, type LogItem } from './types'

function show(v: unknown): string {
  if (v === null || v === undefined) return 'N/A'
  return valueText(v, 2)
}

export function LogDetail(props: { log: LogItem; onClose: () => void }) {
  const l = props.log
  const json = JSON.stringify(l, null, 2)
  const rows: [string, unknown][] = [
    ['id', l.id],
    ['level', `${levelName(l.level)} (${l.level})`],
    ['created', `${l.created} (${formatDate(l.created)})`],
    ['message', l.message],
    ...Object.entries(l.data ?? {}).map(([k, v]): [string, unknown] => [`data.${k}`, v]),
  ]
  return (
    <Modal
      title="Request log"
      onClose={props.onClose}
      wide
      footer={
        <>
          <Button
            onClick={() =>
              void copyText(json).then((ok) =>
                ok
                  ? toast('success', 'The log was copied as JSON.')
                  : toast('error', 'The browser refused to copy; select the text and copy it.'),
              )
            }
          >
            Copy JSON
          </Button>
          <Button
            onClick={() =>
              saveBlob(new Blob([json], { type: 'application/json' }), `log_${l.id}.json`)
            }
          >
            Download JSON
          </Button>
          <Button kind="primary" onClick={props.onClose}>
            Close
          </Button>
        </>
      }
    >
      <table class="log-detail">
        <tbody>
          {rows.map(([k, v]) => (
            <tr
              key={k}
              class={k === 'data.error' || k === 'data.details' ? 'log-error' : undefined}
            >
              <th scope="row">{k}</th>
              <td>
                <pre>{show(v)}</pre>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Modal>
  )
}
