import type { mastodon } from 'masto'
import { createRestAPIClient } from 'masto'
import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { FEDERATED, domainOf, eventually } from './two-roost'

/**
 * Posts across two Roost servers, with masto.js as each user's client (docs/federation.md, "Posts across servers"
 * and "Incoming statuses"): alice on A follows bob on B; bob's public, unlisted, private and direct posts reach A
 * where Mastodon shows them; alice's reply, favourite, boost and mention reach bob as notifications and decrypted
 * Web Push; bob's edit and deletion reach A's copies.
 */
let a: Stack
let b: Stack
let receiver: PushReceiver
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({ env: FEDERATED })
  receiver = await startPushReceiver({ vapidPublicKey: b.env.VAPID_PUBLIC_KEY! })
}, 240_000)
afterAll(async () => {
  await receiver?.close()
  await a?.stop()
  await b?.stop()
})

const masto = (s: Stack, user: TestUser) =>
  createRestAPIClient({ url: s.url, accessToken: user.token, timeout: 30_000 })
/** A's copy of a status of B, by its URI, once it has arrived. */
const copyOnA = (bStatusId: string) =>
  a.accounts.ctx
    .db('statuses')
    .where({ uri: `${b.url}/users/bob/statuses/${bStatusId}` })
    .first()

