import { channels, createRedis, redisChannel } from '@roost/events'
import { createAnnouncement, withdrawAnnouncement } from '../../apps/accounts/src/domain/announcements'
import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, reader } from '../feeds/helpers'
import type { TestUser } from '../feeds/helpers'
import { openEventStream, openSocket } from './helpers'
import type { TestSocket } from './helpers'

/**
 * Live events from the accounts worker (docs/streaming.md, "What travels on the channels"): the home fan-out,
 * deletions, edits, notifications, and the public and hashtag channels with their exclusions, received through
 * the gateway by WebSockets and event streams.
 */
let stack: Stack
let watcher: ReturnType<typeof createRedis>
/** Every message published on the run's channels, as a Redis client sees it. */
const published: { channel: string; message: { event: string; payload: string; exclude?: string[] } }[] = []
beforeAll(async () => {
  stack = await startStack()
  watcher = createRedis(stack.env.REDIS_URL!)
  const prefix = stack.env.REDIS_PREFIX!
  watcher.on('pmessage', (_pattern: string, channel: string, message: string) =>
    published.push({ channel: channel.slice(prefix.length + 1), message: JSON.parse(message) }),
  )
  await watcher.psubscribe(redisChannel(prefix, 'timeline:*'))
}, 60_000)
afterAll(async () => {
  await watcher?.quit()
  await stack?.stop()
})

const live = (channel: string, listeners = 1) => eventually(async () => stack.isLive(channel, listeners))

/** A user with a built home feed (so fan-out reaches it) and an open `user` WebSocket. */
async function streaming(username?: string): Promise<TestUser & { socket: TestSocket }> {
  const user = await reader(stack, username ? { username } : {})
  const socket = await openSocket(stack, '?stream=user', { protocols: [user.token] })
  await live(channels.notifications(user.id))
  return Object.assign(user, { socket })
}

const follow = async (follower: TestUser, target: TestUser) => {
  await follower.post(`/api/v1/accounts/${target.id}/follow`).expect(200)
  await stack.drain()
}

describe('the user stream', () => {
  it('receives a followed account’s status (rendered for the reader), its edit and its deletion', async () => {
    const author = await reader(stack)
    const alice = await streaming()
    await follow(alice, author)

    const id = await post(author, 'hello from the author')
    const update = await alice.socket.inbox.next((m) => m.event === 'update')
    expect(update.stream).toEqual(['user'])
    const status = JSON.parse(update.payload!)
    expect(status).toMatchObject({ id, content: '<p>hello from the author</p>', favourited: false })
    expect(status.account.id).toBe(author.id)

    // A favourite by the reader shows in what the reader receives next: the edit is rendered for them too.
    await alice.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await stack
      .api()
      .put(`/api/v1/statuses/${id}`)
      .set(bearer(author.token))
      .send({ status: 'hello, edited' })
      .expect(200)
    const edit = await alice.socket.inbox.next((m) => m.event === 'status.update')
    expect(JSON.parse(edit.payload!)).toMatchObject({ id, content: '<p>hello, edited</p>', favourited: true })

    await author.delete(`/api/v1/statuses/${id}`).expect(200)
    expect(await alice.socket.inbox.next((m) => m.event === 'delete')).toEqual({
      stream: ['user'],
      event: 'delete',
      payload: id,
    })
    await alice.socket.close()
  })

  it('receives a mention as a notification, and the author sees its own status', async () => {
    const author = await streaming()
    const bob = await streaming()
    const id = await post(author, `hi @${bob.username}`)
    const notification = await bob.socket.inbox.next((m) => m.event === 'notification')
    expect(notification.stream).toEqual(['user'])
    expect(JSON.parse(notification.payload!)).toMatchObject({
      type: 'mention',
      account: { id: author.id },
      status: { id, mentions: [{ id: bob.id }] },
    })
    const own = await author.socket.inbox.next((m) => m.event === 'update')
    expect(JSON.parse(own.payload!).id).toBe(id)
    // Not following the author, bob's home feed did not take the status: no update for bob.
    await stack.drain()
    expect(bob.socket.inbox.events('update')).toEqual([])
    await author.socket.close()
    await bob.socket.close()
  })

  it('sends a favourite and a follow as notifications on user/notification over an event stream', async () => {
    const carol = await reader(stack)
    const dave = await reader(stack)
    const stream = await openEventStream(stack, '/api/v1/streaming/user/notification', bearer(carol.token))
    const id = await post(carol, 'like me')
    await dave.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    const favourite = await stream.inbox.next((m) => m.event === 'notification')
    expect(JSON.parse(favourite.payload!)).toMatchObject({ type: 'favourite', account: { id: dave.id } })
    await follow(dave, carol)
    const followed = await stream.inbox.next((m) => m.event === 'notification')
    expect(JSON.parse(followed.payload!)).toMatchObject({ type: 'follow', account: { id: dave.id } })
    stream.close()
  })

  it('publishes nothing for an account that is not streaming', async () => {
    const author = await reader(stack)
    const quiet = await reader(stack)
    await follow(quiet, author)
    await post(author, `hello @${quiet.username}`)
    await stack.drain()
    expect(published.filter((p) => p.channel.startsWith(`timeline:${quiet.id}`))).toEqual([])
    // Once it streams, its channels get the events.
    const socket = await openSocket(stack, '?stream=user', { protocols: [quiet.token] })
    await live(channels.notifications(quiet.id))
    await post(author, `again @${quiet.username}`)
    await socket.inbox.next((m) => m.event === 'notification')
    await socket.inbox.next((m) => m.event === 'update')
    expect(
      published
        .filter((p) => p.channel.startsWith(`timeline:${quiet.id}`))
        .map((p) => p.channel)
        .sort(),
    ).toEqual([`timeline:${quiet.id}`, `timeline:${quiet.id}:notifications`])
    await socket.close()
  })
})

