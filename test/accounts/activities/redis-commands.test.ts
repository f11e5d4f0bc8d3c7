import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bullPrefix, CONSUMERS, pendingJobs } from '@roost/events'
import type { QueueName } from '@roost/events'
import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { bearer, eventually, startStack } from '../../stack'
import type { Stack } from '../../stack'
import { subscribedUser } from '../../push/helpers'

/**
 * What a post with one mention costs in Redis, over every process (docs/performance.md, "Redis commands per post"):
 * the mentioned user has a push subscription, so the post goes through the gateway, the outbox and its relay, the
 * activities queue, the notification's outbox row and relay, the notifications queue and the push worker, which
 * delivers it. Counted with MONITOR: the commands that name the stack's key prefix (other tests share the Redis),
 * leaving out this test's own connection, which waits for the pipeline to be quiet. The commands Redis runs inside
 * scripts (BullMQ's, the feeds') are counted apart: they cost Redis, not the processes a round trip.
 */
const POSTS = 10
/**
 * Posts one at a time: 24 commands per post (docs/performance.md lists them), 14 of them BullMQ's for the post's
 * two jobs; about 117 inside scripts. Some room: when a worker's blocking read wakes varies with timing, and on a
 * loaded machine the idle commands taken away are an estimate (21.3–25.1 and 101–122 measured).
 */
const ONE_AT_A_TIME = { commands: 26, scriptCommands: 130 }
/**
 * The same posts sent at once: when the relay publishes several in one batch, the workers fetch ahead. On a loaded
 * machine the requests' commits come apart and each post is still a batch of its own: 20.8–24.9 and 98–121, as
 * one at a time.
 */
const AT_ONCE = ONE_AT_A_TIME
/**
 * The same posts made while the relay waits, as under load: the relay publishes their ten activities as one
 * `activities.batch` job, whose notifications commit together and go out in a few push jobs. 11.7–13.9 commands
 * and 27–38 in scripts per post; 14.4–15.4 and 66–76 when each activity was a job of its own.
 */
const ONE_BATCH = { commands: 15, scriptCommands: 45 }

let stack: Stack
let receiver: PushReceiver
let waiter: Redis
let queues: { name: QueueName; queue: Queue }[]
let owner: Awaited<ReturnType<typeof subscribedUser>>
let token: string
let posted = 0
beforeAll(async () => {
  stack = await startStack()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  waiter = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
  const prefix = bullPrefix(stack.env.REDIS_PREFIX!)
  queues = Object.values(CONSUMERS)
    .flat()
    .map((name) => ({ name, queue: new Queue(name, { connection: waiter, prefix }) }))
  owner = await subscribedUser(stack, receiver)
  const poster = await stack.createUser({ username: 'poster' })
  token = await stack.userToken('read write', poster)
  // Warm up: the queues, the scripts and the processes' caches exist before anything is counted.
  await post()
  await receiver.waitFor(() => receiver.messagesFor(owner.endpoint).length === 1, 30_000)
  await stack.drain()
}, 60_000)
afterAll(async () => {
  for (const { queue } of queues ?? []) await queue.close()
  await waiter?.quit()
  await stack?.stop()
  await receiver?.close()
})

async function post() {
  const n = ++posted
  await stack
    .api()
    .post('/api/v1/statuses')
    .set(bearer(token))
    .send({ status: `@${owner.username} hello ${n}` })
    .expect(200)
}

