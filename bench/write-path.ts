import webpush from 'web-push'
import autocannon from 'autocannon'
import { createSubscriberKeys } from '@roost/testing'
import type { BenchUser, Fixtures, PushSink } from './fixtures'
import { call } from './fixtures'
import { cpuBetween, cpuReading } from './procstat'
import type { BenchStack } from './stack'

/**
 * The physical limit of the push pipeline: encrypting one message (web-push's `generateRequestDetails`, aes128gcm,
 * with the VAPID header computed once and reused, as Roost's sender does), on one core. Timed in CPU time, so
 * other load on the machine barely moves it.
 */
export function encryptionCeiling(seconds: number) {
  const vapid = webpush.generateVAPIDKeys()
  const keys = createSubscriberKeys()
  const endpoint = 'https://push.example/abc'
  const auth = webpush.getVapidHeaders(
    'https://push.example',
    'mailto:bench@example.test',
    vapid.publicKey,
    vapid.privateKey,
    'aes128gcm',
  ) as Record<string, string>
  const payload = JSON.stringify({
    access_token: 'x'.repeat(300),
    preferred_locale: 'en',
    notification_id: 123456,
    notification_type: 'mention',
    icon: 'https://roost.example/avatars/original/missing.png',
    title: 'Someone mentioned you',
    body: 'x'.repeat(120),
  })
  const once = () =>
    webpush.generateRequestDetails({ endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth } }, payload, {
      vapidDetails: null,
      TTL: 172800,
      contentEncoding: 'aes128gcm',
      headers: { Authorization: auth.Authorization! },
    } as unknown as webpush.RequestOptions)
  for (let i = 0; i < 200; i++) once() // warm up
  const started = process.cpuUsage()
  const wall = performance.now()
  let n = 0
  while (performance.now() - wall < seconds * 1000) {
    for (let i = 0; i < 50; i++) once()
    n += 50
  }
  const used = process.cpuUsage(started)
  const cpuMsPerMessage = (used.user + used.system) / 1000 / n
  return { messages: n, cpuMsPerMessage, perSecondOneCore: Math.round(1000 / cpuMsPerMessage) }
}

/** Waits until the activities pipeline is quiet: outbox published, queues empty (polls, 100 ms apart). */
export async function settle(fixtures: Fixtures, stack: BenchStack, timeoutMs = 120_000) {
  const { Redis } = await import('ioredis')
  const redis = new Redis(stack.redisUrl)
  const prefix = `{${stack.env.REDIS_PREFIX ?? 'roost'}}`
  const deadline = Date.now() + timeoutMs
  const keys = ['activities', 'notifications', 'push-deliveries'].flatMap((queue) =>
    ['wait', 'active', 'delayed', 'prioritized'].map((state) => `${prefix}:${queue}:${state}`),
  )
  // Lists (wait, active) and sorted sets (delayed, prioritized) alike, in one round trip.
  const LENGTH = `local n = 0
for _, key in ipairs(KEYS) do
  local t = redis.call('TYPE', key).ok
  if t == 'list' then n = n + redis.call('LLEN', key) elseif t == 'zset' then n = n + redis.call('ZCARD', key) end
end
return n`
  try {
    for (;;) {
      const [outbox] = await fixtures.db('outbox').whereNull('published_at').count('* as n')
      const pending = Number(outbox!.n) + Number(await redis.eval(LENGTH, keys.length, ...keys))
      if (!pending) return
      if (Date.now() > deadline) throw new Error(`the pipeline did not settle: ${pending} pending`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  } finally {
    redis.disconnect()
  }
}

const mentionText = (targets: BenchUser[]) =>
  `${targets.map((t) => `@${t.username}`).join(' ')} a bench post with some text in it`.trim()

/**
 * Posts/s through the gateway with `mentions` mentions per post (closed loop, `connections` at once, each
 * connection posting as its own author), then the CPU every server process used for them — the posting window
 * and the pipeline's work that follows (notifications, pushes), until it is quiet — per post.
 */
export async function postingScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  sink: PushSink,
  o: {
    authors: BenchUser[]
    targets: BenchUser[]
    mentions: number
    seconds: number
    connections: number
    idle: Record<string, number>
  },
) {
  await settle(fixtures, stack)
  sink.reset()
  let next = 0
  const bodies = Array.from({ length: 64 }, (_, i) =>
    JSON.stringify({
      status: mentionText(
        Array.from({ length: o.mentions }, (_, k) => o.targets[(i * o.mentions + k) % o.targets.length]!),
      ),
    }),
  )
  const [{ max: lastBefore }] = await fixtures.db('statuses').max('id as max')
  const cpuBefore = cpuReading(stack.watched)
  const started = performance.now()
  const result = await autocannon({
    url: `${stack.gatewayUrl}/api/v1/statuses`,
    method: 'POST',
    connections: o.connections,
    duration: o.seconds,
    headers: { 'content-type': 'application/json' },
    requests: [
      {
        setupRequest: (req) => {
          const n = next++
          return {
            ...req,
            headers: {
              ...req.headers,
              authorization: `Bearer ${o.authors[n % o.authors.length]!.token}`,
            },
            body: bodies[n % bodies.length],
          }
        },
      },
    ],
  })
  const postedIn = (performance.now() - started) / 1000
  await settle(fixtures, stack)
  // Every status made, also those whose answer came after autocannon's window closed (they cost CPU too).
  const [{ n: made }] = await fixtures
    .db('statuses')
    .where('id', '>', lastBefore ?? 0)
    .count('* as n')
  const posts = Number(made)
  const expected = posts * o.mentions
  if (expected) await sink.until(expected, 120_000)
  const cpu = cpuBetween(cpuBefore, cpuReading(stack.watched), o.idle)
  return {
    mentions: o.mentions,
    connections: o.connections,
    posts,
    errors: result.errors + result.non2xx,
    postsPerSecond: Math.round(result['2xx'] / postedIn),
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    deliveries: sink.count,
    cpuMsPerPost: round(cpu.total! / Math.max(posts, 1)),
    cpuMsPerPostByProcess: Object.fromEntries(
      Object.entries(cpu)
        .filter(([k]) => k !== 'total')
        .map(([k, v]) => [k, round(v / Math.max(posts, 1))]),
    ),
  }
}

/**
 * End-to-end push throughput: `posts` posts with 10 mentions each (every mentioned account has a push
 * subscription), sent as fast as the gateway takes them; deliveries/s from the first post to the last push
 * arriving, and the CPU of every server process per delivered push over that time.
 */
export async function fanOutScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  sink: PushSink,
  o: {
    authors: BenchUser[]
    targets: BenchUser[]
    posts: number
    connections: number
    idle: Record<string, number>
  },
) {
  await settle(fixtures, stack)
  sink.reset()
  const fanOut = 10
  const cpuBefore = cpuReading(stack.watched)
  const started = performance.now()
  let sent = 0
  let failed = 0
  await Promise.all(
    Array.from({ length: o.connections }, async () => {
      for (;;) {
        const n = sent++
        if (n >= o.posts) return
        const targets = Array.from(
          { length: fanOut },
          (_, k) => o.targets[(n * fanOut + k) % o.targets.length]!,
        )
        const res = await call(
          `${stack.gatewayUrl}/api/v1/statuses`,
          'POST',
          o.authors[n % o.authors.length]!.token,
          { status: mentionText(targets) },
        )
        if (res.status !== 200) failed++
      }
    }),
  )
  const postedIn = (performance.now() - started) / 1000
  const expected = (o.posts - failed) * fanOut
  await sink.until(expected, 300_000)
  const elapsed = (performance.now() - started) / 1000
  const cpu = cpuBetween(cpuBefore, cpuReading(stack.watched), o.idle)
  return {
    posts: o.posts,
    failed,
    fanOut,
    deliveries: sink.count,
    postsPerSecond: Math.round(o.posts / postedIn),
    deliveriesPerSecond: Math.round(sink.count / elapsed),
    seconds: round(elapsed),
    cpuMsPerDelivery: round(cpu.total! / Math.max(sink.count, 1)),
    cpuMsPerDeliveryByProcess: Object.fromEntries(
      Object.entries(cpu)
        .filter(([k]) => k !== 'total')
        .map(([k, v]) => [k, round(v / Math.max(sink.count, 1))]),
    ),
  }
}

