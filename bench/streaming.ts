import { fork } from 'node:child_process'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { Redis } from 'ioredis'
import { WebSocket } from 'ws'
import type { BenchUser } from './fixtures'
import type { BenchStack } from './stack'
import { PORTS } from './stack'
import { percentiles, round } from './write-path'

/**
 * The streaming scenario of `npm run bench` (docs/performance.md): `clients` WebSocket clients, each with its own
 * token, subscribed to the `public` stream of one streaming process, and events published on its Redis channel,
 * measured against a bare `ws` broadcast server (bench/streaming-baseline.ts) fed from the same channel, serving
 * the same clients, in the same run: delivered events/s for a burst, p50/p99 latency at a fixed rate, and memory
 * per connection. Clients connect straight to the streaming port, as the gateway only adds its own proxy hop.
 */

/** An `update` payload the size of a rendered Status (about 1.5 KB), carrying its sequence number and send time. */
function payload(seq: number): string {
  return JSON.stringify({
    id: String(100000 + seq),
    seq,
    sent: performance.timeOrigin + performance.now(),
    content: `<p>${'streaming bench '.repeat(40)}</p>`,
    account: { id: '1', username: 'bench', acct: 'bench', display_name: 'Bench', note: 'x'.repeat(200) },
    visibility: 'public',
    media_attachments: [],
    mentions: [],
    tags: [],
  })
}

/** Resident memory of a process in KB (VmRSS). */
function rssKb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0)
}

interface Target {
  name: 'roost' | 'bare'
  pid: number
  url: string
  protocols: (user: BenchUser) => string[]
}

interface Clients {
  received: () => number
  latencies: number[]
  /** Counts from now on; `recordFrom` marks the first sequence number whose latency is recorded. */
  reset(recordFrom: number): void
  close(): Promise<void>
}

