/** Every field type by its `type` name, in the order the dashboard lists them. */

import { autodateField } from './autodate.js'
import { boolField } from './bool.js'
import { dateField } from './date.js'
import { editorField } from './editor.js'
import { emailField } from './email.js'
import type { FieldType } from './field-type.js'
import { fileField } from './file.js'
import { geoPointField } from './geo-point.js'
import { jsonField } from './json.js'
import { numberField } from './number.js'
import { passwordField } from './password.js'
import { relationField } from './relation.js'
import { selectField } from './select.js'
import { textField } from './text.js'
import { urlField } from './url.js'
import { vectorField } from './vector.js'

/** The registered field types keyed by `type` (`text`, `number`, …, `geoPoint`, `vector`). */
export const fieldTypes: ReadonlyMap<string, FieldType> = new Map(
  [
    textField,
    editorField,
    numberField,
    boolField,
    emailField,
    urlField,
    dateField,
    autodateField,
    selectField,
    fileField,
    relationField,
    jsonField,
    geoPointField,
    passwordField,
    vectorField,
  ].map((t) => [t.type, t]),
)

/** The field type named `type`, or `undefined` for an unknown name. */
export function getFieldType(type: string): FieldType | undefined {
  return fieldTypes.get(type)
}

/** The names of all field types, in registration order (for "must be one of" messages). */
export function listFieldTypes(): string[] {
  return [...fieldTypes.keys()]
}
