import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

/** Effects across servers go through two queues each way: generous on a loaded shared machine. */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Two Roost servers on this machine, federating through their gateways over real HTTP (docs/federation.md):
 * WebFinger and actor look-ups, follows both ways (one to a locked account, authorized), an unfollow and a block,
 * with relationships, follower lists, counts and notifications right on both sides.
 */
let a: Stack
let b: Stack
let receiver: PushReceiver
const FEDERATED = { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' }
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({ env: FEDERATED })
  receiver = await startPushReceiver({ vapidPublicKey: b.env.VAPID_PUBLIC_KEY! })
}, 180_000)
afterAll(async () => {
  await receiver?.close()
  await a?.stop()
  await b?.stop()
})

const domainOf = (s: Stack) => new URL(s.url).host
const drainBoth = async () => {
  await a.drain()
  await b.drain()
}

/** The remote account `username@stack` as `user` finds it by search with resolve=true. */
async function resolve(user: TestUser, username: string, on: Stack) {
  const res = await user
    .get(`/api/v2/search?q=${encodeURIComponent(`@${username}@${domainOf(on)}`)}&resolve=true&type=accounts`)
    .expect(200)
  expect(res.body.accounts).toHaveLength(1)
  return res.body.accounts[0] as { id: string; acct: string; url: string; uri: string; locked: boolean }
}

/** The known remote account `username@stack` as `user` sees it (lookup: no WebFinger). */
async function resolveKnown(user: TestUser, username: string, on: Stack) {
  const res = await user.get(`/api/v1/accounts/lookup?acct=${username}@${domainOf(on)}`).expect(200)
  return res.body as { id: string; display_name: string; note: string }
}

const relationship = async (user: TestUser, id: string) =>
  (await user.get(`/api/v1/accounts/relationships?id[]=${id}`).expect(200)).body[0]

