import { defineConfig } from 'vitest/config'

/**
 * The PostgreSQL pass (`npm run test:postgres`): the suites below run again with every test app on
 * a real PostgreSQL. test/global-setup.ts starts the server (scripts/postgres.sh) and, because
 * `SVC_TEST_DATABASE` is `postgres`, sets `SVC_DATABASE_URL` to it and `SVC_DATABASE_SCHEMA` to
 * `@dir`: each app (CLI children included) keeps its data in a schema derived from its data folder.
 * Suites that stay out of this list:
 * - about SQLite itself: store, sql-console, sql-console-timeout, vectors-legacy,
 *   import-pocketbase (sqlite_master, PocketBase's SQLite view queries), system-upgrade and cli
 *   (`--encryptionEnv` reads data.db directly);
 * - cluster-bridge: asserts the cluster of an app alone is local, which PostgreSQL's is not;
 * - on PostgreSQL already in the SQLite pass (they mention SVC_TEST_PG_URL or start a server on
 *   each engine): postgres-filters, postgres-bytes, filter-fuzz-engines, cli-postgres, cli-copy,
 *   sql-console-postgres, multi-instance, multi-instance-apply, storage-instances,
 *   webhooks-instances, backups-restore-schema, postgres-transactions, multi-relation-index;
 * - the dashboard's browser tests (dashboard-*): they test the UI; its API calls are the suites above;
 * - not about the data: docs, error-catalogue, lint-boundaries, utils, bench, not-built,
 *   scenario-helper.
 */
process.env.SVC_TEST_DATABASE = 'postgres'

/** The suites of the PostgreSQL pass. */
export const postgresSuites = [
  'test/postgres-store.test.ts',
  'test/security-read-budget.test.ts',
  'test/security-multipart.test.ts',
  'test/collections.test.ts',
  'test/collections-shape.test.ts',
  'test/records.test.ts',
  'test/record-pipeline.test.ts',
  'test/rules-actions.test.ts',
  'test/rules-filter.test.ts',
  'test/rules-list.test.ts',
  'test/list-ties.test.ts',
  'test/list-created-index.test.ts',
  'test/auth-origin-race.test.ts',
  'test/auth-password-hashes.test.ts',
  'test/rules-request.test.ts',
  'test/rule-check.test.ts',
  'test/auth.test.ts',
  'test/auth-errors.test.ts',
  'test/batch.test.ts',
  'test/batch-limits.test.ts',
  'test/realtime.test.ts',
  'test/security-realtime-revoke.test.ts',
  'test/files.test.ts',
  'test/files-text.test.ts',
  'test/files-view.test.ts',
  'test/expand-manage.test.ts',
  'test/back-relation-length.test.ts',
  'test/settings-access.test.ts',
  'test/settings-apply.test.ts',
  'test/settings-groups.test.ts',
  'test/settings-patch.test.ts',
  'test/settings-validation.test.ts',
  'test/sdk.test.ts',
  'test/webhooks.test.ts',
  'test/settings-validation-features.test.ts',
  'test/request-budgets-expand.test.ts',
  'test/request-budgets-expand-paths.test.ts',
  'test/hidden-sort.test.ts',
  'test/field-errors.test.ts',
  'test/write-only-fields.test.ts',
  'test/oauth2.test.ts',
  'test/oauth2-sdk.test.ts',
  'test/teams-sdk.test.ts',
  'test/schema-apply.test.ts',
  'test/hooks-events.test.ts',
  'test/concurrency.test.ts',
  'test/hook-scripts.test.ts',
  'test/lifecycle.test.ts',
  'test/errors-and-setup.test.ts',
  'test/storage-browser.test.ts',
  'test/mail.test.ts',
  'test/backups-api.test.ts',
  'test/backups-restore.test.ts',
  'test/backups-auto.test.ts',
  'test/backups-cli.test.ts',
  'test/backups-s3.test.ts',
  'test/backups-sdk.test.ts',
  'test/audit.test.ts',
  'test/vectors.test.ts',
  'test/vectors-embedding.test.ts',
  'test/crons-api.test.ts',
  'test/crons-hooks.test.ts',
  'test/crons-jobs-table.test.ts',
  'test/webhooks-crash.test.ts',
  'test/cli-schema.test.ts',
  'test/logs.test.ts',
  'test/payments-webhook.test.ts',
  'test/payments-webhook-scripts.test.ts',
  'test/push.test.ts',
  'test/push-apns.test.ts',
  'test/push-fcm.test.ts',
  'test/push-apns-e2e.test.ts',
  'test/sms.test.ts',
  'test/teams.test.ts',
  'test/llm.test.ts',
  'test/llm-sdk.test.ts',
  'test/llm-shutdown.test.ts',
  'test/mcp-http.test.ts',
  'test/mcp-sdk.test.ts',
  'test/mcp-tool-schema.test.ts',
  'test/mcp-inspector.test.ts',
  'test/api-keys.test.ts',
  'test/rate-limit.test.ts',
  'test/filter-fuzz-deep-json.test.ts',
  'test/filter-fuzz-expand.test.ts',
  'test/filter-fuzz-http.test.ts',
  'test/filter-fuzz-laws.test.ts',
  'test/files-large.test.ts',
  'test/typegen.test.ts',
  'test/hook-families.test.ts',
  'test/static.test.ts',
  'test/oauth2-config.test.ts',
  'test/metrics.test.ts',
  'test/superuser-ips.test.ts',
  'test/hook-scripts-pipeline.test.ts',
  'test/keep-alive.test.ts',
  'test/hook-scripts-failures.test.ts',
  'test/hook-scripts-reload.test.ts',
  'test/request-budgets-parsers.test.ts',
  'test/request-budgets-json-depth.test.ts',
  'test/hook-scripts-patterns.test.ts',
  'test/hook-scripts-pb.test.ts',
  'test/hook-scripts-pb-store.test.ts',
  'test/hook-scripts-pb-semantics.test.ts',
  'test/hook-scripts-pb-transactions.test.ts',
  'test/services.test.ts',
  'test/server-close.test.ts',
  'test/close-process.test.ts',
  'test/apple-secret.test.ts',
  'test/features.test.ts',
  'test/workers.test.ts',
  'test/workers-push.test.ts',
  'test/security-outbound-push.test.ts',
  'test/security-outbound-mcp.test.ts',
  'test/security-accounts-tokens.test.ts',
  'test/security-accounts-oauth2.test.ts',
  'test/pocketbase-differential.test.ts',
  'test/migrations-pb.test.ts',
  'test/cli-migrate.test.ts',
  'test/migrations-automigrate.test.ts',
  'test/hook-scripts-pb-auth.test.ts',
  'test/hook-scripts-pb-mails.test.ts',
  'test/hook-scripts-pb-dbx.test.ts',
  'test/hook-scripts-pb-ranking.test.ts',
]

/**
 * `SVC_PG_TRY=test/a.test.ts,test/b.test.ts` runs those files on PostgreSQL instead of the list
 * (to try a suite before adding it); unset, the run is the list above.
 */
const tried = process.env.SVC_PG_TRY?.split(',').filter(Boolean)

export default defineConfig({
  test: {
    include: tried?.length ? tried : postgresSuites,
    // NB: twice the SQLite pass's: a query costs a network round trip here, and the filter fuzz
    // runs thousands of them in one test.
    testTimeout: 60_000,
    hookTimeout: 30_000,
    pool: 'forks',
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/vitest-postgres.json' },
    globalSetup: ['test/global-setup.ts'],
  },
})
