/**
 * Field error entries of record values and field options: one group per field type
 * (src/core/fields), then the record write (files, primary key, uniqueness).
 */
import type { Args, Entry } from './catalogue.js'

/** Field error entries of record fields and their options. */
export const fieldCodes = {
  'validation_required:autodate': 'Either onCreate or onUpdate must be enabled.',
  validation_unsupported_value_type: 'Invalid or unsupported value type.',
  'validation_unsupported_value_type:expected': 'Must be {expected}, not {actual}.',
  'validation_unsupported_value_type:list': 'Each value must be a string, not {actual}.',
  'validation_unsupported_value_type:point': 'The point lon and lat must be finite numbers.',
  // Go's regexp error, as PocketBase shows it (no params).
  validation_invalid_regex: ({ reason }: Args<'reason'>) =>
    `Error parsing regexp: ${reason}` as const,
  // text, password
  validation_min_text_constraint: 'Must be at least {min} character(s).',
  validation_max_text_constraint: 'Must be no more than {max} character(s).',
  'validation_max_text_constraint:password': 'Must be less than {max} character(s).',
  validation_invalid_format: 'Invalid value format.',
  validation_pk_change: 'The record primary key cannot be changed.',
  validation_pk_invalid: 'The record primary key is invalid or already exists.',
  validation_reserved_pk: 'The primary key {value} is reserved.',
  validation_forbidden_pk_character: '{char} is not a valid primary key character.',
  validation_invalid_autogenerate_pattern: 'Unsupported pattern: {reason}.',
  validation_invalid_autogenerate_pattern_value:
    'The provided autogenerate pattern could produce invalid field values, ex.: {sample}.',
  // number
  validation_not_a_number: 'The submitted number is not properly formatted.',
  validation_min_number_constraint: 'Must be greater or equal than {min}.',
  validation_max_number_constraint: 'Must be less or equal than {max}.',
  // email, url
  validation_email_domain_not_allowed: 'Email domain is not allowed.',
  validation_invalid_url: 'Must be a valid url.',
  validation_url_domain_not_allowed: 'Url domain is not allowed.',
  validation_is_domain: 'Must be a valid domain ({value}).',
  // date
  validation_date_invalid: 'Must be a valid date.',
  'validation_date_invalid:actual':
    'Must be a valid date (such as 2024-01-31 12:00:00.000Z), not {actual}.',
  validation_date_out_of_range: 'The date is out of range.',
  // editor, json
  validation_content_size_limit: 'The maximum allowed content size is {maxSize} bytes.',
  validation_json_size_limit: 'The maximum allowed JSON size is {maxSize} bytes.',
  validation_json_too_deep: 'The maximum allowed JSON nesting depth is {maxDepth} levels.',
  validation_invalid_json: 'Must be a valid json value.',
  // geoPoint, vector
  validation_invalid_latitude: 'Latitude must be between -90 and 90 degrees.',
  validation_invalid_longitude: 'Longitude must be between -180 and 180 degrees.',
  validation_invalid_field_name: 'Must be a field name.',
  validation_vector_invalid: 'Must be an array of finite numbers.',
  validation_vector_dimensions: 'Must have exactly {dimensions} numbers.',
  // select, relation
  validation_too_many_values: 'Select no more than {maxSelect}.',
  // PocketBase's words: the value as sent, the period added by sentenize (after trailing spaces).
  'validation_invalid_value:item': 'Invalid value {value}',
  validation_not_enough_values: 'Select at least {minSelect}.',
  validation_missing_rel_collection: 'Relation connection is missing or cannot be accessed.',
  validation_missing_rel_records:
    'Failed to find all relation records with the provided ids (missing: {missing}).',
  validation_field_relation_missing_collection: "The relation collection doesn't exist.",
  validation_field_old_collection_id_change: 'Cannot change the relation collectionId.',
  validation_relation_field_non_view_base_collection:
    'Non view collections are not allowed to have a view relation.',
  // file
  validation_too_many_files: 'The maximum allowed files is {maxSelect}.',
  validation_invalid_file: 'Invalid new files: {invalidFiles}.',
  'validation_invalid_file:name': 'Invalid file name {file}.',
  validation_file_size_limit:
    'Failed to upload {file} - the maximum allowed file size is {maxSize} bytes.',
  validation_invalid_mime_type: 'Invalid mime type {value}.',
  'validation_invalid_mime_type:file': '"{file}" mime type must be one of: {types}.',
  'validation_invalid_mime_type:backup': ({ file }: Args<'file'>) =>
    `"${file}" mime type must be one of: application/zip.` as const,
  // backups
  validation_backup_name_exists: 'The backup file name is invalid or already exists.',
  'validation_backup_name_exists:upload': 'Backup file with the specified name already exists.',
} as const satisfies Record<string, Entry>
