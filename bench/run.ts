/**
 * `npm run bench`: Roost's throughput as ratios to baselines measured in the same run on the same machine,
 * so the figures mean something on any hardware. Uses the real services, Postgres and Redis, like the tests.
 *
 *   BENCH_SECONDS (default 5) and BENCH_CONNECTIONS (default 20) tune each measurement.
 */
import globalSetup from '../test/global-setup'
import globalTeardown from '../test/global-teardown'
import { startStack } from '../test/stack'
import type { Throughput } from './http'
import { measure, startBaselineServer } from './http'
import { benchPush } from './push'
import { benchTokens } from './tokens'

const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 20)

function table(rows: Throughput[], baseline: Throughput) {
  console.log('\n| scenario | req/s | ratio to baseline | p99 ms | errors |')
  console.log('|---|---|---|---|---|')
  for (const r of rows)
    console.log(
      `| ${r.name} | ${r.requestsPerSecond} | ${(r.requestsPerSecond / baseline.requestsPerSecond).toFixed(2)} | ${r.p99Ms} | ${r.errors} |`,
    )
}

async function main() {
  await globalSetup()
  const stack = await startStack()
  try {
    const token = await stack.appToken('read')
    const auth = { authorization: `Bearer ${token}` }
    const sample = await stack.api().get('/api/v1/apps/verify_credentials').set(auth)
    const baselineServer = await startBaselineServer(JSON.stringify(sample.body))
    const opts = { seconds, connections }

    console.log(
      `Roost benchmarks: ${seconds} s per scenario, ${connections} connections, ${new Date().toISOString()}`,
    )
    const baseline = await measure('node http, static JSON (baseline)', baselineServer.url, opts)
    const direct = await measure(
      'accounts direct: GET /api/v1/apps/verify_credentials (JWT verify + revocation check + Postgres)',
      `${stack.accountsUrl}/api/v1/apps/verify_credentials`,
      { ...opts, headers: auth },
    )
    const viaGateway = await measure(
      'gateway → accounts: same request (second verify + scope check + proxy)',
      `${stack.url}/api/v1/apps/verify_credentials`,
      { ...opts, headers: auth },
    )
    const gatewayOnly = await measure('gateway alone: unknown route → 404 JSON', `${stack.url}/nowhere`, {
      ...opts,
      expectNon2xx: true,
    })
    table([baseline, direct, viaGateway, gatewayOnly], baseline)
    console.log(
      `\ngateway overhead: the proxied request runs at ${(viaGateway.requestsPerSecond / direct.requestsPerSecond).toFixed(2)}× the direct one`,
    )
    await baselineServer.close()

    const tokens = await benchTokens(5000)
    console.log(
      `\ntoken checks/s: full ES256 verification every time ${tokens.everyTime} (baseline), Roost's verifier ${tokens.roost}: ${(tokens.roost / tokens.everyTime).toFixed(1)}×`,
    )
    const push = await benchPush(1000)
    console.log(
      `encrypted pushes/s to a local push service: web-push as usually used ${push.naive} (baseline), Roost's sender ${push.roost}: ${(push.roost / push.naive).toFixed(2)}×`,
    )
  } finally {
    await stack.stop()
    await globalTeardown()
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err)
    process.exit(1)
  },
)
