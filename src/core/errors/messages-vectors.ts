/**
 * Messages of auto-embedding and vector search (`features/vectors`, `nearestTo` lists; see
 * docs/vectors.md): the list parameters, the candidate and memory ceilings, and the embedding
 * provider's failures.
 */
import type { Args, Entry } from './catalogue.js'

const nearest = 'Invalid nearestTo:'
const embeddings = 'The embedding provider'

/** Top-level messages of auto-embedding and vector search. */
export const vectorsMessages = {
  nearestToMalformed: `${nearest} expected <field>:<JSON array of numbers> or <field>:<record id>.`,
  nearestToUnknownField: ({ field }: Args<'field'>) =>
    `${nearest} "${field}" is not a field of this collection.` as const,
  nearestToNotVector: ({ field }: Args<'field'>) =>
    `${nearest} "${field}" is not a vector field.` as const,
  nearestToBadJson: ({ reason }: Args<'reason'>) =>
    `${nearest} the vector is not valid JSON (${reason}).` as const,
  nearestToNotNumbers: `${nearest} the vector must be a JSON array of finite numbers (at most 3.4e38 in magnitude).`,
  nearestToDimensions: ({ field, dimensions, got }: Args<'field' | 'dimensions' | 'got'>) =>
    `${nearest} "${field}" has ${dimensions} dimensions, the vector has ${got}.` as const,
  nearestToZero: `${nearest} the vector is all zeros, so it has no direction to rank by.`,
  nearestToRecordNoVector: ({ field }: Args<'field'>) =>
    `${nearest} the record has no value in "${field}" to rank by.` as const,
  nearestLimitRange: ({ max }: Args<'max'>) =>
    `Invalid nearestLimit: it must be an integer from 1 to ${max}.` as const,
  nearestLimitAlone: 'Invalid nearestLimit: it is used only together with nearestTo.',
  nearestSortRefused:
    'Invalid sort: it cannot be combined with nearestTo (results are ordered by similarity, most similar first).',
  nearestPageRefused:
    'Invalid page: it cannot be above 1 with nearestTo (nearestLimit sets how many results come back).',
  nearestTooManyCandidates: ({ max }: Args<'max'>) =>
    `Vector search ranks at most ${max} candidate records: narrow the filter.` as const,
  nearestIndexTooLarge: ({ max }: Args<'max'>) =>
    `The vectors of this field take more than ${max} MiB of memory: vector search over it is refused.` as const,
  nearestBusy: 'Too many vector searches are waiting to be ranked: retry in a moment.',
  nearestUnavailable:
    'Vector search (nearestTo) is not available: the vectors feature is disabled on this server.',
  embeddingFailed: ({ status, detail }: Args<'status' | 'detail'>) =>
    `${embeddings} answered HTTP ${status}: ${detail}` as const,
  embeddingUnreachable: ({ reason }: Args<'reason'>) =>
    `${embeddings} could not be reached: ${reason}` as const,
  embeddingTimeout: ({ seconds }: Args<'seconds'>) =>
    `${embeddings} did not answer within ${seconds} s (settings.llm.timeout).` as const,
  embeddingInvalid: ({ reason }: Args<'reason'>) =>
    `${embeddings} sent an invalid answer: ${reason}` as const,
  embeddingSourceChanged:
    'The source text of an embedding kept changing while it was computed: retry the update.',
} as const satisfies Record<string, Entry>
