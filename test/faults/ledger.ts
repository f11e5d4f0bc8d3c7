import type { PushReceiver } from '@roost/testing'
import type { Stack } from '../stack'
import type { WorkerProcess } from './worker-process'
import { bearer } from '../stack'
import { subscribedUser } from '../push/helpers'

/** A recipient with a push subscription on the receiver (made through the gateway). */
export type Recipient = Awaited<ReturnType<typeof subscribedUser>>

/**
 * What the fault tests count: the notifications Postgres holds for the recipients against the pushes the
 * receiver accepted (decrypted, VAPID checked, answered 2xx to a sender still there), by the payload's
 * `notification_id`. Lost: a notification with no accepted push. Duplicated: one with more than one.
 */
export function pushLedger(stack: Stack, receiver: PushReceiver, recipients: Recipient[]) {
  const byAccount = new Map(recipients.map((r) => [r.accountId, r]))
  const key = (endpoint: string, notificationId: string) => `${endpoint} ${notificationId}`

  /** Accepted pushes per endpoint and notification. */
  const accepted = () => {
    const counts = new Map<string, number>()
    for (const m of receiver.received)
      if (m.status >= 200 && m.status < 300) {
        const k = key(m.endpoint, String(m.payload.notification_id))
        counts.set(k, (counts.get(k) ?? 0) + 1)
      }
    return counts
  }

  return {
    /** The notifications of the recipients that should each be pushed once (all their alerts are on). */
    async expected(): Promise<string[]> {
      const rows: { id: string; account_id: string }[] = await stack.accounts.ctx
        .db('notifications')
        .whereIn('account_id', [...byAccount.keys()])
        .select('id', 'account_id')
      return rows.map((r) => key(byAccount.get(String(r.account_id))!.endpoint, String(r.id)))
    },
    accepted,
    /** Lost and duplicated pushes against `expected`, and pushes of notifications nobody expected. */
    async tally() {
      const expected = await this.expected()
      const got = accepted()
      const lost = expected.filter((k) => !got.has(k))
      const duplicated = [...got].filter(([, n]) => n > 1).map(([k]) => k)
      const wanted = new Set(expected)
      const unexpected = [...got.keys()].filter((k) => !wanted.has(k))
      return { expected: expected.length, accepted: got.size, lost, duplicated, unexpected }
    },
    /**
     * The pushes the receiver accepted whose acknowledgement the push worker had not yet written to Postgres:
     * what a worker killed just now may send again (the only duplicates docs/security.md allows). Read after
     * the kill.
     */
    async acceptedButNotAcknowledged(): Promise<Set<string>> {
      const subscriptionOf = new Map(recipients.map((r) => [r.endpoint, r.subscriptionId]))
      const deliveryOf = (k: string) => {
        const [endpoint, notificationId] = k.split(' ') as [string, string]
        return `${notificationId}-${subscriptionOf.get(endpoint)}`
      }
      const keys = [...accepted().keys()]
      const acknowledged = new Set(
        (
          await stack.accounts.ctx.db
            .withSchema('push')
            .from('acknowledged_pushes')
            .whereIn('delivery_id', keys.map(deliveryOf))
            .select('delivery_id')
        ).map((r: { delivery_id: string }) => r.delivery_id),
      )
      return new Set(keys.filter((k) => !acknowledged.has(deliveryOf(k))))
    },
  }
}

