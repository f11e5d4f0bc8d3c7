import { Queue } from 'bullmq'
import { Redis } from 'ioredis'
import { bullPrefix, QUEUES } from '@roost/events'
import { setRole } from '../../apps/accounts/src/domain/moderation'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { attackLog, expectRefused } from './helpers'

/** Finding 1: the queue board is for admins' user tokens only, and shows no private text. */
let stack: Stack
const { attempt } = attackLog('queue-board')
beforeAll(async () => {
  stack = await startStack()
})
afterAll(() => stack.stop())

const BOARD = '/admin/queues/api/queues?activeQueue=notifications&status=completed&page=1'

describe('Bull Board refuses everyone but an admin, now', () => {
  it('refuses an app token holding admin:read (client_credentials has no user)', async () => {
    const app = await stack.registerApp('read admin:read admin:write')
    const token = await stack.appToken('admin:read admin:write', app)
    const res = await attempt(stack.api().get(BOARD).set(bearer(token)))
    expectRefused(res, 403)
    const pause = await attempt(
      stack.api().put('/admin/queues/api/queues/notifications/pause').set(bearer(token)),
    )
    expectRefused(pause, 403)
  })

  it('refuses a token once its user no longer holds view_devops (the Owner role), or is disabled', async () => {
    const demoted = await stack.createUser({ username: 'exadmin', role: 'owner' })
    const token = await stack.userToken('admin:read', demoted)
    await setRole(stack.accounts.ctx.db, demoted.accountId, 'user')
    expectRefused(await attempt(stack.api().get(BOARD).set(bearer(token))), 403)

    const disabled = await stack.createUser({ username: 'offadmin', role: 'owner' })
    const disabledToken = await stack.userToken('admin:read', disabled)
    await stack.accounts.ctx.db('users').where({ id: disabled.userId }).update({ disabled: true })
    expectRefused(await attempt(stack.api().get(BOARD).set(bearer(disabledToken))), 403)
  })

  it('refuses a forged cookie and a token in the cookie that is not an admin user token', async () => {
    const app = await stack.registerApp('admin:read')
    const appToken = await stack.appToken('admin:read', app)
    for (const cookie of [`roost_admin_token=${appToken}`, 'roost_admin_token=forged.token.value']) {
      const res = await attempt(
        stack.api().get(BOARD).set('Cookie', cookie).set('Accept', 'application/json'),
      )
      expectRefused(res)
    }
  })
})

describe('queued notifications carry no more private text than the push shows, and the board hides it', () => {
  it('cuts a direct message to 140 characters on the queue and shows none of it to an admin', async () => {
    const admin = await stack.createUser({ username: 'boardadmin', role: 'owner' })
    const adminToken = await stack.userToken('read write admin:read', admin)
    const sender = await stack.userToken('read write')
    const secret = `the launch code is 0000 ${'and more private words '.repeat(20)}`
    await stack
      .api()
      .post('/api/v1/statuses')
      .set(bearer(sender))
      .send({ status: `@boardadmin ${secret}`, visibility: 'direct' })
      .expect(200)
    await stack.drain()

    const redis = new Redis(stack.env.REDIS_URL!, { maxRetriesPerRequest: null })
    const queue = new Queue(QUEUES.notifications, {
      connection: redis,
      prefix: bullPrefix(stack.env.REDIS_PREFIX!),
    })
    try {
      const [job] = await queue.getJobs(['completed', 'waiting', 'active', 'failed', 'delayed'])
      expect(job).toBeDefined()
      const excerpt = job!.data.excerpt as string
      expect(Array.from(excerpt).length).toBeLessThanOrEqual(140)
      expect(excerpt.endsWith('...')).toBe(true)
    } finally {
      await queue.close()
      redis.disconnect()
    }

    const board = await eventually(async () => {
      const res = await attempt(stack.api().get(BOARD).set(bearer(adminToken)).expect(200))
      const notifications = (res.body.queues as { name: string; jobs: unknown[] }[]).find(
        (q) => q.name === QUEUES.notifications,
      )
      return notifications?.jobs.length ? res.text : undefined
    })
    expect(board).toMatch(/characters hidden/)
    expect(board).not.toContain('launch code')
    expect(board).not.toContain('private words')
  })
})