describe('two Roost servers', () => {
  let alice: TestUser // on A, unlocked
  let bob: TestUser // on B, unlocked
  let carol: TestUser // on B, locked
  let bobEndpoint: string
  beforeAll(async () => {
    alice = await signUp(a, { username: 'alice' })
    bob = await signUp(b, { username: 'bob', scope: 'read write follow push' })
    // bob's phone hears of new followers by Web Push.
    const subscriber = receiver.subscriber()
    bobEndpoint = subscriber.endpoint
    await bob
      .post('/api/v1/push/subscription', {
        subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys, standard: true },
        data: { alerts: { follow: true }, policy: 'all' },
      })
      .expect(200)
    carol = await signUp(b, { username: 'carol' })
    await b.accounts.ctx.db('accounts').where({ id: carol.id }).update({ locked: true })
  })

  it('finds an account of the other server by search with resolve=true, then by lookup', async () => {
    // Unknown before: lookup does not WebFinger (as Mastodon's), search without resolve finds nothing.
    await alice.get(`/api/v1/accounts/lookup?acct=bob@${domainOf(b)}`).expect(404)
    const plain = await alice.get(`/api/v2/search?q=bob@${domainOf(b)}`).expect(200)
    expect(plain.body.accounts).toEqual([])
    // Resolving needs a signed-in user.
    await a
      .api()
      .get(`/api/v2/search?q=bob@${domainOf(b)}&resolve=true`)
      .expect(401, {
        error: 'Search queries that resolve remote resources are not supported without authentication',
      })

    const found = await resolve(alice, 'bob', b)
    expect(found).toMatchObject({
      acct: `bob@${domainOf(b)}`,
      username: 'bob',
      url: `${b.url}/@bob`,
      uri: `${b.url}/users/bob`,
      locked: false,
    })
    const looked = await alice.get(`/api/v1/accounts/lookup?acct=bob@${domainOf(b)}`).expect(200)
    expect(looked.body.id).toBe(found.id)
    const shown = await a.api().get(`/api/v1/accounts/${found.id}`).expect(200)
    expect(shown.body.acct).toBe(`bob@${domainOf(b)}`)
    // /api/v1/accounts/search resolves too, and an unknown server finds nothing.
    const searched = await alice.get(`/api/v1/accounts/search?q=bob@${domainOf(b)}&resolve=true`).expect(200)
    expect(searched.body.map((x: { id: string }) => x.id)).toEqual([found.id])
    const nowhere = await alice.get('/api/v1/accounts/search?q=nobody@127.0.0.1:1&resolve=true').expect(200)
    expect(nowhere.body).toEqual([])
  })

  it('follows an unlocked remote account: requested until its server accepts, then following', async () => {
    const remoteBob = await resolve(alice, 'bob', b)
    const res = await alice.post(`/api/v1/accounts/${remoteBob.id}/follow`).expect(200)
    expect(res.body).toMatchObject({ following: false, requested: true })
    await eventually(async () => (await relationship(alice, remoteBob.id)).following)
    expect(await relationship(alice, remoteBob.id)).toMatchObject({ following: true, requested: false })
    await drainBoth()

    // On B: bob has the follower alice@A, counted, listed and notified.
    const aliceOnB = (await b.accounts.ctx
      .db('accounts')
      .where({ username: 'alice', domain: domainOf(a) })
      .first())!
    expect((await relationship(bob, aliceOnB.id)).followed_by).toBe(true)
    const followers = await bob.get(`/api/v1/accounts/${bob.id}/followers`).expect(200)
    expect(followers.body.map((x: { acct: string }) => x.acct)).toEqual([`alice@${domainOf(a)}`])
    expect((await bob.get(`/api/v1/accounts/${bob.id}`).expect(200)).body.followers_count).toBe(1)
    const notifications = await bob.get('/api/v1/notifications').expect(200)
    expect(
      notifications.body.map((n: { type: string; account: { acct: string } }) => [n.type, n.account.acct]),
    ).toEqual([['follow', `alice@${domainOf(a)}`]])
    // bob's push service got the follow, and it decrypted.
    await receiver.waitFor(() => receiver.messagesFor(bobEndpoint).length === 1, 60_000)
    expect(receiver.problems).toEqual([])
    expect(receiver.messagesFor(bobEndpoint)[0]!.payload).toMatchObject({
      notification_type: 'follow',
      title: 'alice is now following you',
    })
    // On A: alice follows one account.
    expect((await alice.get(`/api/v1/accounts/${alice.id}`).expect(200)).body.following_count).toBe(1)
  })

  it('asks a locked remote account, which authorizes the request', async () => {
    const remoteCarol = await resolve(alice, 'carol', b)
    expect(remoteCarol.locked).toBe(true)
    await alice.post(`/api/v1/accounts/${remoteCarol.id}/follow`).expect(200)
    await drainBoth()
    const requests = await eventually(async () => {
      const r = await carol.get('/api/v1/follow_requests').expect(200)
      return r.body.length ? r.body : undefined
    })
    expect(requests.map((x: { acct: string }) => x.acct)).toEqual([`alice@${domainOf(a)}`])
    expect((await relationship(alice, remoteCarol.id)).requested).toBe(true)
    const notified = await carol.get('/api/v1/notifications').expect(200)
    expect(notified.body.map((n: { type: string }) => n.type)).toEqual(['follow_request'])

    await carol.post(`/api/v1/follow_requests/${requests[0].id}/authorize`).expect(200)
    await eventually(async () => (await relationship(alice, remoteCarol.id)).following)
    expect(await relationship(alice, remoteCarol.id)).toMatchObject({ following: true, requested: false })
  })

  it('is followed from the other server: the follow arrives and is accepted', async () => {
    const remoteAlice = await resolve(carol, 'alice', a)
    await carol.post(`/api/v1/accounts/${remoteAlice.id}/follow`).expect(200)
    await eventually(async () => (await relationship(carol, remoteAlice.id)).following)
    await drainBoth()
    const carolOnA = (await a.accounts.ctx
      .db('accounts')
      .where({ username: 'carol', domain: domainOf(b) })
      .first())!
    expect(await relationship(alice, carolOnA.id)).toMatchObject({ following: true, followed_by: true })
    const notified = await alice.get('/api/v1/notifications').expect(200)
    expect(
      notified.body.map((n: { type: string; account: { acct: string } }) => [n.type, n.account.acct]),
    ).toEqual([['follow', `carol@${domainOf(b)}`]])
  })

  it("sends a profile change to the followers' servers", async () => {
    await a
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ display_name: 'Alice of A', note: 'New bio' })
      .expect(200)
    await a.drain()
    const carolsView = async () => (await resolveKnown(carol, 'alice', a))!
    await eventually(async () => (await carolsView()).display_name === 'Alice of A')
    expect((await carolsView()).note).toBe('<p>New bio</p>')
  })

  it('unfollows: the other server hears of it', async () => {
    const remoteBob = await resolve(alice, 'bob', b)
    await alice.post(`/api/v1/accounts/${remoteBob.id}/unfollow`).expect(200)
    await drainBoth()
    await eventually(
      async () => (await bob.get(`/api/v1/accounts/${bob.id}`).expect(200)).body.followers_count === 0,
    )
    const aliceOnB = (await b.accounts.ctx
      .db('accounts')
      .where({ username: 'alice', domain: domainOf(a) })
      .first())!
    expect((await relationship(bob, aliceOnB.id)).followed_by).toBe(false)
    expect((await bob.get(`/api/v1/accounts/${bob.id}/followers`).expect(200)).body).toEqual([])
  })

  it('blocks: the follows both ways end on both servers', async () => {
    const remoteCarol = await resolve(alice, 'carol', b)
    await alice.post(`/api/v1/accounts/${remoteCarol.id}/block`).expect(200)
    expect(await relationship(alice, remoteCarol.id)).toMatchObject({
      blocking: true,
      following: false,
      followed_by: false,
    })
    await drainBoth()
    const aliceOnB = (await b.accounts.ctx
      .db('accounts')
      .where({ username: 'alice', domain: domainOf(a) })
      .first())!
    await eventually(async () => (await relationship(carol, aliceOnB.id)).blocked_by)
    expect(await relationship(carol, aliceOnB.id)).toMatchObject({
      blocked_by: true,
      following: false,
      followed_by: false,
    })
    await eventually(async () => {
      const counts = (await carol.get(`/api/v1/accounts/${carol.id}`).expect(200)).body
      return counts.followers_count === 0 && counts.following_count === 0
    })
    // Unblocking is heard of too.
    await alice.post(`/api/v1/accounts/${remoteCarol.id}/unblock`).expect(200)
    await drainBoth()
    await eventually(async () => !(await relationship(carol, aliceOnB.id)).blocked_by)
  })
})
