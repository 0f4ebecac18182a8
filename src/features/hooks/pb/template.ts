/**
 * PocketBase's `$template` for `*.pb.js` scripts: `loadFiles(...paths)` and `loadString(text)`
 * give a renderer whose `render(data)` runs Go html/template syntax (`template-parse.ts`,
 * `template-exec.ts`, escaping by context in `template-escape.ts`). As in PocketBase, the set
 * of `loadFiles` is named after the first file's base name, and that template is rendered
 * (a layout first, the files defining its blocks after it). Files are read only inside the
 * app's folders: the hooks dir and its parent folder; a missing file answers 404, as
 * PocketBase's; a file past 1 MiB, or one outside those folders, is an error naming it.
 * `addFuncs({name: fn})` registers nothing usable, as in PocketBase 0.40.4: it answers the
 * registry, but Go's template engine cannot call a JavaScript function (PocketBase fails every
 * such call at render, "wrong type for value"/"wrong number of args"), so a template calling one
 * fails at render here too (`function "name" not defined`).
 */
import { readFileSync, statSync } from 'node:fs'
import { basename } from 'node:path'
import { messages } from '../../../core/errors.js'
import { appPath } from './app-files.js'
import { goText, render } from './template-exec.js'
import { parseInto, type TemplateSet } from './template-parse.js'
import { strict } from './unsupported.js'

const MAX_FILE = 1024 * 1024

/** A renderer of a parsed set. */
function renderer(set: TemplateSet, name: string): object {
  return strict('$template renderer', {
    render: (data?: unknown): string => render(set, name, data ?? null),
  })
}

/** The `$template` object of a script whose hooks dir is `hooksDir`. */
export function templateGlobal(hooksDir: string): object {
  const read = (p: unknown): string => {
    const path = appPath(hooksDir, p, '$template.loadFiles')
    if (statSync(path).size > MAX_FILE)
      throw new Error(`$template.loadFiles: "${String(p)}" is larger than ${MAX_FILE} bytes`)
    return readFileSync(path, 'utf8')
  }
  const registry: object = strict('$template', {
    addFuncs: (funcs: unknown): object => {
      if (typeof funcs !== 'object' || funcs === null || Array.isArray(funcs))
        throw new Error(
          messages.pbBadArgument({
            name: '$template.addFuncs',
            expected: 'an object of functions',
          }),
        )
      return registry
    },
    loadFiles: (...paths: unknown[]): object => {
      if (paths.length === 0) throw new Error('$template.loadFiles: no files given')
      const set: TemplateSet = new Map()
      for (const p of paths) parseInto(set, basename(String(p)), read(p))
      return renderer(set, basename(String(paths[0])))
    },
    loadString: (text: unknown): object => {
      const set: TemplateSet = new Map()
      parseInto(set, '', typeof text === 'string' ? text : goText(text ?? ''))
      return renderer(set, '')
    },
  })
  return registry
}
