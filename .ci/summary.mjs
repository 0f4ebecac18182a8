/* global console */
// Prints the plain closing lines "N passed, N failed" from vitest's JSON reports: the SQLite pass
// (vitest.json) and the PostgreSQL pass (vitest-postgres.json), each when it ran, and below them
// each failed test by file and name with the first lines of its message, so the end of a CI log
// says what failed.
import { existsSync, readFileSync } from 'node:fs'

const reports = [
  ['sqlite', '.test-results/vitest.json'],
  ['postgres', '.test-results/vitest-postgres.json'],
]
for (const [name, file] of reports) {
  if (!existsSync(file)) continue
  const report = JSON.parse(readFileSync(file, 'utf8'))
  const skipped = report.numPendingTests + report.numTodoTests
  const end = Math.max(report.startTime, ...report.testResults.map((r) => r.endTime ?? 0))
  const minutes = ((end - report.startTime) / 60_000).toFixed(1)
  console.log(
    `${name}: ${report.numPassedTests} passed, ${report.numFailedTests} failed${skipped ? `, ${skipped} skipped` : ''} in ${minutes} min`,
  )
}

for (const [name, file] of reports) {
  if (!existsSync(file)) continue
  const report = JSON.parse(readFileSync(file, 'utf8'))
  for (const result of report.testResults) {
    const failed = result.assertionResults.filter((a) => a.status === 'failed')
    if (!failed.length && result.status === 'failed') {
      console.log(`${name} FAILED ${result.name}: ${String(result.message ?? '').slice(0, 400)}`)
    }
    for (const a of failed) {
      const message = (a.failureMessages ?? []).join('\n').split('\n').slice(0, 4).join('\n  ')
      console.log(`${name} FAILED ${result.name} > ${a.fullName}\n  ${message}`)
    }
  }
}
