/**
 * Test servers on a chosen engine, for suites that compare SQLite and PostgreSQL answers: the
 * PostgreSQL one (`SVC_TEST_PG_URL`, started by test/global-setup.ts) keeps its data in a schema
 * of its own (`SVC_DATABASE_SCHEMA=@dir`), whatever pass the suite runs in.
 */
import { startServer, type TestServer } from './server.js'

/** The test PostgreSQL's URL, or a clear error when the global setup did not start it. */
export function testPgUrl(): string {
  const url = process.env.SVC_TEST_PG_URL ?? ''
  if (!url) throw new Error('SVC_TEST_PG_URL is not set: test/global-setup.ts starts PostgreSQL')
  return url
}

/** Starts a server on SQLite (`pg` false) or on the test PostgreSQL, in a schema of its own. */
export async function startOn(pg: boolean): Promise<TestServer> {
  const saved = [process.env.SVC_DATABASE_URL, process.env.SVC_DATABASE_SCHEMA]
  if (pg) {
    process.env.SVC_DATABASE_URL = testPgUrl()
    process.env.SVC_DATABASE_SCHEMA = '@dir'
  } else {
    delete process.env.SVC_DATABASE_URL
    delete process.env.SVC_DATABASE_SCHEMA
  }
  try {
    return await startServer()
  } finally {
    restoreDbEnv(saved)
  }
}

/** Puts back `SVC_DATABASE_URL` and `SVC_DATABASE_SCHEMA` as saved (unset when undefined). */
export function restoreDbEnv(saved: readonly (string | undefined)[]): void {
  for (const [key, value] of [
    ['SVC_DATABASE_URL', saved[0]],
    ['SVC_DATABASE_SCHEMA', saved[1]],
  ] as const) {
    if (value === undefined) delete process.env[key]
    else process.env[key] = value
  }
}
