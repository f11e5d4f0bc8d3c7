import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { metricsCounter, startStack } from '../stack'
import type { Stack } from '../stack'
import { subscribedUser } from '../push/helpers'
import { pushLedger } from './ledger'
import { startWorkerProcesses, stopWorkerProcess } from './worker-process'
import type { WorkerProcess } from './worker-process'

// Issue #9: a push service that fails. The push worker (a process of its own) meets 500s, a 429 with
// Retry-After, answers that never come, 410 and 404, while posts mention the subscribers: it retries 5xx with
// exponential backoff from PUSH_RETRY_BASE_MS (100 ms here), waits at least Retry-After, gives up on a hung
// request after PUSH_REQUEST_TIMEOUT_MS and retries it, and deletes a subscription the push service says is gone
// (RFC 8030: 404 and 410). Every notification of a live subscription is pushed once; nothing is sent to the
// removed ones again. With ROOST_TEST_COPIES=2 two push worker processes share the jobs and their retries.
const TIMEOUT_MS = 1500
const ARRIVAL_SLACK_MS = 300
const POSTS = 3

let stack: Stack
let receiver: PushReceiver
let workers: WorkerProcess[] = []
beforeAll(async () => {
  stack = await startStack({ pushWorker: false })
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
})
afterAll(async () => {
  for (const worker of workers) await stopWorkerProcess(worker, 'SIGKILL')
  await stack.stop()
  await receiver.close()
})

it('500, 429 with Retry-After, hanging, 410 and 404: retried with backoff, timed out, removed; 0 lost, 0 duplicated', async () => {
  const failing = await subscribedUser(stack, receiver, { answers: [{ status: 500 }, { status: 503 }] })
  const limited = await subscribedUser(stack, receiver, {
    answers: [{ status: 429, headers: { 'Retry-After': '2' } }],
  })
  const hanging = await subscribedUser(stack, receiver, { answers: [{ hang: true }, { hang: true }] })
  // A subscription that is gone is gone for every message (the three may be in flight at once).
  const gone = await subscribedUser(stack, receiver, { answers: Array(POSTS).fill({ status: 410 }) })
  const unknown = await subscribedUser(stack, receiver, { answers: Array(POSTS).fill({ status: 404 }) })
  const everyone = [failing, limited, hanging, gone, unknown]
  const ledger = pushLedger(stack, receiver, [failing, limited, hanging])
  workers = await startWorkerProcesses(stack, 'push', { PUSH_REQUEST_TIMEOUT_MS: String(TIMEOUT_MS) })

  const author = await stack.createUser()
  const token = await stack.userToken('write', author)
  const post = (i: number) =>
    stack
      .api()
      .post('/api/v1/statuses')
      .set('Authorization', `Bearer ${token}`)
      .send({ status: `${everyone.map((u) => `@${u.username}`).join(' ')} ${i}` })
      .expect(200)
  for (let i = 0; i < POSTS; i++) await post(i)
  await stack.drain(60_000)
  // Once removed, a subscription is not tried again: a later mention of the two sends them nothing.
  const triedBefore = receiver.attempts.length
  await post(POSTS)
  await stack.drain(60_000)

  const tally = await ledger.tally()
  /** The tries of each notification at an endpoint, answered or hung, in order (the script goes to whichever came first). */
  const triesByNotification = (endpoint: string) => {
    const tries = [
      ...receiver.received.filter((m) => m.endpoint === endpoint),
      ...receiver.unanswered.filter((m) => m.endpoint === endpoint).map((m) => ({ ...m, status: 0 })),
    ].sort((a, b) => a.at - b.at)
    const groups = new Map<string, { status: number; at: number }[]>()
    for (const m of tries) {
      const id = String(m.payload.notification_id)
      groups.set(id, [...(groups.get(id) ?? []), { status: m.status, at: m.at }])
    }
    return [...groups.values()]
  }
  const gaps = (tries: { at: number }[]) => tries.slice(1).map((m, i) => m.at - tries[i]!.at)
  const failing5xx = triesByNotification(failing.endpoint)
  const limited429 = triesByNotification(limited.endpoint)
  const hangs = triesByNotification(hanging.endpoint)
  const figures = {
    expected: tally.expected,
    lost: tally.lost.length,
    duplicated: tally.duplicated.length,
    '5xx: statuses and waits (ms)': failing5xx.map((t) => [t.map((m) => m.status), gaps(t)]),
    '429: statuses and waits (ms)': limited429.map((t) => [t.map((m) => m.status), gaps(t)]),
    'hang (0): statuses and waits (ms)': hangs.map((t) => [t.map((m) => m.status), gaps(t)]),
  }
  process.stdout.write(`push service faults: ${JSON.stringify(figures)}\n`)

  expect(receiver.problems).toEqual([])
  expect(tally.expected).toBe(3 * (POSTS + 1))
  expect(tally.lost).toEqual([])
  expect(tally.duplicated).toEqual([])
  expect(tally.unexpected).toEqual([])
  // Each notification: failures, then one 201. The 500 and the 503 were met; every wait after a 5xx is at least
  // the backoff of its attempt (100 ms, doubling from PUSH_RETRY_BASE_MS); after the 429, at least its
  // Retry-After (2 s); after a hang, at least the request timeout, less the time the hung request took to reach
  // the receiver (its clock starts when the sender sends, the receiver logs the arrival: 56 ms apart once on a
  // loaded machine), at most ARRIVAL_SLACK_MS.
  for (const [groups, failures, wait] of [
    [failing5xx, [500, 503], (attempt: number) => 100 * 2 ** attempt],
    [limited429, [429], () => 1950],
    [hangs, [0, 0], () => TIMEOUT_MS - ARRIVAL_SLACK_MS],
  ] as const) {
    expect(groups).toHaveLength(POSTS + 1)
    for (const tries of groups) expect(tries.map((m) => m.status).slice(-1)).toEqual([201])
    expect(
      groups
        .flatMap((t) => t.slice(0, -1))
        .map((m) => m.status)
        .sort(),
    ).toEqual([...failures].sort())
    for (const tries of groups)
      gaps(tries).forEach((gap, attempt) => expect(gap).toBeGreaterThanOrEqual(wait(attempt)))
  }
  // 410 and 404: the subscription deleted (after at most one request per notification then in flight), and the
  // later notification not even tried.
  expect(receiver.attempts.length - triedBefore).toBe(3)
  for (const user of [gone, unknown]) {
    const answers = receiver.received.filter((m) => m.endpoint === user.endpoint).map((m) => m.status)
    expect(answers.length).toBeGreaterThanOrEqual(1)
    expect(answers.length).toBeLessThanOrEqual(POSTS)
    expect(new Set(answers)).toEqual(new Set([user === gone ? 410 : 404]))
    await stack
      .api()
      .get('/api/v1/push/subscription')
      .set('Authorization', `Bearer ${user.token}`)
      .expect(404)
  }
  const removed = await metricsCounter(
    workers.map((w) => w.url),
    'push_deliveries_total',
    { outcome: 'subscription_removed' },
  )
  expect(removed).toBeGreaterThanOrEqual(2)
  expect(removed).toBeLessThanOrEqual(2 * POSTS)
}, 180_000)