/** `count` recipients with every alert on, and an author whose posts mention them. */
export async function mentionScene(stack: Stack, receiver: PushReceiver, count: number) {
  const recipients: Recipient[] = []
  for (let i = 0; i < count; i++) recipients.push(await subscribedUser(stack, receiver))
  const author = await stack.createUser()
  const token = await stack.userToken('read write', author)
  let posts = 0
  return {
    recipients,
    author,
    /** The author's token (read write). */
    token,
    /**
     * A public post mentioning `mentions` recipients (rotating): its HTTP status, and the mentions it made
     * when the post was accepted.
     */
    async post(mentions: number) {
      const n = posts++
      const named = Array.from({ length: mentions }, (_, i) => recipients[(n + i) % recipients.length]!)
      const res = await fetch(`${stack.gatewayUrl()}/api/v1/statuses`, {
        method: 'POST',
        headers: { ...bearer(token), 'Content-Type': 'application/json' },
        body: JSON.stringify({ status: `${named.map((r) => `@${r.username}`).join(' ')} post ${n}` }),
        signal: AbortSignal.timeout(30_000),
      }).catch(() => undefined)
      return {
        status: res?.status ?? 0,
        body: res ? await res.text() : '',
        retryAfter: res?.headers.get('retry-after') ?? null,
      }
    },
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** One answer the load got: what was asked, the status, and whether a 503 was well-formed. */
export interface LoadAnswer {
  what: string
  status: number
  /** When the request was sent and when its answer came (ms since the epoch). */
  sentAt: number
  at: number
  /** Why the answer is wrong, if it is: a 5xx other than 503, a 503 without `{"error"}` or Retry-After, a 200 that does not parse. */
  problem?: string
}

/**
 * Requests under a fault: posts with mentions (their ids kept when accepted) and reads of the recipient's
 * notifications and the author's home, one after another, until `stop()`. Every answer is checked: 503 with
 * `{"error"}` and Retry-After, or a 2xx whose JSON parses; nothing else.
 */
export function startLoad(
  stack: Stack,
  scene: Awaited<ReturnType<typeof mentionScene>>,
  readerToken: string,
  mentions = 2,
) {
  const answers: LoadAnswer[] = []
  const accepted: string[] = []
  let stopped = false
  const check = (what: string, sentAt: number, status: number, body: string, retryAfter: string | null) => {
    const answer: LoadAnswer = { what, status, sentAt, at: Date.now() }
    if (status === 503) {
      let error: unknown
      try {
        error = (JSON.parse(body) as { error?: unknown }).error
      } catch {
        error = undefined
      }
      if (typeof error !== 'string' || !retryAfter)
        answer.problem = `a 503 without error or Retry-After: ${body}`
    } else if (status === 0) answer.problem = 'no answer within 30 s'
    else if (status >= 500 || status < 200 || status >= 300)
      answer.problem = `${status}: ${body.slice(0, 200)}`
    else
      try {
        JSON.parse(body)
      } catch {
        answer.problem = `a ${status} whose body does not parse: ${body.slice(0, 200)}`
      }
    answers.push(answer)
    return answer
  }
  const read = async (what: string, url: string) => {
    const sentAt = Date.now()
    const res = await fetch(`${stack.gatewayUrl()}${url}`, {
      headers: bearer(readerToken),
      signal: AbortSignal.timeout(30_000),
    }).catch(() => undefined)
    check(
      what,
      sentAt,
      res?.status ?? 0,
      res ? await res.text() : '',
      res?.headers.get('retry-after') ?? null,
    )
  }
  const running = (async () => {
    while (!stopped) {
      const started = Date.now()
      const res = await scene.post(mentions)
      const answer = check('post', started, res.status, res.body, res.retryAfter)
      if (res.status === 200 && !answer.problem) accepted.push(String(JSON.parse(res.body).id))
      await read('notifications', '/api/v1/notifications?limit=5')
      await read('home', '/api/v1/timelines/home?limit=5')
      // About five rounds a second at most, so the machine is loaded, not flooded.
      await sleep(Math.max(0, 200 - (Date.now() - started)))
    }
  })()
  return {
    answers,
    /** Ids of the posts that answered 200. */
    accepted,
    async stop() {
      stopped = true
      await running
    },
  }
}

/**
 * Every process of the stack by name, each copy numbered (`accounts 1`, `accounts 2`, …), to its URL: the services
 * of the stack and the workers the test runs as processes of their own.
 */
export function processUrls(stack: Stack, workers: { accounts: WorkerProcess[]; push: WorkerProcess[] }) {
  const groups: Record<string, string[]> = {
    gateway: stack.copies.gatewayUrls,
    accounts: stack.copies.accountsUrls,
    push: stack.copies.pushUrls,
    streaming: stack.copies.streamingUrls,
    'accounts-worker': workers.accounts.map((w) => w.url),
    'push-worker': workers.push.map((w) => w.url),
  }
  return Object.fromEntries(
    Object.entries(groups).flatMap(([name, urls]) => urls.map((url, i) => [`${name} ${i + 1}`, url])),
  )
}

/** Polls each `/health/ready` every 50 ms until it answers 200; the milliseconds each took from now. */
export async function timeToReady(urls: Record<string, string>, timeoutMs = 60_000) {
  const started = Date.now()
  const result: Record<string, number> = {}
  await Promise.all(
    Object.entries(urls).map(async ([name, url]) => {
      for (;;) {
        const ok = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(2000) }).then(
          (r) => r.ok,
          () => false,
        )
        if (ok) return void (result[name] = Date.now() - started)
        if (Date.now() - started > timeoutMs) throw new Error(`${name} was not ready ${timeoutMs} ms later`)
        await sleep(50)
      }
    }),
  )
  return result
}

/** The readiness of each process now: its /health/ready status. */
export async function readiness(urls: Record<string, string>) {
  const result: Record<string, number> = {}
  for (const [name, url] of Object.entries(urls))
    result[name] = await fetch(`${url}/health/ready`, { signal: AbortSignal.timeout(5000) }).then(
      (r) => r.status,
      () => 0,
    )
  return result
}
