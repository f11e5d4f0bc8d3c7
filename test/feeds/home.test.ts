import { RevocationList } from '@roost/auth'
import { INLINE_REBUILD_FOLLOWS } from '../../apps/accounts/src/feeds/home'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { ids, links, post, reader, signUp, timeline } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
beforeAll(async () => {
  stack = await startStack()
})
afterAll(async () => {
  await stack.stop()
})

const home = (user: TestUser) => ids(stack, user)
const follow = (user: TestUser, target: TestUser, body: object = {}) =>
  user.post(`/api/v1/accounts/${target.id}/follow`, body).expect(200)
const reblog = async (user: TestUser, id: string) =>
  (await user.post(`/api/v1/statuses/${id}/reblog`).expect(200)).body.id as string

const feedOf = (user: TestUser) => ({ type: 'home' as const, id: user.id })
/** Forgets a user's feed in Redis, as if it were lost: its next read finds it missing. */
const loseFeed = (user: TestUser) => stack.accountsWorker!.feeds.drop(feedOf(user))
const statusIds = (res: { body: { id: string }[] }) => res.body.map((s) => s.id)

describe('GET /api/v1/timelines/home', () => {
  it('a new user follows a friend, the friend posts: the first read is 200 with the post; needs a user token', async () => {
    // The HTTP of masto.js and toot: sign up, follow, read home; nothing read home before.
    const [me, friend] = [await signUp(stack), await signUp(stack)]
    await follow(me, friend)
    const posted = await post(friend, 'hello, new neighbour')
    await stack.drain()
    const first = await me.get('/api/v1/timelines/home').expect(200)
    expect(statusIds(first)).toEqual([posted])
    expect(first.body[0]).toMatchObject({
      id: posted,
      content: '<p>hello, new neighbour</p>',
      account: { id: friend.id },
    })

    await stack.api().get('/api/v1/timelines/home').expect(401)
    const app = await stack.appToken('read')
    await stack.api().get('/api/v1/timelines/home').set('Authorization', `Bearer ${app}`).expect(422)
  })

  it('a lost feed of a user who follows few accounts is rebuilt by the read itself: 200 at once', async () => {
    const [me, friend] = [await signUp(stack), await signUp(stack)]
    await follow(me, friend)
    const expected = [await post(friend, 'one'), await post(me, 'two'), await post(friend, 'three')].reverse()
    await stack.drain()
    await stack.pauseAccountsWorkers() // nothing but the read can rebuild it
    try {
      await loseFeed(me)
      expect(statusIds(await me.get('/api/v1/timelines/home').expect(200))).toEqual(expected)
      expect(await stack.accountsWorker!.feeds.state(feedOf(me))).toBe('ready')
    } finally {
      stack.resumeAccountsWorkers()
    }
  })

  it(`a long rebuild (more than ${INLINE_REBUILD_FOLLOWS} follows) answers 206 with the newest statuses from Postgres, then 200`, async () => {
    const [me, friend] = [await signUp(stack), await signUp(stack)]
    const db = stack.accounts.ctx.db
    await db.raw(
      `WITH many AS (
         INSERT INTO accounts (username) SELECT 'many_' || ? || '_' || g FROM generate_series(1, ?) g RETURNING id)
       INSERT INTO follows (account_id, target_account_id) SELECT ?, id FROM many`,
      [me.id.slice(-6), INLINE_REBUILD_FOLLOWS, me.id],
    )
    await follow(me, friend)
    const posted = [
      await post(friend, 'first'),
      await post(me, 'second'),
      await post(friend, { status: 'third, for followers', visibility: 'private' }),
    ].reverse()
    await post(friend, { status: 'a direct word to someone else', visibility: 'direct' })
    await stack.drain()

    await stack.pauseAccountsWorkers()
    try {
      await loseFeed(me)
      const first = await me.get('/api/v1/timelines/home').expect(206)
      expect(statusIds(first)).toEqual(posted)
      // Pages while the rebuild runs: the same cursors and Link header as a feed.
      const top = await me.get('/api/v1/timelines/home?limit=2').expect(206)
      expect(statusIds(top)).toEqual(posted.slice(0, 2))
      expect(links(top.headers.link).next).toBe(
        `${stack.url}/api/v1/timelines/home?limit=2&max_id=${posted[1]}`,
      )
      const rest = await me.get(`/api/v1/timelines/home?max_id=${posted[1]}`).expect(206)
      expect(statusIds(rest)).toEqual(posted.slice(2))
      const above = await me.get(`/api/v1/timelines/home?min_id=${posted[2]}&limit=1`).expect(206)
      expect(statusIds(above)).toEqual([posted[1]])
    } finally {
      stack.resumeAccountsWorkers()
    }
    await stack.drain()
    expect(statusIds(await me.get('/api/v1/timelines/home').expect(200))).toEqual(posted)
  })

  it('pages with max_id, since_id and min_id, limit 20 by default and at most 40, Link headers', async () => {
    const me = await reader(stack)
    const posted: string[] = []
    for (let i = 0; i < 45; i++) posted.unshift(await post(me, `n${i}`))
    const res = await timeline(stack, me)
    expect(res.body.map((s: { id: string }) => s.id)).toEqual(posted.slice(0, 20))
    expect((await timeline(stack, me, '/api/v1/timelines/home?limit=100')).body).toHaveLength(40)
    const page = await timeline(stack, me, `/api/v1/timelines/home?limit=5&max_id=${posted[9]}&local=true`)
    expect(page.body.map((s: { id: string }) => s.id)).toEqual(posted.slice(10, 15))
    expect(links(page.headers.link)).toEqual({
      next: `${stack.url}/api/v1/timelines/home?limit=5&local=true&max_id=${posted[14]}`,
      prev: `${stack.url}/api/v1/timelines/home?limit=5&local=true&min_id=${posted[10]}`,
    })
    const above = await timeline(stack, me, `/api/v1/timelines/home?limit=3&min_id=${posted[10]}`)
    expect(above.body.map((s: { id: string }) => s.id)).toEqual(posted.slice(7, 10))
    const since = await timeline(stack, me, `/api/v1/timelines/home?limit=3&since_id=${posted[10]}`)
    expect(since.body.map((s: { id: string }) => s.id)).toEqual(posted.slice(0, 3))
    const empty = await timeline(stack, me, `/api/v1/timelines/home?since_id=${posted[0]}`)
    expect(empty.body).toEqual([])
    expect(empty.headers.link).toBeUndefined()
  })
})

