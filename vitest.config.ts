import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts', 'ui/src/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/vitest.json' },
    // Starts the real S3 server (Ceph RGW) the S3 tests use; see test/global-setup.ts.
    globalSetup: ['test/global-setup.ts'],
  },
})