describe('two Roost servers, masto.js on each', () => {
  let alice: mastodon.rest.Client
  let aliceUser: TestUser
  let bob: mastodon.rest.Client
  let bobOnA: mastodon.v1.Account
  let bobEndpoint: string
  const posts: Record<'public' | 'unlisted' | 'private' | 'direct', mastodon.v1.Status> = {} as never
  const copies: Record<string, string> = {}

  beforeAll(async () => {
    aliceUser = await signUp(a, { username: 'alice' })
    alice = masto(a, aliceUser)
    bob = masto(b, await signUp(b, { username: 'bob', scope: 'read write follow push' }))
    const subscriber = receiver.subscriber()
    bobEndpoint = subscriber.endpoint
    await bob.v1.push.subscription.create({
      subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys },
      data: { alerts: { mention: true, favourite: true, reblog: true } },
      policy: 'all',
    })
  }, 120_000)

  it('alice follows bob across servers', async () => {
    // alice's app opens her home timeline first, as apps do: her feed exists from sign-up, so it is already ready.
    expect(await alice.v1.timelines.home.list()).toEqual([])
    const found = await alice.v2.search.list({ q: `@bob@${domainOf(b)}`, resolve: true, type: 'accounts' })
    expect(found.accounts).toHaveLength(1)
    bobOnA = found.accounts[0]!
    await alice.v1.accounts.$select(bobOnA.id).follow()
    await eventually(async () => {
      const [r] = await alice.v1.accounts.relationships.fetch({ id: [bobOnA.id] })
      return r?.following || undefined
    })
  })

  it("bob's posts reach A where Mastodon shows them: home, public timelines, the account", async () => {
    posts.public = await bob.v1.statuses.create({ status: 'public #roost', visibility: 'public' })
    posts.unlisted = await bob.v1.statuses.create({ status: 'unlisted', visibility: 'unlisted' })
    posts.private = await bob.v1.statuses.create({ status: 'followers only', visibility: 'private' })
    posts.direct = await bob.v1.statuses.create({
      status: `@alice@${domainOf(a)} just you`,
      visibility: 'direct',
    })
    for (const [visibility, status] of Object.entries(posts)) {
      const row = await eventually(() => copyOnA(status.id))
      expect(row.visibility).toBe(visibility)
      copies[visibility] = row.id
    }
    // Home: all four (the direct one because it mentions alice), newest first.
    const home = await eventually(async () => {
      const page = await alice.v1.timelines.home.list({ limit: 40 })
      return page.length === 4 ? page : undefined
    })
    expect(home.map((s) => s.id)).toEqual([copies.direct, copies.private, copies.unlisted, copies.public])
    expect(home.find((s) => s.id === copies.public)).toMatchObject({
      uri: `${b.url}/users/bob/statuses/${posts.public.id}`,
      account: { acct: `bob@${domainOf(b)}` },
      tags: [{ name: 'roost' }],
    })
    // bob's HTML as B wrote it, through A's sanitiser: the text and the hashtag link stay.
    expect(home.find((s) => s.id === copies.public)!.content).toBe(
      `<p>public <a href="${b.url}/tags/roost" rel="tag nofollow noopener" target="_blank" class="mention hashtag">#<span>roost</span></a></p>`,
    )
    // The federated timeline: the public one only; the local one: none of them; remote=true: the public one.
    expect((await alice.v1.timelines.public.list()).map((s) => s.id)).toEqual([copies.public])
    expect(await alice.v1.timelines.public.list({ local: true })).toEqual([])
    expect((await alice.v1.timelines.public.list({ remote: true })).map((s) => s.id)).toEqual([copies.public])
    expect((await alice.v1.timelines.tag.$select('roost').list()).map((s) => s.id)).toEqual([copies.public])
    // bob's account on A, as alice (a follower) sees it: public, unlisted, private and the direct to her.
    const listed = await alice.v1.accounts.$select(bobOnA.id).statuses.list()
    expect(listed.map((s) => s.id)).toEqual([copies.direct, copies.private, copies.unlisted, copies.public])
    // alice's conversations hold the direct one.
    const conversations = await eventually(async () => {
      const list = await alice.v1.conversations.list()
      return list.length ? list : undefined
    })
    expect(conversations[0]!.lastStatus?.id).toBe(copies.direct)
  })

  it('alice replies, favourites and boosts: bob is notified and his phone gets each, decrypted', async () => {
    const reply = await alice.v1.statuses.create({
      status: `@bob@${domainOf(b)} nice post`,
      inReplyToId: copies.public,
    })
    await alice.v1.statuses.$select(copies.public).favourite()
    await alice.v1.statuses.$select(copies.public).reblog()

    const notifications = await eventually(async () => {
      const list = (await bob.v1.notifications.list()).filter((n) => n.type !== 'follow')
      return list.length >= 3 ? list : undefined
    })
    expect(notifications.map((n) => [n.type, n.account.acct]).sort()).toEqual([
      ['favourite', `alice@${domainOf(a)}`],
      ['mention', `alice@${domainOf(a)}`],
      ['reblog', `alice@${domainOf(a)}`],
    ])
    await receiver.waitFor(() => receiver.messagesFor(bobEndpoint).length >= 3, 90_000)
    expect(receiver.problems).toEqual([])
    expect(
      receiver
        .messagesFor(bobEndpoint)
        .map((m) => (m.payload as { notification_type: string }).notification_type)
        .sort(),
    ).toEqual(['favourite', 'mention', 'reblog'])

    // The thread, on both sides: B has alice's reply under bob's post, A has it under its copy.
    const onB = await bob.v1.statuses.$select(posts.public.id).context.fetch()
    expect(onB.descendants.map((s) => s.uri)).toEqual([reply.uri])
    const onA = await alice.v1.statuses.$select(copies.public).context.fetch()
    expect(onA.descendants.map((s) => s.id)).toEqual([reply.id])
    const original = await bob.v1.statuses.$select(posts.public.id).fetch()
    expect(original).toMatchObject({ favouritesCount: 1, reblogsCount: 1, repliesCount: 1 })
  })

  it("a mention from alice to bob pushes to bob's device", async () => {
    const before = receiver.messagesFor(bobEndpoint).length
    await alice.v1.statuses.create({ status: `hello @bob@${domainOf(b)}` })
    await receiver.waitFor(() => receiver.messagesFor(bobEndpoint).length === before + 1, 90_000)
    expect(receiver.messagesFor(bobEndpoint).at(-1)!.payload).toMatchObject({
      notification_type: 'mention',
      body: expect.stringContaining('hello'),
    })
  })

  it("bob's edit and deletion reach A's copies", async () => {
    await bob.v1.statuses.$select(posts.public.id).update({ status: 'public, edited #roost' })
    const edited = await eventually(async () => {
      const s = await alice.v1.statuses.$select(copies.public).fetch()
      return s.editedAt && s.content.includes('edited') ? s : undefined
    })
    expect(edited.content).toContain('public, edited')
    const history = await alice.v1.statuses.$select(copies.public).history.list()
    expect(history).toHaveLength(2)

    await bob.v1.statuses.$select(posts.unlisted.id).remove()
    await eventually(async () => ((await copyOnA(posts.unlisted.id)) ? undefined : true))
    const home = await eventually(async () => {
      const page = await alice.v1.timelines.home.list({ limit: 40 })
      return page.some((s) => s.id === copies.unlisted) ? undefined : page
    })
    expect(home.map((s) => s.id)).not.toContain(copies.unlisted)
  })

  it("bob blocks alice across servers: her next home read is 200, without bob's posts", async () => {
    const before = await aliceUser.get('/api/v1/timelines/home?limit=40').expect(200)
    expect(before.body.some((s: { account: { id: string } }) => s.account.id === bobOnA.id)).toBe(true)
    const found = await bob.v2.search.list({ q: `@alice@${domainOf(a)}`, resolve: true, type: 'accounts' })
    await bob.v1.accounts.$select(found.accounts[0]!.id).block()
    // A hears of the Block: alice's follow of bob ends, and she sees herself blocked.
    await eventually(async () => {
      const [r] = await alice.v1.accounts.relationships.fetch({ id: [bobOnA.id] })
      return r?.blockedBy && !r.following ? r : undefined
    })
    await a.drain()
    const after = await aliceUser.get('/api/v1/timelines/home?limit=40').expect(200)
    const byBob = (s: { account: { id: string }; reblog: { account: { id: string } } | null }) =>
      s.account.id === bobOnA.id || s.reblog?.account.id === bobOnA.id
    expect(after.body.filter(byBob)).toEqual([])
  })
})