describe('who gets a new status (fan-out on write)', () => {
  it('the author and active local followers; not others; not followers inactive for more than 7 days', async () => {
    const [author, fan, stranger, away] = [
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
    ]
    await follow(fan, author)
    await follow(away, author)
    await stack.drain()
    const db = stack.accounts.ctx.db
    await db('users')
      .where({ account_id: away.id })
      .update({ current_sign_in_at: db.raw("now() - interval '8 days'") })
    const id = await post(author, 'fresh')
    await stack.drain()
    const itemsOf = (user: TestUser) => stack.accountsWorker!.feeds.ids(feedOf(user))
    expect(await itemsOf(author)).toContain(id)
    expect(await itemsOf(fan)).toContain(id)
    expect(await itemsOf(stranger)).not.toContain(id)
    expect(await itemsOf(away)).not.toContain(id)
    // Back after the absence: the worker rebuilds the feed from Postgres (Mastodon's RegenerationWorker at sign-in),
    // and meanwhile reads answer 206 with the newest statuses, read from Postgres; then 200.
    await stack.pauseAccountsWorkers()
    try {
      expect(statusIds(await away.get('/api/v1/timelines/home').expect(206))).toContain(id)
    } finally {
      stack.resumeAccountsWorkers()
    }
    await stack.drain()
    expect(statusIds(await away.get('/api/v1/timelines/home').expect(200))).toContain(id)
  })

  it('blocks and mutes either way: the author, mentioned accounts, a reblog’s original author and its mentions', async () => {
    const [me, friend, muted, blocked, blocker] = [
      await reader(stack),
      await reader(stack),
      await signUp(stack),
      await signUp(stack),
      await signUp(stack),
    ]
    await follow(me, friend)
    await follow(me, muted)
    await me.post(`/api/v1/accounts/${muted.id}/mute`, { notifications: false }).expect(200)
    await me.post(`/api/v1/accounts/${blocked.id}/block`).expect(200)
    await blocker.post(`/api/v1/accounts/${me.id}/block`).expect(200)
    const fine = await post(friend, 'nothing wrong')
    await post(muted, 'muted author')
    await post(friend, `hi @${muted.username}`)
    await post(friend, `hi @${blocked.username}`)
    const byBlocked = await post(blocked, 'blocked author')
    const byBlocker = await post(blocker, 'blocker author')
    const mentionsBlocked = await post(blocker, `about @${blocked.username}`)
    await reblog(friend, byBlocked)
    await reblog(friend, byBlocker)
    await reblog(friend, mentionsBlocked)
    const mentioningOnlyFriend = await post(blocker, `about @${friend.username}`)
    await reblog(friend, mentioningOnlyFriend)
    expect(await home(me)).toEqual([fine])
  })

  it('reblogs=false follows, follow languages, replies only to followed accounts, direct only to mentioned followers', async () => {
    const [me, booster, polyglot, talker, other, followedToo] = [
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
    ]
    await follow(me, booster, { reblogs: false })
    await follow(me, polyglot, { languages: ['en'] })
    await follow(me, talker)
    await follow(me, followedToo)
    const theirs = await post(other, 'a post of someone I do not follow')
    const boosted = await reblog(booster, theirs)
    const ownPost = await post(booster, 'a booster’s own post')
    const en = await post(polyglot, { status: 'hello', language: 'en' })
    await post(polyglot, { status: 'hallo', language: 'de' })
    const unknown = await post(polyglot, { status: 'no language given' })
    await post(talker, { status: 'to a stranger', in_reply_to_id: theirs })
    const myThread = await post(me, 'my thread')
    const toMe = await post(talker, { status: 'to me', in_reply_to_id: myThread })
    const threadStart = await post(talker, 'thread start')
    const selfReply = await post(talker, { status: 'me again', in_reply_to_id: threadStart })
    const followedStart = await post(followedToo, 'followed start')
    const toFollowed = await post(talker, { status: 'to someone I follow', in_reply_to_id: followedStart })
    const dm = await post(talker, { status: `@${me.username} psst`, visibility: 'direct' })
    const dmOther = await post(talker, { status: `@${other.username} psst`, visibility: 'direct' })
    const expected = [
      ownPost,
      en,
      unknown,
      myThread,
      toMe,
      threadStart,
      selfReply,
      followedStart,
      toFollowed,
      dm,
    ]
    expect(await home(me)).toEqual(expected.reverse())
    expect(boosted).toBeDefined()
    expect(await home(other)).not.toContain(dmOther) // mentioned, but does not follow the author
  })
})