/** Opens one socket per user, `concurrency` at a time; every frame is parsed, as a client does. */
async function connect(target: Target, users: BenchUser[], concurrency = 50): Promise<Clients> {
  const sockets: WebSocket[] = []
  let received = 0
  let recordFrom = Number.POSITIVE_INFINITY
  const latencies: number[] = []
  // Counting needs no parsing (so the clients, which share the bench's process, cost little); latency needs the
  // frame and its payload parsed, as a client does.
  const onMessage = (data: Buffer) => {
    received++
    if (recordFrom === Number.POSITIVE_INFINITY) return
    const frame = JSON.parse(data.toString()) as { event?: string; payload?: string }
    if (frame.event !== 'update' || !frame.payload) return
    const status = JSON.parse(frame.payload) as { seq: number; sent: number }
    if (status.seq >= recordFrom) latencies.push(performance.timeOrigin + performance.now() - status.sent)
  }
  for (let i = 0; i < users.length; i += concurrency) {
    await Promise.all(
      users.slice(i, i + concurrency).map(
        (user) =>
          new Promise<void>((resolve, reject) => {
            const ws = new WebSocket(`${target.url}?stream=public`, target.protocols(user))
            ws.on('message', onMessage)
            ws.once('open', () => resolve())
            ws.once('error', reject)
            sockets.push(ws)
          }),
      ),
    )
  }
  return {
    received: () => received,
    latencies,
    reset(from: number) {
      received = 0
      latencies.length = 0
      recordFrom = from
    },
    async close() {
      await Promise.all(
        sockets.map(
          (ws) =>
            new Promise<void>((resolve) => {
              if (ws.readyState === ws.CLOSED) return resolve()
              ws.once('close', () => resolve())
              ws.terminate()
            }),
        ),
      )
    },
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function measure(
  target: Target,
  users: BenchUser[],
  publish: (seq: number) => Promise<unknown>,
  options: { burst: number; rate: number; seconds: number },
) {
  const clients = users.length
  let seq = 0
  /** Connects every client and publishes until each has received something (subscriptions follow the upgrade). */
  const connectAll = async () => {
    const sockets = await connect(target, users)
    const deadline = Date.now() + 60_000
    sockets.reset(Number.POSITIVE_INFINITY)
    while (sockets.received() < clients) {
      if (Date.now() > deadline) throw new Error(`${target.name}: clients did not all subscribe`)
      await publish(seq++)
      await sleep(300)
    }
    await sleep(1000) // let the warm-up events drain
    return sockets
  }
  // Memory per connection: what a second round of connections adds to RSS while a first round stays open. The
  // first round makes the process allocate what it allocates once (code, pools, buffers). Measured against RSS once
  // the first round had closed, as it was, the second round reused what the first had freed, and the figure fell
  // to about nothing, or below zero after a garbage collection.
  const held = await connectAll()
  await sleep(2000)
  const before = rssKb(target.pid)
  const sockets = await connectAll()
  const after = rssKb(target.pid)
  await held.close()

  // Burst: `burst` events published at once, until every client has them all.
  sockets.reset(Number.POSITIVE_INFINITY)
  const expected = options.burst * clients
  const start = performance.now()
  await Promise.all(Array.from({ length: options.burst }, () => publish(seq++)))
  const burstDeadline = Date.now() + 120_000
  while (sockets.received() < expected && Date.now() < burstDeadline) await sleep(5)
  const burstMs = performance.now() - start
  const delivered = sockets.received()
  await sleep(500)

  // Fixed rate: latency from publication to a client's parse.
  sockets.reset(seq)
  const events = options.rate * options.seconds
  const rateStart = performance.now()
  for (let i = 0; i < events; i++) {
    const due = rateStart + (i * 1000) / options.rate
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
    void publish(seq++)
  }
  const rateDeadline = Date.now() + 60_000
  while (sockets.received() < events * clients && Date.now() < rateDeadline) await sleep(20)
  const rateDelivered = sockets.received()
  const latency = percentiles(sockets.latencies)
  await sockets.close()
  return {
    memoryKbPerConnection: round((after - before) / clients),
    rssMbWithClients: round(after / 1024),
    burstEvents: options.burst,
    deliveredPerSecond: Math.round((delivered / burstMs) * 1000),
    burstComplete: delivered === expected,
    latencyMs: { p50: round(latency.p50), p99: round(latency.p99) },
    rateDeliveredShare: round(rateDelivered / (events * clients)),
  }
}

export async function streamingScenario(
  stack: BenchStack,
  users: BenchUser[],
  options: { burst: number; rate: number; seconds: number },
) {
  const prefix = stack.env.REDIS_PREFIX || 'roost'
  const channel = `${prefix}:timeline:public`
  const redis = new Redis(stack.redisUrl)
  const publish = (seq: number) =>
    redis.publish(channel, JSON.stringify({ event: 'update', payload: payload(seq) }))
  const streamingPid = stack.watched.find((w) => w.name === 'streaming')?.pid
  if (!streamingPid) throw new Error('the bench stack has no streaming process')

  const baselinePort = PORTS.streamingBaseline
  const baseline = fork(
    path.join(__dirname, 'streaming-baseline.ts'),
    [String(baselinePort), stack.redisUrl, channel],
    {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  )
  try {
    await new Promise<void>((resolve, reject) => {
      baseline.once('message', () => resolve())
      baseline.once('exit', (code) => reject(new Error(`the baseline server exited (${code})`)))
    })
    const roost = await measure(
      {
        name: 'roost',
        pid: streamingPid,
        url: `ws://127.0.0.1:${PORTS.streaming}/api/v1/streaming`,
        protocols: (user) => [user.token],
      },
      users,
      publish,
      options,
    )
    const bare = await measure(
      { name: 'bare', pid: baseline.pid!, url: `ws://127.0.0.1:${baselinePort}/`, protocols: () => [] },
      users,
      publish,
      options,
    )
    return {
      clients: users.length,
      rate: options.rate,
      roost,
      bare,
      deliveredRatio: round(roost.deliveredPerSecond / bare.deliveredPerSecond),
      latencyP50Ratio: round(roost.latencyMs.p50 / bare.latencyMs.p50),
      latencyP99Ratio: round(roost.latencyMs.p99 / bare.latencyMs.p99),
      memoryRatio: round(roost.memoryKbPerConnection / Math.max(bare.memoryKbPerConnection, 0.1)),
    }
  } finally {
    baseline.kill('SIGTERM')
    await redis.quit()
  }
}