describe('public and hashtag streams', () => {
  it('carry public statuses anonymously rendered; replies to others only on hashtags, unlisted nowhere', async () => {
    const author = await reader(stack)
    const viewer = await reader(stack)
    const socket = await openSocket(stack, '?stream=public:local', { protocols: [viewer.token] })
    socket.send({ type: 'subscribe', stream: 'hashtag', tag: 'RoostTest' })
    socket.send({ type: 'subscribe', stream: 'public:media' })
    await live(channels.public({ local: true }))
    await live(channels.hashtag('roosttest'))
    await live(channels.public({ media: true }))

    const id = await post(author, 'public news #roosttest')
    const local = await socket.inbox.next((m) => m.event === 'update' && m.stream![0] === 'public:local')
    const tagged = await socket.inbox.next((m) => m.event === 'update' && m.stream![0] === 'hashtag')
    expect(tagged.stream).toEqual(['hashtag', 'RoostTest'])
    for (const m of [local, tagged])
      expect(JSON.parse(m.payload!)).toMatchObject({ id, visibility: 'public' })

    const other = await post(viewer, 'a status to reply to')
    const reply = await post(author, { status: 'a reply #roosttest', in_reply_to_id: other })
    await socket.inbox.next(
      (m) => m.event === 'update' && m.stream![0] === 'hashtag' && m.payload!.includes(reply),
    )
    await post(author, { status: 'unlisted #roosttest', visibility: 'unlisted' })
    await stack.drain()
    const seen = socket.inbox.events('update').map((m) => `${m.stream![0]} ${JSON.parse(m.payload!).id}`)
    expect(seen).not.toContain(`public:local ${reply}`)
    expect(seen.filter((s) => s.startsWith('public:media'))).toEqual([]) // no media in any of them
    expect(socket.inbox.events('update')).toHaveLength(4) // the first status twice, the reply, viewer's status

    await author.delete(`/api/v1/statuses/${id}`).expect(200)
    const deletes = [
      await socket.inbox.next((m) => m.event === 'delete'),
      await socket.inbox.next((m) => m.event === 'delete'),
      await socket.inbox.next((m) => m.event === 'delete'),
    ]
    expect(deletes.map((d) => d.stream![0]).sort()).toEqual(['hashtag', 'public:local', 'public:media'])
    expect(deletes.every((d) => d.payload === id)).toBe(true)
    await socket.close()
  })

  it('leaves out statuses of accounts the viewer blocks or mutes, or that block the viewer', async () => {
    const author = await reader(stack)
    const mentioned = await reader(stack)
    const [blocker, muter, blocked, mentionMuter, bystander] = await Promise.all(
      [1, 2, 3, 4, 5].map(() => reader(stack)),
    )
    await blocker.post(`/api/v1/accounts/${author.id}/block`).expect(200)
    await muter.post(`/api/v1/accounts/${author.id}/mute`).expect(200)
    await author.post(`/api/v1/accounts/${blocked.id}/block`).expect(200)
    await mentionMuter.post(`/api/v1/accounts/${mentioned.id}/mute`).expect(200)
    await stack.drain()
    const sockets = new Map<TestUser, TestSocket>()
    for (const user of [blocker!, muter!, blocked!, mentionMuter!, bystander!])
      sockets.set(user, await openSocket(stack, '?stream=public', { protocols: [user.token] }))
    await live(channels.public(), 5)
    // The gateway takes the sockets to the streaming copies in turn: with ROOST_TEST_COPIES=2, clients on both.
    for (const copy of stack.copies.streaming) expect(copy.hub.isLive(channels.public(), 1)).toBe(true)

    const plain = await post(author, 'plain public post')
    const withMention = await post(author, `public post for @${mentioned.username}`)
    const fromOther = await post(mentioned, 'from someone else')
    // Events of one channel arrive in order: once this last one is in, every earlier one is too.
    const sentinel = await post(bystander!, 'the last one')
    const has = (m: { payload?: string }, id: string) => JSON.parse(m.payload!).id === id
    for (const socket of sockets.values())
      await socket.inbox.next((m) => m.event === 'update' && has(m, sentinel))
    const got = (user: TestUser, id: string) =>
      sockets
        .get(user)!
        .inbox.events('update')
        .some((m) => has(m, id))
    expect(await got(bystander!, plain)).toBe(true)
    expect(await got(blocker!, plain)).toBe(false)
    expect(await got(muter!, plain)).toBe(false)
    expect(await got(blocked!, plain)).toBe(false)
    expect(await got(mentionMuter!, plain)).toBe(true)
    expect(await got(mentionMuter!, withMention)).toBe(false)
    expect(await got(blocker!, withMention)).toBe(false)
    // The muted account's own status is left out for the one who muted it, not for the others.
    expect(await got(mentionMuter!, fromOther)).toBe(false)
    expect(await got(blocker!, fromOther)).toBe(true)
    const exclude = published.find((p) => p.channel === 'timeline:public' && has(p.message, plain))!.message
      .exclude!
    expect(exclude.sort()).toEqual([blocker!.id, muter!.id, blocked!.id].sort())
    for (const socket of sockets.values()) await socket.close()
  })
})

