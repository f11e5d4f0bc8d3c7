import { randomInt } from 'node:crypto'
import fc from 'fast-check'
import { ROUTES } from '@roost/routes'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG } from '../accounts/social/helpers'
import { closeAgent, describeRequest, requestFor, send } from './requests'
import type { Fixtures, FuzzRequest, FuzzResponse } from './requests'

/**
 * Property-based fuzzing of every route of the table (read at run time, so new routes are covered without
 * touching this file): malformed paths, queries, bodies in JSON, urlencoded and multipart (and broken ones),
 * credentials and headers, sent through the gateway and straight to the route's service. The properties: no
 * answer ≥ 500, every JSON error is `{"error": "…"}`, and every process is alive and ready afterwards.
 *
 * Seeded and reproducible: the seed is printed; `FUZZ_SEED=<seed> npm test -- test/fuzz` replays the run, and
 * `FUZZ_RUNS` sets the number of requests (default 10,000). Each local run draws a new seed, so runs explore;
 * CI (`CI=true`) uses a fixed one, so that a red CI names a change of the code, never a seed's luck.
 */
const CI_SEED = 1943405110
const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : process.env.CI
    ? CI_SEED
    : randomInt(2 ** 31)
const RUNS = Number(process.env.FUZZ_RUNS ?? 10_000)
const CONCURRENCY = 8

let stack: Stack
let fixtures: Fixtures
beforeAll(async () => {
  stack = await startStack()
  fixtures = await createFixtures(stack)
}, 60_000)
afterAll(async () => {
  closeAgent()
  await stack?.stop()
})

/**
 * Real records for the generated ids to hit: a victim's statuses, media, notification, follow request and an IP
 * block. The fuzzing users' own account ids are left out, so the admin token cannot suspend its own account
 * and end the run early.
 */
async function createFixtures(stack: Stack): Promise<Fixtures> {
  const admin = await stack.createUser({ username: 'fuzzadmin', role: 'admin' })
  const adminToken = await stack.userToken('read write follow push admin:read admin:write', admin)
  const userToken = await stack.userToken('read write follow push')
  const appToken = await stack.appToken('read write push')
  const victim = await stack.createUser({ username: 'victim' })
  const victimToken = await stack.userToken('read write follow push', victim)
  const as = (token: string) => ({ ...bearer(token) })

  const status = await stack
    .api()
    .post('/api/v1/statuses')
    .set(as(victimToken))
    .send({ status: 'hello @fuzzadmin', visibility: 'direct' })
    .expect(200)
  const media = await stack
    .api()
    .post('/api/v2/media')
    .set(as(victimToken))
    .attach('file', PNG, 'pixel.png')
    .expect((res) => expect([200, 202]).toContain(res.status))
  await stack.accounts.ctx.db('accounts').where({ id: victim.accountId }).update({ locked: true })
  await stack.api().post(`/api/v1/accounts/${victim.accountId}/follow`).set(as(adminToken)).expect(200)
  await stack.api().post(`/api/v1/accounts/${admin.accountId}/follow`).set(as(victimToken)).expect(200)
  const block = await stack
    .api()
    .post('/api/v1/admin/ip_blocks')
    .set(as(adminToken))
    .send({ ip: '192.0.2.0/24', severity: 'sign_up_requires_approval' })
    .expect(200)
  await stack.drain()
  const notifications = await stack.api().get('/api/v1/notifications').set(as(adminToken)).expect(200)
  const followRequests = await stack.api().get('/api/v1/follow_requests').set(as(victimToken)).expect(200)
  const file = new URL(media.body.url as string).pathname.replace(/^\/media\//, '')
  return {
    ids: [
      victim.accountId,
      status.body.id,
      media.body.id,
      block.body.id,
      ...notifications.body.map((n: { id: string }) => n.id),
      ...followRequests.body.map((a: { id: string }) => a.id),
    ],
    files: [file, 'missing.png'],
    tokens: [adminToken, userToken, appToken, victimToken],
  }
}

/** Straight to stdout, so the seed is on screen even if the run is cut short. */
const report = (line: string) => process.stdout.write(`${line}\n`)

interface Failure {
  /** The problem, route and target: one example of each is reported. */
  kind: string
  request: string
  body: string
}

/** The properties every answer must have. */
function problemWith(res: FuzzResponse): string | undefined {
  if (res.status >= 500) return `answered ${res.status}`
  if (res.status >= 400 && res.contentType.startsWith('application/json')) {
    let parsed: unknown
    try {
      parsed = JSON.parse(res.body)
    } catch {
      return 'an error body that is not JSON'
    }
    const error = (parsed as { error?: unknown } | null)?.error
    if (typeof error !== 'string' || !error) return 'an error body without {"error": "…"}'
  }
  if (res.status >= 400 && !res.contentType.startsWith('application/json')) {
    // The OAuth authorization pages answer browsers with HTML pages, as Doorkeeper does; nothing else may.
    if (!res.contentType.startsWith('text/html')) return `an error of type ${res.contentType || 'none'}`
  }
  return undefined
}

describe('fuzzing every route of the table', () => {
  it(`answers ${RUNS} malformed requests without a 5xx, with {"error"} bodies, and stays up`, async () => {
    report(`fuzz seed ${SEED} (replay: FUZZ_SEED=${SEED} npm test -- test/fuzz), ${RUNS} requests`)
    const perRoute = Math.ceil(RUNS / ROUTES.length)
    const requests: FuzzRequest[] = ROUTES.flatMap((route, i) =>
      fc.sample(requestFor(route, fixtures), { seed: SEED + i, numRuns: perRoute }),
    )
    const services = {
      accounts: stack.accountsUrl,
      push: stack.pushUrl,
      streaming: stack.streamingUrl,
      gateway: stack.url,
    }
    const base = (r: FuzzRequest) => (r.target === 'gateway' ? stack.url : services[r.upstream])

    const failures: Failure[] = []
    const statuses = new Map<number, number>()
    let next = 0
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < requests.length) {
          const request = requests[next++]!
          const res = await send(base(request), request)
          statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
          const problem = problemWith(res)
          const kind = `${problem} (${res.status}) on ${request.route} (${request.target})`
          if (problem && !failures.some((f) => f.kind === kind))
            failures.push({ kind, request: describeRequest(request), body: res.body.slice(0, 200) })
        }
      }),
    )
    report(
      `fuzzed ${requests.length} requests over ${ROUTES.length} routes; statuses ${JSON.stringify(Object.fromEntries([...statuses].sort()))}`,
    )
    expect(failures).toEqual([])

    for (const url of [stack.url, stack.accountsUrl, stack.pushUrl, stack.pushWorker.url])
      expect((await fetch(`${url}/health/ready`)).status).toBe(200)
  }, 600_000)
})
