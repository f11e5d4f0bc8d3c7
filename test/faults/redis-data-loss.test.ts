import { RevocationList } from '@roost/auth'
import { startPushReceiver } from '@roost/testing'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { subscribedUser } from '../push/helpers'

// Issue #9, finding 4: Redis coming back empty undid security state until accounts restarted: a revoked token
// worked again, and a no_access IP block stopped applying. This test deletes the stack's own keys (what an
// empty Redis looks like to it; never FLUSHALL on a shared Redis) and checks that a revoked token is never
// accepted meanwhile, and that accounts republishes everything from Postgres by itself. Then it loses every key
// of the stack while a notification waits in a queue: the relay publishes the recent events again, and the
// notification is pushed once, while what had been pushed already is not pushed again.
let stack: Stack
beforeAll(async () => {
  stack = await startStack({ env: { TRUSTED_PROXIES: '127.0.0.1,::1' } })
})
afterAll(() => stack.stop())

it('a revoked token stays refused and the IP rules come back, without restarting anything', async () => {
  const app = await stack.registerApp('read')
  const token = await stack.appToken('read', app)
  await stack
    .api()
    .post('/oauth/revoke')
    .send({ client_id: app.client_id, client_secret: app.client_secret, token })
    .expect(200)
  const admin = await stack.userToken('admin:read admin:write', await stack.createUser({ role: 'admin' }))
  await stack
    .api()
    .post('/api/v1/admin/ip_blocks')
    .set(bearer(admin))
    .send({ ip: '203.0.113.0/24', severity: 'no_access', comment: 'data loss test' })
    .expect(200)
  // On every gateway copy (two with ROOST_TEST_COPIES=2).
  const blockedEverywhere = () =>
    Promise.all(
      stack.copies.gatewayUrls.map((base) =>
        eventually(async () => {
          const res = await fetch(`${base}/api/v1/instance`, {
            headers: { 'X-Forwarded-For': '203.0.113.9' },
          })
          return res.status === 403
        }),
      ),
    )
  await blockedEverywhere()

  const redis = stack.accounts.ctx.redis
  const prefix = stack.env.REDIS_PREFIX!
  const revocations = new RevocationList(redis, prefix)
  const lost = [revocations.key, `${prefix}:ip-rules`]
  // Every gateway and accounts copy (two of each with ROOST_TEST_COPIES=2).
  const bases = [...stack.copies.gatewayUrls, ...stack.copies.accountsUrls]
  const verify = (base: string) =>
    fetch(`${base}/api/v1/apps/verify_credentials`, { headers: bearer(token) }).then((r) => r.status)
  let refusedMeanwhile = 0
  for (let round = 0; round < 3; round++) {
    await redis.del(...lost)
    // Until accounts notices (within a second), a token cannot be judged: 503, never 200.
    const answers = await Promise.all(bases.map(verify))
    for (const status of answers) expect([401, 503]).toContain(status)
    refusedMeanwhile += answers.length
    await eventually(() => revocations.isComplete())
    expect(await Promise.all(bases.map(verify))).toEqual(bases.map(() => 401))
    await blockedEverywhere()
  }
  expect(refusedMeanwhile).toBe(3 * bases.length)
  // Readiness stays honest and everything else works again.
  await stack.api().get('/api/v1/instance').expect(200)
  for (const base of stack.copies.accountsUrls) expect((await fetch(`${base}/health/ready`)).status).toBe(200)
})

/** Every key of this stack: what Redis coming back empty looks like to it. */
async function loseEveryKey(stack: Stack) {
  const redis = stack.accounts.ctx.redis
  const prefix = stack.env.REDIS_PREFIX!
  for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
    const keys: string[] = []
    let cursor = '0'
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
      keys.push(...found)
      cursor = next
    } while (cursor !== '0')
    if (keys.length) await redis.del(...keys)
  }
}

it('a notification queued when Redis loses its data is pushed once, and nothing already pushed again', async () => {
  const receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  try {
    const recipient = await subscribedUser(stack, receiver)
    const author = await stack.userToken('read write', await stack.createUser())
    const mention = (text: string) =>
      stack
        .api()
        .post('/api/v1/statuses')
        .set(bearer(author))
        .send({ status: `@${recipient.username} ${text}` })
        .expect(200)
    const pushed = () =>
      receiver.received
        .filter((m) => m.endpoint === recipient.endpoint && m.status < 300)
        .map((m) => String(m.payload.notification_id))
    await mention('before the loss')
    await stack.drain()
    expect(pushed()).toHaveLength(1)

    // The push worker takes no notification for now: the next one waits in Redis when Redis loses everything.
    const notifications = stack.pushWorker.queues.notifications
    await notifications.pause()
    await mention('in flight')
    await eventually(async () => (await notifications.getWaitingCount()) === 1, 60_000)
    await loseEveryKey(stack)

    // The relay finds its marker gone and publishes the last minutes' events again, under their own job ids.
    await eventually(async () => pushed().length >= 2, 60_000)
    await stack.drain(60_000)
    const ids: { id: string }[] = await stack.accounts.ctx
      .db('notifications')
      .where({ account_id: recipient.accountId })
      .select('id')
    expect(ids).toHaveLength(2)
    expect(pushed().sort()).toEqual(ids.map((n) => String(n.id)).sort())
  } finally {
    await receiver.close()
  }
}, 120_000)
