/**
 * MCP playground (`#/mcp`): act as the signed-in superuser, a pasted API key (or any token), or a
 * guest; list the tools `/api/mcp` exposes to it (`initialize` + `tools/list`), fill a form made
 * from a tool's input schema, call it (`tools/call`) and read the JSON-RPC transcript.
 */
import { useState } from 'preact/hooks'
import { errorMessage, pb } from '../../api'
import { Button, SelectField, TextField } from '../../components/ui'
import type { PageProps } from '../../pages'
import { McpSession, type Exchange, type Tool } from './client'
import { SchemaForm, toArguments, type FormValues } from './schema-form'
import './mcp.css'

type Who = 'superuser' | 'key' | 'guest'

export default function McpPage(_props: PageProps) {
  const [who, setWho] = useState<Who>('superuser')
  const [key, setKey] = useState('')
  const [session, setSession] = useState<McpSession | null>(null)
  const [tools, setTools] = useState<Tool[] | null>(null)
  const [toolName, setToolName] = useState('')
  const [values, setValues] = useState<FormValues>({})
  const [transcript, setTranscript] = useState<Exchange[]>([])
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState('')
  const [result, setResult] = useState<{ isError: boolean; text: string } | null>(null)

  const record = (e: Exchange) => setTranscript((t) => [...t, e])

  async function connect(e: Event) {
    e.preventDefault()
    setBusy(true)
    setError('')
    setTools(null)
    setResult(null)
    setTranscript([])
    const token = who === 'superuser' ? pb.authStore.token : who === 'key' ? key.trim() : ''
    const s = new McpSession(token, record)
    try {
      const list = await s.connect()
      setSession(s)
      setTools(list)
      setToolName(list[0]?.name ?? '')
      setValues({})
    } catch (err) {
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  const tool = tools?.find((t) => t.name === toolName)

  async function call(e: Event) {
    e.preventDefault()
    if (!session || !tool) return
    const parsed = toArguments(tool.inputSchema, values)
    if ('error' in parsed) {
      setError(parsed.error)
      return
    }
    setBusy(true)
    setError('')
    setResult(null)
    try {
      const res = await session.request<{
        isError?: boolean
        content?: { type: string; text?: string }[]
        structuredContent?: unknown
      }>('tools/call', { name: tool.name, arguments: parsed.args })
      const text =
        res.structuredContent !== undefined
          ? JSON.stringify(res.structuredContent, null, 2)
          : (res.content ?? []).map((c) => c.text ?? '').join('\n')
      setResult({ isError: res.isError === true, text })
    } catch (err) {
      setError(errorMessage(err))
    } finally {
      setBusy(false)
    }
  }

  return (
    <div class="stack mcp-page">
      <div class="page-header">
        <h1>MCP playground</h1>
      </div>
      <p class="muted">
        See which tools <code>/api/mcp</code> gives an agent and try them. Calls run as the chosen
        identity, with its rules: a create or delete here changes real data.
      </p>
      <form class="row mcp-connect" onSubmit={(e) => void connect(e)}>
        <SelectField
          label="Act as"
          value={who}
          options={[
            { value: 'superuser', label: 'Me (superuser)' },
            { value: 'key', label: 'An API key or token' },
            { value: 'guest', label: 'A guest (no token)' },
          ]}
          onChange={(v) => setWho(v as Who)}
        />
        {who === 'key' && (
          <div class="grow">
            <TextField
              label="API key or token"
              type="password"
              value={key}
              onInput={setKey}
              placeholder="svc_…"
              autoComplete="off"
            />
          </div>
        )}
        <Button type="submit" kind="primary" busy={busy} disabled={who === 'key' && !key.trim()}>
          List tools
        </Button>
      </form>
      {error && (
        <p class="error-text" role="alert">
          {error}
        </p>
      )}
      <div class="mcp-grid">
        <section class="mcp-panel" aria-labelledby="mcp-tools">
          <h2 id="mcp-tools">Tools{tools ? ` (${tools.length})` : ''}</h2>
          {!tools && <p class="muted">Choose who to act as, then List tools.</p>}
          {tools && tools.length === 0 && <p class="muted">No tools for this identity.</p>}
          {tools && tools.length > 0 && (
            <form class="stack" onSubmit={(e) => void call(e)}>
              <SelectField
                label="Tool"
                value={toolName}
                options={tools.map((t) => t.name)}
                onChange={(v) => {
                  setToolName(v)
                  setValues({})
                  setResult(null)
                }}
              />
              {tool?.description && <p class="muted">{tool.description}</p>}
              {tool && (
                <SchemaForm schema={tool.inputSchema} values={values} onChange={setValues} />
              )}
              <div>
                <Button type="submit" kind="primary" busy={busy}>
                  Call {toolName}
                </Button>
              </div>
              {result && (
                <div class="stack">
                  <h3>{result.isError ? 'Result (isError: true)' : 'Result'}</h3>
                  <pre class={`mcp-json${result.isError ? ' mcp-error' : ''}`} aria-label="Result">
                    {result.text}
                  </pre>
                </div>
              )}
            </form>
          )}
        </section>
        <section class="mcp-panel" aria-labelledby="mcp-transcript">
          <div class="row">
            <h2 id="mcp-transcript" class="grow">
              JSON-RPC transcript
            </h2>
            <Button kind="link" onClick={() => setTranscript([])} disabled={!transcript.length}>
              Clear
            </Button>
          </div>
          {transcript.length === 0 && <p class="muted">Nothing sent yet.</p>}
          <ol class="mcp-transcript">
            {transcript.map((x, i) => (
              <li key={i} class={`mcp-${x.direction}`}>
                <div class="mcp-dir">
                  {x.direction === 'request' ? '→ POST /api/mcp' : `← ${x.status ?? ''}`}
                </div>
                <pre class="mcp-json">
                  {x.body === null ? '(no body)' : JSON.stringify(x.body, null, 2)}
                </pre>
              </li>
            ))}
          </ol>
        </section>
      </div>
    </div>
  )
}