describe('announcements', () => {
  it('reach every streaming user: announcement, announcement.reaction and announcement.delete', async () => {
    const viewer = await reader(stack)
    const reactor = await reader(stack)
    const stream = await openEventStream(stack, '/api/v1/streaming/user', bearer(viewer.token))
    const announcement = await stack.accounts.ctx.db.transaction((trx) =>
      createAnnouncement(trx, { text: 'Maintenance tonight #roost' }),
    )
    const published = await stream.inbox.next((m) => m.event === 'announcement')
    expect(JSON.parse(published.payload!)).toMatchObject({
      id: announcement.id,
      content: expect.stringContaining('Maintenance tonight'),
      reactions: [],
    })
    await stack
      .api()
      .put(`/api/v1/announcements/${announcement.id}/reactions/${encodeURIComponent('👍')}`)
      .set(bearer(reactor.token))
      .expect(200)
    const reaction = await stream.inbox.next((m) => m.event === 'announcement.reaction')
    expect(JSON.parse(reaction.payload!)).toEqual({ name: '👍', count: 1, announcement_id: announcement.id })
    await stack.accounts.ctx.db.transaction((trx) => withdrawAnnouncement(trx, announcement.id))
    expect(await stream.inbox.next((m) => m.event === 'announcement.delete')).toEqual({
      event: 'announcement.delete',
      payload: announcement.id,
    })
    stream.close()
  })
})

