import { Redis } from 'ioredis'
import { CachedRevocations, REVOCATION_VERDICT_MAX_AGE_MS, RevocationList } from '@roost/auth'
import { createRedisPrefix, TEST_REDIS_URL } from '@roost/testing'
import { bearer, eventually, startStack } from '../stack'

// The gateway remembers the revocation list's answers while Redis tracks the list for it (docs/security.md,
// "Revocation verdicts in memory"). These tests hold it to its promise: a revocation is refused at once, by every
// gateway copy, and a cache that cannot trust its invalidations is not used.

describe('CachedRevocations', () => {
  let redis: Redis
  let list: RevocationList
  let lookUps: number
  let cache: CachedRevocations
  const tracker = () =>
    new Redis(TEST_REDIS_URL, { lazyConnect: true, autoResubscribe: false, maxRetriesPerRequest: 2 })

  beforeEach(async () => {
    redis = new Redis(TEST_REDIS_URL)
    list = new RevocationList(redis, createRedisPrefix())
    await list.markComplete()
    lookUps = 0
    const counted = {
      key: list.key,
      isRevoked: (id: string) => {
        lookUps++
        return list.isRevoked(id)
      },
    }
    cache = new CachedRevocations(counted, tracker())
    await cache.start()
    expect(cache.isTracking).toBe(true)
  })
  afterEach(async () => {
    await cache.close()
    await redis.del(list.key)
    await redis.quit()
  })

  it("asks Redis once while nothing changes, and sees a revocation as soon as Redis's invalidation arrives", async () => {
    // The clock stands still, so no verdict ages out: only the invalidation can make the cache ask again.
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now())
    try {
      expect(await cache.isRevoked('1')).toBe(false)
      expect(await cache.isRevoked('1')).toBe(false)
      expect(lookUps).toBe(1)
      await list.revoke('1')
      const deadline = performance.now() + 5000
      while (!(await cache.isRevoked('1')) && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 1))
      expect(await cache.isRevoked('1')).toBe(true)
    } finally {
      clock.mockRestore()
    }
  })

  it('sees the list lost: a token cannot be judged (503), and that is never remembered', async () => {
    const clock = jest.spyOn(Date, 'now').mockReturnValue(Date.now()) // as above: only an invalidation counts
    try {
      expect(await cache.isRevoked('2')).toBe(false)
      await redis.del(list.key)
      const judged = () =>
        cache.isRevoked('2').then(
          () => 'judged',
          (err: { status?: number }) => err.status,
        )
      const deadline = performance.now() + 5000
      while ((await judged()) === 'judged' && performance.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 1))
      const before = lookUps
      expect(await judged()).toBe(503)
      expect(await judged()).toBe(503)
      expect(lookUps).toBe(before + 2)
      await list.markComplete()
      expect(await cache.isRevoked('2')).toBe(false)
    } finally {
      clock.mockRestore()
    }
  })

  it('uses a verdict for at most REVOCATION_VERDICT_MAX_AGE_MS', async () => {
    const now = Date.now()
    const clock = jest.spyOn(Date, 'now').mockReturnValue(now)
    try {
      await cache.isRevoked('3')
      clock.mockReturnValue(now + REVOCATION_VERDICT_MAX_AGE_MS - 1)
      await cache.isRevoked('3')
      expect(lookUps).toBe(1)
      clock.mockReturnValue(now + REVOCATION_VERDICT_MAX_AGE_MS)
      await cache.isRevoked('3')
      expect(lookUps).toBe(2)
    } finally {
      clock.mockRestore()
    }
  })

  it('forgets everything when the tracking connection drops, asks Redis every time until it tracks again', async () => {
    const own = tracker()
    const dropped = new CachedRevocations(list, own)
    await dropped.start()
    await dropped.isRevoked('4')
    const closed = new Promise((resolve) => own.once('close', resolve))
    own.disconnect(true) // the connection goes; ioredis reconnects, and the tracking is set up anew
    await closed
    expect(dropped.isTracking).toBe(false)
    await list.revoke('4') // while no invalidation can reach it
    expect(await dropped.isRevoked('4')).toBe(true)
    await eventually(async () => dropped.isTracking)
    await list.revoke('5')
    expect(await dropped.isRevoked('5')).toBe(true)
    await dropped.close()
    expect(dropped.isTracking).toBe(false)
  })

  it('asks Redis once for the requests of one token that arrive together', async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.isRevoked('7')))
    expect(answers).toEqual(Array(20).fill(false))
    expect(lookUps).toBe(1)
  })

  it('does not let a request after a change join a look-up begun before it', async () => {
    let release = () => {}
    const gate = new Promise<void>((resolve) => (release = resolve))
    const held = {
      key: list.key,
      isRevoked: async (id: string) => {
        const first = ++lookUps === 1
        const answer = await list.isRevoked(id)
        if (first) await gate
        return answer
      },
    }
    const own = tracker()
    const joined = new CachedRevocations(held, own)
    await joined.start()
    const before = joined.isRevoked('8')
    const invalidated = new Promise((resolve) => own.once('message', resolve))
    await list.revoke('8')
    await invalidated
    const after = joined.isRevoked('8')
    release()
    await before
    expect(await after).toBe(true)
    expect(lookUps).toBe(2)
    await joined.close()
  })

  it('does not remember an answer to a look-up that an invalidation overtook', async () => {
    // The look-up is in flight when the list changes: its answer may predate the change, so it is not kept.
    const slow = {
      key: list.key,
      isRevoked: async (id: string) => {
        lookUps++
        const answer = await list.isRevoked(id)
        await list.revoke('other') // the invalidation arrives before this answer is used
        await new Promise((resolve) => setTimeout(resolve, 20))
        return answer
      },
    }
    const racing = new CachedRevocations(slow, tracker())
    await racing.start()
    expect(await racing.isRevoked('6')).toBe(false)
    expect(await racing.isRevoked('6')).toBe(false)
    expect(lookUps).toBe(2)
    await racing.close()
  })
})

describe('two gateways share the revocation list', () => {
  it('a token revoked through one gateway is refused by both at once, their caches warm', async () => {
    const stack = await startStack({ copies: 2 })
    try {
      const [first, second] = stack.copies.gatewayUrls as [string, string]
      const verify = (base: string, token: string) =>
        fetch(`${base}/api/v1/apps/verify_credentials`, { headers: bearer(token) }).then((r) => r.status)
      for (let i = 0; i < 5; i++) {
        const app = await stack.registerApp('read')
        const token = await stack.appToken('read', app)
        for (const base of [first, second])
          for (let n = 0; n < 3; n++) expect(await verify(base, token)).toBe(200)
        const revoke = await fetch(`${i % 2 ? second : first}/oauth/revoke`, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ client_id: app.client_id, client_secret: app.client_secret, token }),
        })
        expect(revoke.status).toBe(200)
        expect([await verify(first, token), await verify(second, token)]).toEqual([401, 401])
      }
    } finally {
      await stack.stop()
    }
  })
})
