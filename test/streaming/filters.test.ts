import { channels, createRedis, redisChannel } from '@roost/events'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, reader } from '../feeds/helpers'
import type { TestUser } from '../feeds/helpers'
import { openEventStream, openSocket } from './helpers'
import type { TestEventStream, TestSocket } from './helpers'

/**
 * `filters_changed` (docs/streaming.md): every change to a user's filters (v1 and v2), their keywords and their
 * status rules reaches that user's `user` stream, without a payload, through the outbox and the accounts worker;
 * nobody else's stream gets it.
 */
let stack: Stack
let redis: ReturnType<typeof createRedis>
beforeAll(async () => {
  stack = await startStack()
  redis = createRedis(stack.env.REDIS_URL!)
}, 60_000)
afterAll(async () => {
  await redis?.quit()
  await stack?.stop()
})

const live = (channel: string) => eventually(async () => stack.streaming.hub.isLive(channel, 1), 60_000)

let markers = 0
/**
 * The `filters_changed` events `user` received for what `change` did: once the pipeline is quiet (so whatever
 * the worker published is in Redis), a marker is published on the user's channel after it; everything received
 * before the marker came from the change. No timing is assumed.
 */
async function changes(user: TestUser & { socket: TestSocket }, change: () => Promise<unknown>) {
  const before = user.socket.inbox.items.length
  await change()
  await stack.drain()
  const marker = `marker-${++markers}`
  await redis.publish(
    redisChannel(stack.env.REDIS_PREFIX!, channels.home(user.id)),
    JSON.stringify({ event: 'delete', payload: marker }),
  )
  await user.socket.inbox.next((m) => m.event === 'delete' && m.payload === marker)
  const end = user.socket.inbox.items.findIndex((m) => m.payload === marker)
  return user.socket.inbox.items.slice(before, end).filter((m) => m.event === 'filters_changed')
}

async function streaming(): Promise<TestUser & { socket: TestSocket }> {
  const user = await reader(stack)
  const socket = await openSocket(stack, '?stream=user', { protocols: [user.token] })
  await live(channels.home(user.id))
  return Object.assign(user, { socket })
}

const put = (user: TestUser, path: string, body: object) =>
  stack.api().put(path).set(bearer(user.token)).send(body)

describe('filters_changed on the user stream', () => {
  let alice: TestUser & { socket: TestSocket }
  let bob: TestUser & { socket: TestSocket }
  let sse: TestEventStream
  beforeAll(async () => {
    alice = await streaming()
    bob = await streaming()
    sse = await openEventStream(stack, '/api/v1/streaming/user', bearer(alice.token))
    // Two listeners on alice's channel now: the socket and the event stream.
    await eventually(async () => stack.streaming.hub.isLive(channels.home(alice.id), 2), 60_000)
  }, 60_000)
  afterAll(async () => {
    await alice?.socket.close()
    await bob?.socket.close()
    sse?.close()
  })

  /** Asserts `change` made at least one `filters_changed`, each as Mastodon sends it: no payload at all. */
  const expectChanged = async (change: () => Promise<unknown>) => {
    const events = await changes(alice, change)
    expect(events.length).toBeGreaterThanOrEqual(1)
    for (const e of events) expect(e).toEqual({ stream: ['user'], event: 'filters_changed' })
  }

  it('follows v1 filters: create, update, delete', async () => {
    let id = ''
    await expectChanged(async () => {
      const res = await alice.post('/api/v1/filters', { phrase: 'spoilers', context: ['home'] }).expect(200)
      id = res.body.id
    })
    await expectChanged(() => put(alice, `/api/v1/filters/${id}`, { phrase: 'SPOILERS' }).expect(200))
    await expectChanged(() => put(alice, `/api/v1/filters/${id}`, { context: ['public'] }).expect(200))
    await expectChanged(() => alice.delete(`/api/v1/filters/${id}`).expect(200))
  })

  it('follows v2 filters, their keywords and their statuses', async () => {
    let filterId = ''
    await expectChanged(async () => {
      const res = await alice
        .post('/api/v2/filters', {
          title: 'politics',
          context: ['home', 'public'],
          keywords_attributes: [{ keyword: 'election' }],
        })
        .expect(200)
      filterId = res.body.id
    })
    await expectChanged(() => put(alice, `/api/v2/filters/${filterId}`, { title: 'news' }).expect(200))

    let keywordId = ''
    await expectChanged(async () => {
      const res = await alice.post(`/api/v2/filters/${filterId}/keywords`, { keyword: 'vote' }).expect(200)
      keywordId = res.body.id
    })
    await expectChanged(() =>
      put(alice, `/api/v2/filters/keywords/${keywordId}`, { whole_word: false }).expect(200),
    )
    await expectChanged(() => alice.delete(`/api/v2/filters/keywords/${keywordId}`).expect(200))

    const statusId = await post(bob, 'a status to filter')
    let ruleId = ''
    await expectChanged(async () => {
      const res = await alice
        .post(`/api/v2/filters/${filterId}/statuses`, { status_id: statusId })
        .expect(200)
      ruleId = res.body.id
    })
    await expectChanged(() => alice.delete(`/api/v2/filters/statuses/${ruleId}`).expect(200))

    await expectChanged(() => alice.delete(`/api/v2/filters/${filterId}`).expect(200))
  })

  it('reaches event streams as `data: undefined`, as Mastodon documents', async () => {
    await alice.post('/api/v1/filters', { phrase: 'sse', context: ['home'] }).expect(200)
    expect(await sse.inbox.next((m) => m.event === 'filters_changed')).toEqual({
      event: 'filters_changed',
      payload: 'undefined',
    })
  })

  it('reaches nobody else, and a refused change sends nothing', async () => {
    // Everything alice did above, and a change of her own, and a refused one: bob's stream got only his own.
    await expect(
      changes(bob, () => alice.post('/api/v1/filters', { phrase: 'x', context: ['home'] }).expect(200)),
    ).resolves.toEqual([])
    expect(bob.socket.inbox.events('filters_changed')).toEqual([])
    const refused = await changes(alice, () =>
      alice.post('/api/v2/filters', { title: '', context: ['home'] }).expect(422),
    )
    expect(refused).toEqual([])
    const own = await changes(bob, () =>
      bob.post('/api/v2/filters', { title: 'mine', context: ['home'] }).expect(200),
    )
    expect(own).toEqual([{ stream: ['user'], event: 'filters_changed' }])
  })

  it('is not published for a user who does not stream', async () => {
    const quiet = await reader(stack)
    const channel = redisChannel(stack.env.REDIS_PREFIX!, channels.home(quiet.id))
    const seen: string[] = []
    const watcher = createRedis(stack.env.REDIS_URL!)
    watcher.on('message', (_channel: string, message: string) => seen.push(message))
    await watcher.subscribe(channel)
    await quiet.post('/api/v1/filters', { phrase: 'quiet', context: ['home'] }).expect(200)
    await stack.drain()
    // The activity is handled (drained); a marker published after it is the only message on quiet's channel.
    await redis.publish(channel, 'marker')
    await eventually(async () => seen.includes('marker'), 60_000)
    expect(seen).toEqual(['marker'])
    await watcher.quit()
  })
})