describe('reblogs of the same post', () => {
  it('show once within the newest 40 items; the held-back one comes back when the shown one goes', async () => {
    const [me, b, c, author] = [
      await reader(stack),
      await reader(stack),
      await reader(stack),
      await reader(stack),
    ]
    await follow(me, b)
    await follow(me, c)
    const original = await post(author, 'boost me')
    const viaB = await reblog(b, original)
    const viaC = await reblog(c, original)
    let feed = await home(me)
    expect(feed).toContain(viaB)
    expect(feed).not.toContain(viaC)
    await b.post(`/api/v1/statuses/${original}/unreblog`).expect(200)
    feed = await home(me)
    expect(feed).not.toContain(viaB)
    expect(feed).toContain(viaC)

    // A post already among the newest 40 is not shown again through a reblog.
    await follow(me, author)
    const direct = await post(author, 'seen already')
    const again = await reblog(b, direct)
    feed = await home(me)
    expect(feed).toContain(direct)
    expect(feed).not.toContain(again)
  })
})

describe('merge, unmerge, block, mute, deletion', () => {
  it('a follow merges the followed account’s statuses in; an unfollow takes them out, others’ reblogs stay', async () => {
    const [me, target, booster] = [await reader(stack), await reader(stack), await reader(stack)]
    const pub = await post(target, 'public')
    const priv = await post(target, { status: 'followers only', visibility: 'private' })
    const dm = await post(target, { status: `@${booster.username} direct`, visibility: 'direct' })
    await follow(me, booster)
    const boost = await reblog(booster, pub)
    expect(await home(me)).toEqual([boost])
    await follow(me, target)
    const merged = await home(me)
    expect(merged).toEqual(expect.arrayContaining([priv, boost]))
    expect(merged).not.toContain(dm)
    await me.post(`/api/v1/accounts/${target.id}/unfollow`).expect(200)
    expect(await home(me)).toEqual([boost])
  })

  it('block and mute clear the target’s statuses, reblogs of them and mentions of them; unmute brings them back', async () => {
    const [me, friend, target] = [await reader(stack), await reader(stack), await reader(stack)]
    await follow(me, friend)
    await follow(me, target)
    const own = await post(target, 'by the target')
    const boost = await reblog(friend, own)
    const mention = await post(friend, `hey @${target.username}`)
    const clean = await post(friend, 'unrelated')
    expect(await home(me)).toEqual(expect.arrayContaining([own, mention, clean]))
    await me.post(`/api/v1/accounts/${target.id}/mute`).expect(200)
    expect(await home(me)).toEqual([clean])
    await me.post(`/api/v1/accounts/${target.id}/unmute`).expect(200)
    expect(await home(me)).toEqual(expect.arrayContaining([own, clean]))

    await me.post(`/api/v1/accounts/${target.id}/block`).expect(200)
    const afterBlock = await home(me)
    expect(afterBlock).toEqual([clean])
    expect(afterBlock).not.toContain(boost)
  })

  it('a deleted status leaves every feed, its reblogs with it', async () => {
    const [me, author, booster] = [await reader(stack), await reader(stack), await reader(stack)]
    await follow(me, author)
    await follow(me, booster)
    const doomed = await post(author, 'soon gone')
    const kept = await post(author, 'stays')
    const boosted = await reblog(booster, kept)
    expect(await home(me)).toEqual(expect.arrayContaining([doomed, kept]))
    await author.delete(`/api/v1/statuses/${doomed}`).expect(200)
    await booster.post(`/api/v1/statuses/${kept}/unreblog`).expect(200)
    expect(await home(me)).toEqual([kept])
    expect(await home(author)).toEqual([kept])
    expect(await home(booster)).not.toContain(boosted)
  })
})

