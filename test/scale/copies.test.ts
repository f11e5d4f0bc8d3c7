import { channels } from '@roost/events'
import { eventually } from '../stack'
import { signUp } from '../accounts/social/helpers'
import { openSocket } from '../streaming/helpers'
import { startScaleStack, roundTrip } from './helpers'

/**
 * Two copies of every process against one Postgres and one Redis (docs/operations.md, "Several copies of each
 * process"): the gateways take the service copies in turn and the test the gateways in turn; each piece of work
 * is done once, timers run once, and a streaming client on either streaming copy gets every event.
 */
let scale: Awaited<ReturnType<typeof startScaleStack>>
beforeAll(async () => {
  scale = await startScaleStack({
    copies: 2,
    env: { POLL_MIN_EXPIRATION_SECONDS: '1', SCHEDULED_STATUS_MIN_OFFSET_SECONDS: '1' },
  })
}, 60_000)
afterAll(async () => {
  await scale?.stop()
})

it('a post with a mention: one notification, one push and one federation delivery with two of each process', async () => {
  const { stack } = scale
  expect(stack.copies.gatewayUrls).toHaveLength(2)
  expect(stack.copies.accountsWorkers).toHaveLength(2)
  expect(stack.copies.pushWorkers).toHaveLength(2)
  await roundTrip(scale, 'copies')
})

it('a client on each streaming copy gets the notification, once each', async () => {
  const { stack } = scale
  const alice = await signUp(stack, { username: 'alice_streams', scope: 'read write' })
  const bob = await signUp(stack, { username: 'bob_streams' })
  const sockets = await Promise.all(
    stack.copies.streamingUrls.map((base) =>
      openSocket(stack, '?stream=user', { protocols: [alice.token], base }),
    ),
  )
  for (const copy of stack.copies.streaming)
    await eventually(async () => copy.hub.isLive(channels.notifications(alice.id), 1))
  await bob.post('/api/v1/statuses', { status: `@${alice.username} to both copies` }).expect(200)
  for (const socket of sockets) {
    const event = await socket.inbox.next((m) => m.event === 'notification')
    expect(JSON.parse(event.payload!)).toMatchObject({ type: 'mention', account: { id: bob.id } })
  }
  await stack.drain()
  for (const socket of sockets) {
    expect(socket.inbox.events('notification')).toHaveLength(1)
    await socket.close()
  }
})

it('a scheduled status and a poll’s end each happen once, with both workers sweeping for lost timers', async () => {
  const { stack } = scale
  const alice = await signUp(stack, { username: 'alice_timers' })
  const bob = await signUp(stack, { username: 'bob_timers' })
  const at = new Date(Date.now() + 2000).toISOString()
  await alice.post('/api/v1/statuses', { status: 'scheduled once', scheduled_at: at }).expect(200)
  const poll = (
    await alice
      .post('/api/v1/statuses', { status: 'Which?', poll: { options: ['a', 'b'], expires_in: 2 } })
      .expect(200)
  ).body
  await bob.post(`/api/v1/polls/${poll.poll.id}/votes`, { choices: [0] }).expect(200)
  // Both workers sweep at once, as their intervals would: deterministic job ids keep each timer one job.
  await Promise.all(stack.copies.accountsWorkers.map((w) => w.sweep()))

  const statuses = async () =>
    (await alice.get(`/api/v1/accounts/${alice.id}/statuses`).expect(200)).body as { content: string }[]
  await eventually(async () => (await statuses()).some((s) => s.content.includes('scheduled once')))
  await eventually(
    async () => (await bob.get('/api/v1/notifications?types[]=poll').expect(200)).body.length > 0,
  )
  await Promise.all(stack.copies.accountsWorkers.map((w) => w.sweep()))
  await stack.drain()
  expect((await statuses()).filter((s) => s.content.includes('scheduled once'))).toHaveLength(1)
  expect((await bob.get('/api/v1/notifications?types[]=poll').expect(200)).body).toHaveLength(1)
  expect((await alice.get('/api/v1/notifications?types[]=poll').expect(200)).body).toHaveLength(1)
})

it('with one copy of each worker stopped gracefully, the other does all the work, once', async () => {
  const { stack } = scale
  // Stopped as SIGTERM stops them: the relay finishes its batch, the workers their jobs (docs/operations.md).
  const [accountsWorker] = stack.copies.accountsWorkers.splice(1, 1)
  const [pushWorker] = stack.copies.pushWorkers.splice(1, 1)
  await Promise.all([accountsWorker!.stop(), pushWorker!.stop()])
  await roundTrip(scale, 'one_left')
})
