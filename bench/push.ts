/**
 * Push fan-out: a fresh svcbase process (its own data dir, trusting the local push service's
 * certificate through NODE_EXTRA_CA_CERTS) with 10 000 web subscriptions, one
 * `POST /api/push/send` to all of them, timed from the request to its `{sent, failed}` answer;
 * every message reached a local Web Push service that verified its VAPID JWT and decrypted it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import webpush from 'web-push'
import { startWebPushDouble } from '../test/helpers/web-push-double.js'
import { api, mapLimit, superuserToken } from './api.js'
import { round, type ScenarioRow } from './report.js'
import type { Context, Step } from './scenarios.js'
import { createSuperuser, startSvcbase } from './servers.js'

const SUBSCRIPTIONS = Number(process.env.BENCH_PUSH_SUBSCRIPTIONS ?? 10_000)
const SU = { email: 'push-bench@example.com', password: 'push-bench-password' }

async function fanOut(ctx: Context): Promise<ScenarioRow[]> {
  const vapid = webpush.generateVAPIDKeys()
  const double = await startWebPushDouble(() => vapid.publicKey)
  const tmp = mkdtempSync(join(tmpdir(), 'svcbase-push-bench-'))
  const certFile = join(tmp, 'push-ca.pem')
  writeFileSync(certFile, double.cert)
  const dir = join(tmp, 'data')
  createSuperuser(dir, SU.email, SU.password)
  const previous = process.env.NODE_EXTRA_CA_CERTS
  process.env.NODE_EXTRA_CA_CERTS = certFile
  const svc = await startSvcbase(dir).finally(() => {
    if (previous === undefined) delete process.env.NODE_EXTRA_CA_CERTS
    else process.env.NODE_EXTRA_CA_CERTS = previous
  })
  try {
    const token = await superuserToken(svc.url, SU)
    await api(
      svc.url,
      'PATCH',
      '/api/settings',
      {
        push: {
          allowPrivateNetworks: true,
          vapid: { enabled: true, ...vapid, subject: 'mailto:bench@example.com' },
        },
      },
      token,
    )
    const subs = Array.from({ length: SUBSCRIPTIONS }, () => double.subscribe())
    await mapLimit(subs, 16, (s, i) =>
      api(
        svc.url,
        'POST',
        '/api/collections/_push_subscriptions/records',
        { platform: 'web', recordRef: `user${i % 1000}`, endpoint: s.endpoint, keys: s.keys },
        token,
      ),
    )
    ctx.log(`  ${SUBSCRIPTIONS} web subscriptions stored; sending`)
    const rssBefore = svc.rssMb()
    const started = performance.now()
    const result = await api<{ sent: number; failed: number }>(
      svc.url,
      'POST',
      '/api/push/send',
      { title: 'Bench', body: 'A push to every subscription', data: { k: 'v' } },
      token,
    )
    const seconds = (performance.now() - started) / 1000
    const delivered = double.received.length
    const note =
      `${result.sent} sent, ${result.failed} failed in ${round(seconds)} s; ` +
      `${delivered} verified and decrypted by the local push service, ` +
      `${double.rejections.length} rejected`
    return [
      {
        name: `push fan-out to ${SUBSCRIPTIONS} web subscriptions (sends/s)`,
        reqPerSec: round(result.sent / seconds),
        p50Ms: null,
        p99Ms: null,
        errors: result.failed + double.rejections.length,
        rssMb: round(Math.max(rssBefore, svc.rssMb())),
        note,
      },
    ]
  } finally {
    await svc.stop()
    await double.close()
    rmSync(tmp, { recursive: true, force: true })
  }
}

/** The push fan-out row. */
export function pushSteps(): Step[] {
  return [{ label: 'push fan-out', run: fanOut }]
}
