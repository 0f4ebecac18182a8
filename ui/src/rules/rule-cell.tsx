/** A rule as the API applies it: a badge for null (superusers only) and '' (anyone), else the text. */
import './rules.css'

export function RuleCell(props: { rule: string | null | undefined; applies?: boolean }) {
  if (props.applies === false) return <span class="muted">n/a</span>
  if (props.rule === null || props.rule === undefined) {
    return <span class="rule-badge locked">superusers only</span>
  }
  if (props.rule.trim() === '') return <span class="rule-badge open">anyone</span>
  return <code class="rule-text">{props.rule}</code>
}
