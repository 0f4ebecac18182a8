/**
 * Messages of PocketBase-style `*.pb.js` hook scripts (`features/hooks/pb/`): what a script
 * written for PocketBase's JSVM meets when it reaches past the subset svcbase runs.
 */
import type { Args } from './catalogue.js'

/** Messages of the `*.pb.js` runner. */
export const pbScriptMessages = {
  pbUnsupported: ({ name }: Args<'name'>) =>
    `"${name}" is not supported in svcbase *.pb.js scripts (see docs/hook-scripts.md).` as const,
  pbOutsideHandler: ({ name }: Args<'name'>) =>
    `"${name}" runs only inside a handler (a route, a hook or a cron job), not at the top level of a *.pb.js file.` as const,
  pbNoSyncReads: ({ name }: Args<'name'>) =>
    `"${name}" needs synchronous reads, which this store does not offer; use an ES module hook script (await app.records…) with this store.` as const,
  pbBadArgument: ({ name, expected }: Args<'name' | 'expected'>) =>
    `"${name}" expects ${expected}.` as const,
  pbGuestOnly: 'The request can be accessed only by guests.',
  pbSuperuserOrOwner: 'The request requires superuser or record authorization token.',
} as const
