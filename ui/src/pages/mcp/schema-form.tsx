/**
 * A form made from a tool's JSON Schema: text, number and integer inputs, a select for an
 * `enum`, a checkbox for a boolean, and JSON text for arrays, objects and anything else. Empty
 * inputs are left out of the arguments.
 */
import { Checkbox, SelectField, TextArea, TextField } from '../../components/ui'
import type { JsonSchema } from './client'

/** The raw values of the inputs, by property name. */
export type FormValues = Record<string, string | boolean>

const typeOf = (s: JsonSchema): string =>
  (Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type) ?? 'any'

/**
 * The arguments the inputs mean, or the error of the first input that does not fit (a number
 * that is not one, JSON that does not parse).
 */
export function toArguments(
  schema: JsonSchema,
  values: FormValues,
): { args: Record<string, unknown> } | { error: string } {
  const args: Record<string, unknown> = {}
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const v = values[name]
    if (v === undefined || v === '') continue
    const type = typeOf(prop)
    if (type === 'boolean') {
      if (v === true) args[name] = true
      continue
    }
    if (typeof v !== 'string') continue
    if (prop.enum) args[name] = v
    else if (type === 'string') args[name] = v
    else if (type === 'number' || type === 'integer') {
      const n = Number(v)
      if (!Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n)))
        return { error: `${name}: must be ${type === 'integer' ? 'an integer' : 'a number'}.` }
      args[name] = n
    } else {
      try {
        args[name] = JSON.parse(v)
      } catch {
        return { error: `${name}: not valid JSON.` }
      }
    }
  }
  return { args }
}

/** The inputs of a schema's properties. */
export function SchemaForm(props: {
  schema: JsonSchema
  values: FormValues
  onChange: (values: FormValues) => void
}) {
  const required = new Set(props.schema.required ?? [])
  const props_ = Object.entries(props.schema.properties ?? {})
  if (props_.length === 0) return <p class="muted">This tool takes no arguments.</p>
  const set = (name: string, v: string | boolean) => props.onChange({ ...props.values, [name]: v })
  return (
    <div class="stack">
      {props_.map(([name, prop]) => {
        const label = `${name}${required.has(name) ? ' (required)' : ''}`
        const type = typeOf(prop)
        const hint = [prop.description, prop.format && `format: ${prop.format}`]
          .filter(Boolean)
          .join(' · ')
        const value = props.values[name]
        if (type === 'boolean')
          return (
            <Checkbox
              key={name}
              label={label}
              checked={value === true}
              onChange={(v) => set(name, v)}
            />
          )
        if (prop.enum)
          return (
            <SelectField
              key={name}
              label={label}
              value={typeof value === 'string' ? value : ''}
              options={[
                { value: '', label: '—' },
                ...prop.enum.map((e) => ({ value: String(e), label: String(e) })),
              ]}
              onChange={(v) => set(name, v)}
            />
          )
        if (type === 'string' || type === 'number' || type === 'integer')
          return (
            <TextField
              key={name}
              label={label}
              type={type === 'string' ? 'text' : 'number'}
              value={typeof value === 'string' ? value : ''}
              onInput={(v) => set(name, v)}
              hint={hint || undefined}
            />
          )
        return (
          <TextArea
            key={name}
            label={`${label} (JSON)`}
            mono
            rows={3}
            value={typeof value === 'string' ? value : ''}
            onInput={(v) => set(name, v)}
            hint={hint || undefined}
          />
        )
      })}
    </div>
  )
}
