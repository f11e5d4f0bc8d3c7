import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { mentionScene, processUrls, pushLedger, sleep, startLoad, timeToReady } from './ledger'
import { startOwnRedis } from './servers'
import { startWorkerProcesses, stopWorkerProcess } from './worker-process'
import type { WorkerProcess } from './worker-process'

// Issue #9: the stack's Redis (the test's own redis-server, append-only, fsync always) SIGKILLed while posts
// with mentions flow, and started again twice: once with its data, once empty (a replacement that lost
// everything). Meanwhile a revoked token is never accepted (the completeness marker: 503 until accounts has
// republished the list); afterwards every process is ready again by itself, and every mention is pushed once. With
// ROOST_TEST_COPIES=2, every copy of every process: the revoked token is asked of each gateway and accounts copy.
const DOWN_MS = 3000

let redis: Awaited<ReturnType<typeof startOwnRedis>>
let stack: Stack
let receiver: PushReceiver
const workers: WorkerProcess[] = []
beforeAll(async () => {
  redis = await startOwnRedis()
  stack = await startStack({ accountsWorker: false, pushWorker: false, env: { REDIS_URL: redis.url } })
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
}, 120_000)
afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGKILL')
  await stack?.stop()
  await receiver?.close()
  await redis?.remove()
})

it('Redis SIGKILLed and restarted with its data, then empty, under posts: revoked stays refused, all ready, every mention pushed once', async () => {
  const scene = await mentionScene(stack, receiver, 4)
  const ledger = pushLedger(stack, receiver, scene.recipients)
  const app = await stack.registerApp('read')
  const revoked = await stack.appToken('read', app)
  await stack
    .api()
    .post('/oauth/revoke')
    .send({ client_id: app.client_id, client_secret: app.client_secret, token: revoked })
    .expect(200)
  const accountsWorkers = await startWorkerProcesses(stack, 'accounts')
  // The push workers' claim on a job outlasts the outage (fault tests use 2 s so that a killed worker's jobs move
  // quickly): a job whose lock lapsed while Redis was down would be run again by BullMQ while its first run still
  // sends, and both runs would push (docs/security.md, "Push delivery: nothing lost, nothing twice").
  const pushWorkers = await startWorkerProcesses(stack, 'push', { PUSH_WORKER_LOCK_MS: String(DOWN_MS * 4) })
  workers.push(...accountsWorkers, ...pushWorkers)
  const processes = processUrls(stack, { accounts: accountsWorkers, push: pushWorkers })

  // The revoked token, asked every 50 ms through the gateway and straight at accounts and push.
  const revokedAnswers: number[] = []
  let probing = true
  const probe = (async () => {
    while (probing) {
      for (const base of [...stack.copies.gatewayUrls, ...stack.copies.accountsUrls])
        revokedAnswers.push(
          await fetch(`${base}/api/v1/apps/verify_credentials`, {
            headers: bearer(revoked),
            signal: AbortSignal.timeout(10_000),
          }).then(
            (r) => r.status,
            () => 0,
          ),
        )
      await sleep(50)
    }
  })()

  const load = startLoad(stack, scene, scene.token)
  const rounds: Record<string, unknown>[] = []
  /** When each Redis kill began and its restart ended: where a duplicate's pushes fall says which round made it. */
  const outages: { killedAt: number; backAt: number }[] = []
  for (const keep of [true, false]) {
    await sleep(2000)
    const killedAt = Date.now()
    await redis.kill()
    await sleep(DOWN_MS)
    await redis.start({ keep })
    outages.push({ killedAt, backAt: Date.now() })
    const ready = await timeToReady(processes)
    // Accounts makes the revocation list complete again (republished from Postgres when Redis came back empty,
    // within a second of its watchdog's noticing, not before readiness): until then the gateways refuse the token
    // with a 503 (failing closed), then with a 401; never let through.
    const listBack = Date.now()
    for (const base of stack.copies.gatewayUrls) {
      const answers: number[] = []
      const deadline = Date.now() + 30_000
      while (answers.at(-1) !== 401 && Date.now() < deadline) {
        if (answers.length) await sleep(50)
        const res = await fetch(`${base}/api/v1/apps/verify_credentials`, { headers: bearer(revoked) })
        answers.push(res.status)
      }
      expect(answers.at(-1)).toBe(401)
      expect(answers.filter((status) => status !== 503 && status !== 401)).toEqual([])
    }
    rounds.push({ data: keep ? 'kept' : 'lost', 'ms to ready': ready, 'ms to 401': Date.now() - listBack })
  }
  await sleep(2000)
  await load.stop()
  probing = false
  await probe
  await stack.drain(120_000)

  const tally = await ledger.tally()
  const figures = {
    requests: load.answers.length,
    '503s': load.answers.filter((a) => a.status === 503).length,
    problems: load.answers.filter((a) => a.problem).map((a) => `${a.what}: ${a.problem}`),
    'posts accepted': load.accepted.length,
    mentions: tally.expected,
    lost: tally.lost.length,
    duplicated: tally.duplicated.length,
    'revoked token': {
      asked: revokedAnswers.length,
      accepted: revokedAnswers.filter((s) => s === 200).length,
      '503': revokedAnswers.filter((s) => s === 503).length,
    },
    rounds,
    'duplicated pushes: ms after each kill': tally.duplicated.map((k) =>
      receiver.received
        .filter((m) => `${m.endpoint} ${m.payload.notification_id}` === k && m.status < 300)
        .map((m) => outages.map((o) => m.at - o.killedAt)),
    ),
    'outages (ms)': outages.map((o) => o.backAt - o.killedAt),
  }
  process.stdout.write(`Redis restarts: ${JSON.stringify(figures)}\n`)

  expect(revokedAnswers.filter((s) => s !== 401 && s !== 503 && s !== 0)).toEqual([])
  expect(figures.problems).toEqual([])
  expect(tally.expected).toBe(load.accepted.length * 2)
  expect(tally.lost).toEqual([])
  expect(tally.duplicated).toEqual([])
  expect(tally.unexpected).toEqual([])
  expect(receiver.problems).toEqual([])
}, 240_000)
