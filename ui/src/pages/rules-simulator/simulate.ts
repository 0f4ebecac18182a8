/**
 * Runs a list or a view as someone else: a guest (a client with no auth) or a user (a token from
 * `POST /api/collections/{c}/impersonate/{id}`, held by a separate SDK client in memory — the
 * superuser's own auth is never touched), and explains the answer by the rule that decided it.
 */
import PocketBase, { BaseAuthStore, type CollectionModel, type RecordModel } from 'pocketbase'
import { apiBase, errorMessage, pb } from '../../api'

/** Who the request is made as. */
export type Subject = { kind: 'guest' } | { kind: 'user'; collection: string; record: RecordModel }

export type Action = 'list' | 'view'

/** How long the simulator's impersonation token lives (seconds). */
const TOKEN_SECONDS = 300
/** The records shown of a list. */
export const LIST_SIZE = 20

export interface Outcome {
  action: Action
  /** The request, as any client would send it. */
  request: string
  status: number
  /** The records the subject got (a list, or the one viewed). */
  items: RecordModel[]
  /** More records than shown exist. */
  more: boolean
  /** The rule that decided (null: superusers only). */
  rule: string | null
  /** Why the answer is what it is, in words. */
  explanation: string
  message?: string
}

/** An SDK client acting as `subject`, never the dashboard's `pb`. */
export async function clientFor(subject: Subject): Promise<PocketBase> {
  if (subject.kind === 'guest') {
    const guest = new PocketBase(apiBase, new BaseAuthStore())
    guest.autoCancellation(false)
    return guest
  }
  const client = await pb
    .collection(subject.collection)
    .impersonate(subject.record.id, TOKEN_SECONDS)
  client.autoCancellation(false)
  return client
}

function statusOf(err: unknown): number {
  return (err as { status?: number }).status ?? 0
}

/** Lists (first page) or views one record of `c` as `subject`. */
export async function simulate(
  c: CollectionModel,
  subject: Subject,
  action: Action,
  recordId: string,
): Promise<Outcome> {
  const client = await clientFor(subject)
  const who = subject.kind === 'guest' ? 'A guest' : 'This user'
  const path = `/api/collections/${encodeURIComponent(c.name)}/records`
  if (action === 'list') {
    const rule = c.listRule ?? null
    const request = `GET ${path}?perPage=${LIST_SIZE + 1}&skipTotal=1`
    try {
      const res = await client
        .collection(c.name)
        .getList(1, LIST_SIZE + 1, { skipTotal: true, requestKey: null })
      const items = res.items.slice(0, LIST_SIZE)
      const more = res.items.length > LIST_SIZE
      const explanation =
        rule === null
          ? 'Only superusers can list.'
          : rule.trim() === ''
            ? `The list rule is empty: anyone sees every record. ${who} got ${items.length}${more ? '+' : ''}.`
            : `The list rule is applied as a filter: ${who.toLowerCase()} sees only the records it matches (${items.length}${more ? '+' : ''} here). Records it does not match are left out, not refused.`
      return { action, request, status: 200, items, more, rule, explanation }
    } catch (err) {
      const status = statusOf(err)
      const explanation =
        status === 403
          ? `The list rule is "superusers only" (null): ${who.toLowerCase()} is refused with 403.`
          : `The list failed with ${status}.`
      return {
        action,
        request,
        status,
        items: [],
        more: false,
        rule,
        explanation,
        message: errorMessage(err),
      }
    }
  }
  const rule = c.viewRule ?? null
  const request = `GET ${path}/${encodeURIComponent(recordId)}`
  try {
    const record = await client.collection(c.name).getOne(recordId, { requestKey: null })
    const explanation =
      rule !== null && rule.trim() === ''
        ? 'The view rule is empty: anyone can view any record.'
        : `The view rule matches this record for ${who.toLowerCase()}.`
    return { action, request, status: 200, items: [record], more: false, rule, explanation }
  } catch (err) {
    const status = statusOf(err)
    let explanation = `The view failed with ${status}.`
    if (status === 403) {
      explanation = `The view rule is "superusers only" (null): ${who.toLowerCase()} is refused with 403.`
    } else if (status === 404) {
      const exists = await pb
        .collection(c.name)
        .getOne(recordId, { fields: 'id', requestKey: null })
        .then(
          () => true,
          () => false,
        )
      explanation = exists
        ? `The record exists, but the view rule does not match it for ${who.toLowerCase()}: the answer is 404 (not 403), so the rule does not reveal that the record exists.`
        : 'There is no record with this id in the collection (404).'
    }
    return {
      action,
      request,
      status,
      items: [],
      more: false,
      rule,
      explanation,
      message: errorMessage(err),
    }
  }
}
