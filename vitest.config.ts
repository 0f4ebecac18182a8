import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Starts the real S3 server (Ceph RGW) the S3 tests use; see test/global-setup.ts.
    globalSetup: ['test/global-setup.ts'],
  },
})
