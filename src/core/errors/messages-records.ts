/**
 * Top-level messages of records (writes, list queries, filters, expand) and collections (save,
 * delete, truncate, import).
 */
import type { Args, Entry } from './catalogue.js'

/** Messages of the records and collections APIs. */
export const recordMessages = {
  // the read budget (docs/security.md)
  readTimedOut: ({ ms }: Args<'ms'>) =>
    `A database read of this request took longer than the read budget of ${ms} ms and was stopped.` as const,
  filterTimedOut: ({ ms }: Args<'ms'>) =>
    `The filter or sort took longer than the read budget of ${ms} ms to run and was stopped; narrow it down.` as const,
  readsBusy: 'The server is busy with slow reads; try again shortly.',
  // record writes
  missingCollectionContext: 'Missing collection context.',
  unsupportedCollectionType: 'Unsupported collection type.',
  recordCreateFailed: 'Failed to create record.',
  recordUpdateFailed: 'Failed to update record.',
  recordDeleteBlocked:
    'Failed to delete record. Make sure that the record is not part of a required relation reference.',
  truncateFailed:
    'Failed to truncate collection (most likely due to required cascade delete record references).',
  // list queries and rules
  onlySuperusers: 'Only superusers can perform this action.',
  filterByRequestForbidden: 'Only superusers can filter by @request.',
  filterByCollectionForbidden: 'Only superusers can filter by @collection.',
  invalidFilter: ({ reason }: Args<'reason'>) => `Invalid filter: ${reason}` as const,
  invalidSort: ({ reason }: Args<'reason'>) => `Invalid sort: ${reason}` as const,
  // the dashboard's syntax check (POST /api/collections/meta/check-filter)
  invalidRule: ({ reason }: Args<'reason'>) => `Invalid rule: ${reason}` as const,
  checkFilterBadInput: ({ name, expected }: Args<'name' | 'expected'>) =>
    `Invalid "${name}": expected ${expected}.` as const,
  queryNotInteger: ({ name }: Args<'name'>) =>
    `Invalid "${name}" value: expected an integer.` as const,
  queryTooLarge: ({ name, max }: Args<'name' | 'max'>) =>
    `Invalid "${name}" value: must be at most ${max}.` as const,
  skipTotalNotBoolean: 'Invalid "skipTotal" value: expected a boolean.',
  // expand
  expandLimit: ({ paths, max }: Args<'paths' | 'max'>) =>
    `Expand limit exceeded: expanding ${paths} would put more than ${max} expanded records in the response. Expand fewer or shallower relations, or ask for fewer records per page.` as const,
  // collections
  collectionLoadFailed: 'Failed to load the collection type data due to invalid formatting.',
  collectionCreateFailed: 'Failed to create collection.',
  collectionUpdateFailed: 'Failed to update collection.',
  collectionDeleteFailed: 'Failed to delete collection.',
  collectionSaveRawError: ({ message, raw }: Args<'message' | 'raw'>) =>
    `${message} Raw error: ${raw}` as const,
  collectionReferenced: ({ names }: Args<'names'>) =>
    `Failed to delete collection probably due to existing reference in ${names}.` as const,
  collectionViewBroken: ({ name }: Args<'name'>) =>
    `Failed to change collection probably due to existing reference in ${name}.` as const,
  viewNotTruncatable:
    "View collections cannot be truncated since they don't store their own records.",
  patternBusy:
    'Too many long values are being checked against field patterns right now: retry in a moment.',
  importFailed: 'Failed to import collections.',
  importListedTwice: 'The collection is listed more than once.',
  importRawError: ({ raw }: Args<'raw'>) => `Raw error: ${raw}` as const,
  importViewBroken: ({ name, problem }: Args<'name' | 'problem'>) =>
    `Failed to change collection probably due to existing reference in ${name}: ${problem}` as const,
} as const satisfies Record<string, Entry>