describe('the direct stream', () => {
  it('sends each participant its Conversation when a direct status enters or leaves it, and when read', async () => {
    const author = await reader(stack)
    const recipient = await reader(stack)
    await follow(recipient, author) // a direct status reaches the home feeds of mentioned followers
    // The recipient listens to direct and user on one socket; the author to direct over an event stream.
    const socket = await openSocket(stack, '?stream=direct', { protocols: [recipient.token] })
    socket.send({ type: 'subscribe', stream: 'user' })
    const authorStream = await openEventStream(stack, '/api/v1/streaming/direct', bearer(author.token))
    await live(channels.direct(recipient.id))
    await live(channels.notifications(recipient.id))
    await live(channels.direct(author.id))

    const first = await post(author, { status: `@${recipient.username} just us`, visibility: 'direct' })
    const received = await socket.inbox.next((m) => m.event === 'conversation')
    expect(received.stream).toEqual(['direct'])
    const conversation = JSON.parse(received.payload!)
    expect(conversation).toMatchObject({
      unread: true,
      accounts: [{ id: author.id, username: author.username }],
      last_status: { id: first, visibility: 'direct', favourited: false },
    })
    expect(conversation.accounts).toHaveLength(1)
    // The author's own Conversation: read, the recipient as the other participant.
    const own = JSON.parse((await authorStream.inbox.next((m) => m.event === 'conversation')).payload!)
    expect(own).toMatchObject({
      unread: false,
      accounts: [{ id: recipient.id }],
      last_status: { id: first },
    })
    expect(own.id).not.toBe(conversation.id)
    // On the user stream: the mention, and the status itself (the recipient follows the author).
    expect(JSON.parse((await socket.inbox.next((m) => m.event === 'notification')).payload!)).toMatchObject({
      type: 'mention',
      status: { id: first },
    })
    expect((await socket.inbox.next((m) => m.event === 'update')).stream).toEqual(['user'])

    // A reply, rendered for the recipient (who favourited the first one).
    await recipient.post(`/api/v1/statuses/${first}/favourite`).expect(200)
    const second = await post(author, {
      status: `@${recipient.username} and more`,
      visibility: 'direct',
      in_reply_to_id: first,
    })
    const replied = JSON.parse((await socket.inbox.next((m) => m.event === 'conversation')).payload!)
    expect(replied).toMatchObject({ id: conversation.id, unread: true, last_status: { id: second } })
    // The author's own has it too. Waited for before the reply is deleted below: on a loaded machine the deletion
    // could otherwise overtake it, and the reply would never have been in the author's conversation at all.
    const ownReplied = JSON.parse((await authorStream.inbox.next((m) => m.event === 'conversation')).payload!)
    expect(ownReplied).toMatchObject({ id: own.id, unread: false, last_status: { id: second } })

    // Marked read (by another app of the recipient's): every app hears of it.
    await recipient.post(`/api/v1/conversations/${conversation.id}/read`).expect(200)
    const read = JSON.parse((await socket.inbox.next((m) => m.event === 'conversation')).payload!)
    expect(read).toMatchObject({ id: conversation.id, unread: false, last_status: { id: second } })

    // The newest status deleted: the conversation falls back to the first, which the recipient favourited.
    await author.delete(`/api/v1/statuses/${second}`).expect(200)
    const fallen = JSON.parse((await socket.inbox.next((m) => m.event === 'conversation')).payload!)
    expect(fallen).toMatchObject({ id: conversation.id, last_status: { id: first, favourited: true } })
    const ownFallen = JSON.parse((await authorStream.inbox.next((m) => m.event === 'conversation')).payload!)
    expect(ownFallen).toMatchObject({ id: own.id, last_status: { id: first } })
    await stack.drain()
    // Nothing else on direct: each change once.
    expect(socket.inbox.events('conversation')).toHaveLength(4)
    expect(authorStream.inbox.events('conversation')).toHaveLength(3)
    await socket.close()
    authorStream.close()
  })
})