/**
 * Event → push latency at a fixed rate (open loop: a post every 1000/rate ms whatever the answers), one mention
 * per post, each post mentioning the next of `targets` in turn. The event is the moment the post is sent (the status
 * is created during the request, so this counts the request too); a target's pushes are matched to its posts in
 * order.
 */
export async function latencyScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  sink: PushSink,
  o: { authors: BenchUser[]; targets: BenchUser[]; rate: number; seconds: number },
) {
  await settle(fixtures, stack)
  sink.reset()
  const sent = new Map<string, number[]>()
  const answered = new Map<string, number[]>()
  const total = o.rate * o.seconds
  const interval = 1000 / o.rate
  const started = performance.now()
  const requests: Promise<void>[] = []
  const requestMs: number[] = []
  let failed = 0
  const record = (map: Map<string, number[]>, name: string, at: number) => {
    let list = map.get(name)
    if (!list) map.set(name, (list = []))
    list.push(at)
  }
  for (let n = 0; n < total; n++) {
    const due = started + n * interval
    const wait = due - performance.now()
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait))
    const target = o.targets[n % o.targets.length]!
    const sentAt = performance.now()
    requests.push(
      call(`${stack.gatewayUrl}/api/v1/statuses`, 'POST', o.authors[n % o.authors.length]!.token, {
        status: mentionText([target]),
      }).then((res) => {
        const at = performance.now()
        requestMs.push(at - sentAt)
        if (res.status !== 200) {
          failed++
          return
        }
        record(sent, target.username, sentAt)
        record(answered, target.username, at)
      }),
    )
  }
  await Promise.all(requests)
  const sendSeconds = (performance.now() - started) / 1000
  await sink.until(total - failed, 120_000)
  /** Each target's pushes matched in order to its posts' times in `events`. */
  const latencies = (events: Map<string, number[]>) => {
    const out: number[] = []
    for (const [name, times] of events) {
      const arrivals = [...(sink.arrivals.get(name) ?? [])].sort((a, b) => a - b)
      ;[...times]
        .sort((a, b) => a - b)
        .forEach((t, i) => {
          if (arrivals[i] !== undefined) out.push(Math.max(0, arrivals[i]! - t))
        })
    }
    return out
  }
  return {
    targetRate: o.rate,
    achievedRate: Math.round(total / sendSeconds),
    posts: total,
    failed,
    /** From the moment the post was sent (the status is created during the request): what a reader sees. */
    eventToPushMs: percentiles(latencies(sent)),
    /** From the moment its 200 arrived (a push may beat the answer: 0). */
    answerToPushMs: percentiles(latencies(answered)),
    requestMs: percentiles(requestMs),
  }
}

export function percentiles(values: number[]) {
  const sorted = [...values].sort((a, b) => a - b)
  const at = (p: number) =>
    round(sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0)
  return { p50: at(50), p90: at(90), p99: at(99), max: round(sorted.at(-1) ?? 0), n: sorted.length }
}

export const round = (n: number) => Math.round(n * 100) / 100

export { call }
