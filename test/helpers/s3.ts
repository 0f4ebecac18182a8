/** The S3 settings block of the real test S3 server started by test/global-setup.ts. */
export function s3Settings(): Record<string, unknown> {
  const env = process.env
  const endpoint = env.SVC_TEST_S3_ENDPOINT
  if (!endpoint) {
    throw new Error(
      'SVC_TEST_S3_ENDPOINT is not set: the S3 test server did not start (see test/global-setup.ts)',
    )
  }
  return {
    enabled: true,
    endpoint,
    bucket: env.SVC_TEST_S3_BUCKET,
    accessKey: env.SVC_TEST_S3_ACCESS_KEY,
    secret: env.SVC_TEST_S3_SECRET,
    region: 'us-east-1',
    forcePathStyle: true,
  }
}
