import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { mentionScene, processUrls, pushLedger, readiness, sleep, startLoad, timeToReady } from './ledger'
import { startOwnPostgres } from './servers'
import { startWorkerProcesses, stopWorkerProcess } from './worker-process'
import type { WorkerProcess } from './worker-process'

// Issue #9: Postgres (the test's own server) stopped for 12 s under load and started again. Requests meanwhile
// answer 503 with Retry-After (never a 500, never a broken 200), readiness says so, nothing accepted is lost:
// every post that answered 200 is there and each of its mentions is pushed once; the workers (processes of
// their own) and the services resume by themselves. With ROOST_TEST_COPIES=2, every copy of every process does.
const OUTAGE_MS = 12_000

let postgres: Awaited<ReturnType<typeof startOwnPostgres>>
let stack: Stack
let receiver: PushReceiver
const workers: WorkerProcess[] = []
beforeAll(async () => {
  postgres = await startOwnPostgres()
  stack = await startStack({
    accountsWorker: false,
    pushWorker: false,
    env: { DATABASE_URL: postgres.url },
  })
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
}, 120_000)
afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGKILL')
  await stack?.stop()
  await receiver?.close()
  await postgres?.remove()
})

it('Postgres down for 12 s under load: 503s only, nothing accepted lost, every process ready again', async () => {
  const scene = await mentionScene(stack, receiver, 4)
  const ledger = pushLedger(stack, receiver, scene.recipients)
  const accountsWorkers = await startWorkerProcesses(stack, 'accounts')
  const pushWorkers = await startWorkerProcesses(stack, 'push')
  workers.push(...accountsWorkers, ...pushWorkers)
  const processes = processUrls(stack, { accounts: accountsWorkers, push: pushWorkers })
  expect(await readiness(processes)).toEqual(
    Object.fromEntries(Object.keys(processes).map((name) => [name, 200])),
  )

  const load = startLoad(stack, scene, scene.token)
  await sleep(2000)
  await postgres.stop()
  // pg_ctl stop -w returns once the server is gone; until then (spawning pg_ctl, the shutdown checkpoint: long on a
  // slow disk) requests may still be served.
  const stoppedAt = Date.now()
  await sleep(OUTAGE_MS / 2)
  const during = await readiness(processes)
  await sleep(OUTAGE_MS / 2)
  // Postgres accepts connections before pg_ctl's start returns: the outage ends when the start begins.
  const startingAt = Date.now()
  await postgres.start()
  const upAt = Date.now()
  const ready = await timeToReady(processes)
  await sleep(4000)
  await load.stop()
  await stack.drain(120_000)

  // In the outage: sent after Postgres had stopped, answered before it began to start.
  const inOutage = load.answers.filter((a) => a.sentAt > stoppedAt && a.at < startingAt)
  const statusesInOutage: Record<string, Record<number, number>> = {}
  for (const a of inOutage) {
    const byStatus = (statusesInOutage[a.what] ??= {})
    byStatus[a.status] = (byStatus[a.status] ?? 0) + 1
  }
  const tally = await ledger.tally()
  const stored: { id: string }[] = await stack.accounts.ctx
    .db('statuses')
    .whereIn('id', load.accepted)
    .select('id')
  const figures = {
    requests: load.answers.length,
    'during the outage': inOutage.length,
    'statuses during the outage': statusesInOutage,
    '503s': load.answers.filter((a) => a.status === 503).length,
    problems: load.answers.filter((a) => a.problem).map((a) => `${a.what}: ${a.problem}`),
    'posts accepted': load.accepted.length,
    'posts stored': stored.length,
    mentions: tally.expected,
    lost: tally.lost.length,
    duplicated: tally.duplicated.length,
    'readiness during the outage': during,
    'ms to ready after Postgres returned': ready,
    'pushes the receiver refused': receiver.problems,
    'pushes of unknown notifications': tally.unexpected,
  }
  process.stdout.write(`Postgres outage: ${JSON.stringify(figures)}\n`)

  expect(figures.problems).toEqual([])
  expect(inOutage.length).toBeGreaterThan(10)
  expect(inOutage.every((a) => a.status === 503)).toBe(true)
  // Every copy of what reads Postgres says it is not ready.
  for (const [name, status] of Object.entries(during))
    if (/^(accounts|push|accounts-worker|push-worker) /.test(name))
      expect([name, status]).toEqual([name, 503])
  expect(stored).toHaveLength(load.accepted.length)
  expect(tally.expected).toBe(load.accepted.length * 2)
  expect(tally.lost).toEqual([])
  expect(tally.duplicated).toEqual([])
  expect(tally.unexpected).toEqual([])
  expect(receiver.problems).toEqual([])
  // After the outage, posts are accepted again.
  expect(
    load.answers.filter(
      (a) => a.what === 'post' && a.at > upAt + Math.max(...Object.values(ready)) && a.status === 200,
    ).length,
  ).toBeGreaterThan(0)
}, 240_000)
