/** Top-level messages of the crons API and the SQL console. */
import type { Args } from './catalogue.js'

const sqlConsole = 'The SQL console'

/** Messages of the crons API (`/api/crons`, `_cron_jobs`) and the SQL console (`/api/sql`). */
export const cronsSqlMessages = {
  // crons
  cronJobMissing: 'Missing or invalid cron job.',
  cronJobRunning: ({ id }: Args<'id'>) =>
    `The cron job ${id} is already running; try again once it has finished.` as const,
  cronJobsReadOnly:
    'The _cron_jobs records mirror the scheduler and cannot be changed through the records API.',
  // SQL console
  sqlReadOnlyPrefix:
    'With write false, the statement must start with SELECT or WITH (set write true to change data).',
  sqlDriverError: ({ reason }: Args<'reason'>) => `SQL error: ${reason}` as const,
  sqlQueryFailed: ({ reason }: Args<'reason'>) =>
    `Failed to execute query. Raw error:\n${reason}.` as const,
  sqlTimeout: ({ seconds }: Args<'seconds'>) =>
    `The SQL statement was cancelled: it ran longer than ${seconds} seconds.` as const,
  sqlBusy: `${sqlConsole} is running as many statements as it may; try again once one has finished.`,
  sqlSchemaRefused: ({ table }: Args<'table'>) =>
    `${sqlConsole} cannot change the schema of ${table}, a collection's table or one of svcbase's own: use the collections API.` as const,
  sqlRowsRefused: ({ table }: Args<'table'>) =>
    `${sqlConsole} cannot change the rows of ${table}, which svcbase keeps itself: use the collections or settings API.` as const,
  sqlFileRefused: `${sqlConsole} cannot attach databases or write database files (ATTACH, DETACH, VACUUM INTO).`,
  sqlConstructRefused: ({ what }: Args<'what'>) =>
    `${sqlConsole} does not run ${what}: it would reach outside the database or past the console's safeguards.` as const,
  sqlPragmaRefused: ({ name, allowed }: Args<'name' | 'allowed'>) =>
    `${sqlConsole} does not run PRAGMA ${name}: PRAGMAs can corrupt the database or change it for the app, so only read-only ones are allowed (an allow-list: ${allowed}).` as const,
  sqlFailed: ({ reason }: Args<'reason'>) =>
    `${sqlConsole} could not run the statement: ${reason}` as const,
} as const