describe('Redis holds only what Postgres rebuilds', () => {
  it('after every key of the stack’s prefix is deleted, the feed comes back in full', async () => {
    const [me, friend] = [await reader(stack), await reader(stack)]
    await follow(me, friend)
    const expected = [await post(friend, 'one'), await post(me, 'two'), await post(friend, 'three')].reverse()
    expect(await home(me)).toEqual(expected)

    const redis = stack.accounts.ctx.redis
    const prefix = stack.env.REDIS_PREFIX!
    for (const pattern of [`${prefix}:*`, `{${prefix}}:*`]) {
      let cursor = '0'
      do {
        const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000)
        if (keys.length) await redis.unlink(...keys)
        cursor = next
      } while (cursor !== '0')
    }
    // Tokens cannot be judged until accounts has republished the revocation list it lost (docs/security.md).
    await eventually(() => new RevocationList(redis, prefix).isComplete())
    // The relay publishes the last minutes' events again (docs/activities.md, "When Redis loses its data"), this
    // feed's first home_feed.missing among them: the feed may be rebuilt before the read (200) or be asked for by
    // it (206); the full feed either way.
    await eventually(async () => (await redis.exists(`${prefix}:outbox:queues-intact`)) === 1)
    await stack.drain()
    expect([200, 206]).toContain((await me.get('/api/v1/timelines/home')).status)
    expect(await home(me)).toEqual(expected)
  })
})

describe('Link walks', () => {
  it('walks 250 items down with next and back up with prev', async () => {
    const [me, prolific] = [await reader(stack), await reader(stack)]
    await follow(me, prolific)
    // Ten at a time (a loaded machine takes long over 250 posts one by one); the feed's order is the ids' order.
    const posted: string[] = []
    for (let i = 0; i < 250; i += 10)
      posted.push(
        ...(await Promise.all(Array.from({ length: 10 }, (_, k) => post(prolific, `post ${i + k}`)))),
      )
    posted.sort((a, b) => (BigInt(b) > BigInt(a) ? 1 : BigInt(b) < BigInt(a) ? -1 : 0))
    await stack.drain()

    const down: string[] = []
    let path: string | undefined = '/api/v1/timelines/home?limit=40'
    let last = ''
    while (path) {
      const res = await timeline(stack, me, path)
      down.push(...res.body.map((s: { id: string }) => s.id))
      if (res.body.length) last = path
      path = res.body.length ? links(res.headers.link).next?.slice(stack.url.length) : undefined
    }
    expect(down).toEqual(posted)

    const up: string[][] = []
    path = links((await timeline(stack, me, last)).headers.link).prev?.slice(stack.url.length)
    up.push((await timeline(stack, me, last)).body.map((s: { id: string }) => s.id))
    while (path) {
      const res = await timeline(stack, me, path)
      if (res.body.length) up.unshift(res.body.map((s: { id: string }) => s.id))
      path = res.body.length ? links(res.headers.link).prev?.slice(stack.url.length) : undefined
    }
    expect(up.flat()).toEqual(posted)
  }, 300_000)
})
