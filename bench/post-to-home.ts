import type { BenchUser, Fixtures } from './fixtures'
import { call } from './fixtures'
import type { BenchStack } from './stack'
import { percentiles, round, settle } from './write-path'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** How a follower's reads went while it looked for one post. */
interface Looked {
  /** From the POST's answer to the answer of the first home read holding the post; undefined: not within the timeout. */
  ms: number | undefined
  reads: number
  /** The post was not on the first page because newer posts filled it: found with `max_id` instead. */
  belowFirstPage: boolean
}

/**
 * Post → home latency (issue #31): an author followed by `active` local followers, who each read their home
 * timeline once first (their feeds exist, as an active user's do), and by `newcomer`, a user who follows the author
 * and has never read home (no feed in Redis: its first read builds it). The author posts at `rate` posts/s (open
 * loop, `rate × seconds` posts) through the gateway; as each POST answers, the next follower in turn (the newcomer
 * among them) reads `GET /api/v1/timelines/home?limit=<limit>` through the gateway every `pollMs` ms until the
 * page holds the new status, for at most `timeoutMs`. The latency of a post is from its POST's answer to the
 * answer of that first page holding it, so it includes one home read: the reads' own round trip is reported beside
 * it (the resolution of the figure). Baseline, in the same run: the POST's own round trip, for the same posts.
 */
export async function postToHomeScenario(
  stack: BenchStack,
  fixtures: Fixtures,
  o: {
    author: BenchUser
    active: BenchUser[]
    newcomer: BenchUser
    rate: number
    seconds: number
    limit?: number
    pollMs?: number
    timeoutMs?: number
  },
) {
  const limit = o.limit ?? 5
  const pollMs = o.pollMs ?? 5
  const timeoutMs = o.timeoutMs ?? 10_000
  const home = `${stack.gatewayUrl}/api/v1/timelines/home`
  const followers = [...o.active, o.newcomer]
  for (const follower of followers) {
    const res = await call(
      `${stack.gatewayUrl}/api/v1/accounts/${o.author.accountId}/follow`,
      'POST',
      follower.token,
    )
    if (res.status !== 200) throw new Error(`follow: ${res.status} ${JSON.stringify(res.body)}`)
  }
  // The active followers have read home before (their feeds exist); the newcomer never has.
  for (const follower of o.active) {
    const res = await call(`${home}?limit=${limit}`, 'GET', follower.token)
    if (res.status !== 200 && res.status !== 206) throw new Error(`GET home: ${res.status}`)
  }
  await settle(fixtures, stack)

  const readMs: number[] = []
  const readStatuses: Record<string, number> = {}
  let newcomerFirstRead: { status: number; ms: number; heldThePost: boolean } | undefined
  const read = async (follower: BenchUser, query: string) => {
    const sentAt = performance.now()
    const res = await call(`${home}?${query}`, 'GET', follower.token)
    const at = performance.now()
    readMs.push(at - sentAt)
    readStatuses[res.status] = (readStatuses[res.status] ?? 0) + 1
    const ids: string[] =
      (res.status === 200 || res.status === 206) && Array.isArray(res.body)
        ? res.body.map((s: { id: string }) => String(s.id))
        : []
    return { status: res.status, ids, at, ms: at - sentAt }
  }

  /** Reads `follower`'s home until it holds `id` (bounded by `timeoutMs`), from `answeredAt`, the POST's answer. */
  const lookFor = async (follower: BenchUser, id: string, answeredAt: number): Promise<Looked> => {
    const deadline = answeredAt + timeoutMs
    const target = BigInt(id)
    let reads = 0
    let below = false
    for (;;) {
      // The first page, or (once newer posts have filled it) the page just below the post: max_id is exclusive.
      const r = await read(follower, below ? `max_id=${target + 1n}&limit=1` : `limit=${limit}`)
      reads++
      if (follower === o.newcomer && !newcomerFirstRead)
        newcomerFirstRead = { status: r.status, ms: round(r.ms), heldThePost: r.ids.includes(id) }
      if (r.ids.includes(id)) return { ms: r.at - answeredAt, reads, belowFirstPage: below }
      if (!below && r.ids.length === limit && r.ids.every((x) => BigInt(x) > target)) below = true
      if (r.at > deadline) return { ms: undefined, reads, belowFirstPage: below }
      await sleep(pollMs)
    }
  }

  const total = Math.max(1, Math.round(o.rate * o.seconds))
  const interval = 1000 / o.rate
  const postMs: number[] = []
  const looked: Promise<Looked & { newcomer: boolean }>[] = []
  let failed = 0
  const started = performance.now()
  const posts: Promise<void>[] = []
  for (let n = 0; n < total; n++) {
    const wait = started + n * interval - performance.now()
    if (wait > 1) await sleep(wait)
    const follower = followers[n % followers.length]!
    const sentAt = performance.now()
    posts.push(
      call(`${stack.gatewayUrl}/api/v1/statuses`, 'POST', o.author.token, {
        status: `post ${n} of the post → home bench`,
      }).then((res) => {
        const at = performance.now()
        postMs.push(at - sentAt)
        if (res.status !== 200) {
          failed++
          return
        }
        looked.push(
          lookFor(follower, String(res.body.id), at).then((l) => ({
            ...l,
            newcomer: follower === o.newcomer,
          })),
        )
      }),
    )
  }
  await Promise.all(posts)
  const sendSeconds = (performance.now() - started) / 1000
  const all = await Promise.all(looked)
  await settle(fixtures, stack)

  const seen = all.filter((l) => l.ms !== undefined)
  const latency = percentiles(seen.map((l) => l.ms!))
  const post = percentiles(postMs)
  const newcomerSeen = seen.filter((l) => l.newcomer)
  return {
    rate: o.rate,
    achievedRate: Math.round(total / sendSeconds),
    posts: total,
    failed,
    followers: followers.length,
    limit,
    pollMs,
    timeoutMs,
    /** From the POST's answer to the answer of the follower's first home page holding the status. */
    postToHomeMs: latency,
    /** Posts that were not in the follower's home within timeoutMs: must be 0. */
    notInHome: all.length - seen.length,
    /** Found below a first page that newer posts had filled (read with max_id). */
    belowFirstPage: all.filter((l) => l.belowFirstPage).length,
    /** The baseline: the POST round trip of the same posts, through the gateway. */
    postRequestMs: post,
    ratioP50: round(latency.p50 / Math.max(post.p50, 0.01)),
    ratioP99: round(latency.p99 / Math.max(post.p99, 0.01)),
    /** Every home read of the scenario: its round trip bounds the latency's resolution. */
    homeReadMs: percentiles(readMs),
    homeReadStatuses: readStatuses,
    readsPerPost: round(all.reduce((a, l) => a + l.reads, 0) / Math.max(all.length, 1)),
    newcomer: {
      /** Its first read ever of home (no feed in Redis until then). */
      firstRead: newcomerFirstRead,
      posts: all.filter((l) => l.newcomer).length,
      notInHome: all.filter((l) => l.newcomer).length - newcomerSeen.length,
      postToHomeMs: percentiles(newcomerSeen.map((l) => l.ms!)),
    },
  }
}
