/**
 * Field error entries of collections: their input, name, fields, rules, auth options, indexes,
 * view query and import (src/core/collections).
 */
import type { Args, Entry } from './catalogue.js'

/** Field error entries of collection input, validation and import. */
export const collectionCodes = {
  // input
  'validation_invalid_value:fields': 'Must be a list of fields.',
  'validation_conflicting_values:schema':
    '"schema" and "fields" carry different changes: send one of them, or the same change in both.',
  'validation_conflicting_values:view_query':
    '"viewQuery" and "options.query" carry different changes: send one of them.',
  'validation_conflicting_values:auth': ({ key }: Args<'key'>) =>
    `"${key}" and "authOptions.${key}" carry different changes: send one of them.` as const,
  // name and type
  validation_collection_type_change: 'Collection type cannot be changed.',
  validation_collection_system_name_change: 'System collection name cannot be changed.',
  validation_collection_system_rule_change: 'System collection API rule cannot be changed.',
  validation_found_via: 'The name must not contain "_via_".',
  validation_collection_name_invalid: "The name shouldn't match with an existing internal table.",
  'validation_collection_name_invalid:reserved': 'The name is reserved.',
  validation_invalid_or_existing_id: 'The model id is invalid or already exists.',
  validation_collection_name_exists: 'Collection name must be unique (case insensitive).',
  validation_collection_name_id_duplicate: 'The name must not match an existing collection id.',
  // fields
  validation_duplicated_field_name: 'Duplicated or invalid field name {fieldName}.',
  validation_duplicated_field_id: 'Duplicated or invalid field id.',
  validation_field_type_change: 'Field type cannot be changed.',
  validation_system_field_change: 'System fields cannot be deleted or renamed.',
  validation_missing_primary_key: 'Missing or invalid "id" PK field.',
  validation_missing_password_field: 'Missing system "password" field.',
  validation_missing_tokenkey_field: 'Missing system "tokenKey" field.',
  validation_missing_email_field: 'Missing system "email" field.',
  validation_missing_emailvisibility_field: 'Missing system "emailVisibility" field.',
  validation_missing_verified_field: 'Missing system "verified" field.',
  // rules and auth options
  validation_invalid_rule: ({ problem }: Args<'problem'>) =>
    `Invalid rule. Raw error: ${problem}` as const,
  'validation_in_invalid:identity_fields': 'Every identity field must be an existing field.',
  validation_missing_field: 'Invalid or missing field {fieldName}.',
  validation_missing_unique_constraint: "The field {fieldName} doesn't have a UNIQUE constraint.",
  validation_mfa_not_enough_auths: 'MFA requires at least 2 auth methods to be enabled.',
  // indexes and views
  validation_indexes_not_supported: "View collections don't support indexes.",
  validation_invalid_index_expression: ({ reason }: Args<'reason'>) => `${reason}` as const,
  validation_duplicated_index_name: 'The index name already exists.',
  validation_existing_index_name: 'The index name is already used in {usedTableName} collection.',
  validation_invalid_view_query: ({ problem }: Args<'problem'>) =>
    `Invalid query - ${problem}` as const,
  // import
  validation_collections_import_failure: ({ name, id, detail }: Args<'name' | 'id' | 'detail'>) =>
    `Data validations failed for collection "${name}" (${id}):\n${detail}` as const,
} as const satisfies Record<string, Entry>