/** Quiet: the outbox published and no job to be done now, twice in a row (stack.drain(), without its relay flush). */
async function quiet() {
  for (let quietCounts = 0; quietCounts < 2;) {
    const [outbox] = await stack.accounts.ctx.db('outbox').whereNull('published_at').count('* as n')
    let pending = Number(outbox!.n)
    for (const { name, queue } of queues) pending += await pendingJobs(queue, name)
    quietCounts = pending ? 0 : quietCounts + 1
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

/** The commands per post that `send` sets off, until every push is delivered and the pipeline is quiet. */
async function commandsOf(send: () => Promise<void>) {
  const prefix = stack.env.REDIS_PREFIX!
  const ownAddress = /addr=(\S+)/.exec(String(await waiter.client('INFO')))![1]
  const commands: Record<string, number> = {}
  const scriptCommands: Record<string, number> = {}
  const pushesBefore = receiver.messagesFor(owner.endpoint).length
  /**
   * MONITOR lines that arrive while ioredis does not hold the connection for monitoring (in the same read as
   * Redis's OK to MONITOR, before ioredis marks it; on their way when it disconnects) are replies nobody asked for
   * to it, reported as 'error' events: no failure of what is counted. Any other error is.
   */
  let monitorError: Error | undefined
  const monitor = new Redis(stack.env.REDIS_URL!, { monitor: true, lazyConnect: true })
  monitor.on('error', (err: Error) => {
    if (!err.message.startsWith('Command queue state error')) monitorError ??= err
  })
  const monitoring = new Promise((resolve) => monitor.once('monitoring', resolve))
  await monitor.connect()
  await monitoring
  // A script's commands follow the command that ran it (Redis runs one command at a time).
  let caller = ''
  /**
   * While `idle` holds maps, commands go there: what the processes send with nothing to do (blocking reads timing
   * out, stalled-job checks), counted for as long as the posts took and taken away, so that a slow machine, on
   * which the posts take longer, does not count more per post.
   */
  let idle: { commands: Record<string, number>; scriptCommands: Record<string, number> } | undefined
  monitor.on('monitor', (_time: string, args: string[], source: string) => {
    if (source !== 'lua') caller = source
    if (caller === ownAddress || !args.some((a) => a.includes(prefix))) return
    // A command and its key, the numbers in it left out: `exists P:subscribed:timeline:N`.
    const key = (args[0]!.toLowerCase() === 'evalsha' ? args[3] : args[1]) ?? ''
    const what = `${args[0]!.toLowerCase()} ${key.replace(prefix, 'P').replace(/\d+/g, 'N')}`
    const counts =
      source === 'lua' ? (idle ?? { scriptCommands }).scriptCommands : (idle ?? { commands }).commands
    counts[what] = (counts[what] ?? 0) + 1
  })
  try {
    const started = Date.now()
    await send()
    await eventually(async () => receiver.messagesFor(owner.endpoint).length === pushesBefore + POSTS, 60_000)
    await quiet()
    idle = { commands: {}, scriptCommands: {} }
    await new Promise((resolve) => setTimeout(resolve, Math.min(Date.now() - started, 30_000)))
  } finally {
    monitor.removeAllListeners('monitor')
    monitor.disconnect()
  }
  if (monitorError) throw monitorError
  for (const [counts, idleCounts] of [
    [commands, idle!.commands],
    [scriptCommands, idle!.scriptCommands],
  ] as const)
    for (const [what, n] of Object.entries(idleCounts)) {
      counts[what] = Math.max(0, (counts[what] ?? 0) - n)
      if (!counts[what]) delete counts[what]
    }
  const perPost = (counts: Record<string, number>) => {
    const sorted = Object.entries(counts).sort(([, a], [, b]) => b - a)
    return {
      total: sorted.reduce((sum, [, n]) => sum + n, 0) / POSTS,
      byCommand: Object.fromEntries(sorted.map(([name, n]) => [name, n / POSTS])),
    }
  }
  return { commands: perPost(commands), scriptCommands: perPost(scriptCommands) }
}

/** Fails with every command counted, for whoever changes the number. */
function withinBudget(counted: Awaited<ReturnType<typeof commandsOf>>, budget: typeof ONE_AT_A_TIME) {
  if (counted.commands.total > budget.commands || counted.scriptCommands.total > budget.scriptCommands)
    throw new Error(`over ${JSON.stringify(budget)} per post:\n${JSON.stringify(counted, null, 2)}`)
}

it(`a post with one mention, pushed, costs at most ${ONE_AT_A_TIME.commands} Redis commands`, async () => {
  const counted = await commandsOf(async () => {
    for (let i = 0; i < POSTS; i++) await post()
  })
  // Every process's commands are counted: the accounts worker's
  // jobs and feed script, the push worker's claims (one per fan-out job, which may hold two posts' notifications).
  // (With copies of the processes, a copy's first run of a script may be an EVAL, not counted under EVALSHA.)
  expect(counted.commands.byCommand).toMatchObject({
    'evalsha {P}:activities:wait': expect.any(Number),
    'evalsha P:feed:{home:N}': expect.any(Number),
    'evalsha {P}:notifications:wait': expect.any(Number),
    'evalsha P:push-claim:N-N': expect.any(Number),
  })
  withinBudget(counted, ONE_AT_A_TIME)
}, 120_000)

it(`${POSTS} such posts sent at once cost at most ${AT_ONCE.commands} Redis commands each`, async () => {
  const counted = await commandsOf(async () => {
    await Promise.all(Array.from({ length: POSTS }, () => post()))
  })
  withinBudget(counted, AT_ONCE)
}, 120_000)

it(`${POSTS} such posts in one relay batch cost at most ${ONE_BATCH.commands} Redis commands each`, async () => {
  await stack.stopRelays()
  const counted = await commandsOf(async () => {
    try {
      for (let i = 0; i < POSTS; i++) await post()
    } finally {
      stack.startRelays()
    }
  })
  // One job added to the activities queue for the ten posts (each add increments the queue's id counter).
  expect(counted.scriptCommands.byCommand['incr {P}:activities:id']).toBe(1 / POSTS)
  withinBudget(counted, ONE_BATCH)
}, 120_000)
