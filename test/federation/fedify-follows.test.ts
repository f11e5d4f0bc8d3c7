import { bearer, eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startPeer } from './peer'
import type { InboxEntry, Peer } from './peer'

// Follows both ways between Roost and an independent ActivityPub server (the Fedify peer, ./peer): every
// activity the peer receives passed Fedify's own signature verification before it was recorded.
let stack: Stack
let peer: Peer
let alice: TestUser
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startPeer({ httpHosts: [new URL(stack.url).host] })
  alice = await signUp(stack, { username: 'alice' })
})
afterAll(async () => {
  await peer?.stop()
  await stack?.stop()
})

const host = () => new URL(stack.url).host
const aliceUri = () => `${stack.url}/users/alice`
/** The first activity the peer received that matches, waited for. */
// Generous deadlines: the full suite runs on a loaded shared machine, and a delivery may be retried.
const WAIT_MS = 45_000
jest.setTimeout(3 * WAIT_MS)
const received = (match: (a: InboxEntry) => boolean) =>
  eventually(async () => (await peer.log()).inbox.find(match), WAIT_MS)
const accountOf = (user: TestUser) => user.get(`/api/v1/accounts/${user.id}`).expect(200)

describe('the Fedify peer follows a Roost account', () => {
  let followId: string
  it('found by WebFinger: Roost accepts, and the Accept arrives at the peer (signature verified by Fedify)', async () => {
    const sent = await peer.follow(`@alice@${host()}`)
    expect(sent.target).toBe(aliceUri())
    followId = sent.followId
    const accept = await received((a) => a.type === 'Accept' && a.object === followId)
    expect(accept).toMatchObject({ actor: aliceUri(), recipient: 'bob' })

    // Roost's side: bob@peer follows alice, counted, listed and notified.
    const followers = await alice.get(`/api/v1/accounts/${alice.id}/followers`).expect(200)
    expect(followers.body.map((a: { acct: string }) => a.acct)).toEqual([`bob@${peer.host}`])
    expect((await accountOf(alice)).body.followers_count).toBe(1)
    const notifications = await eventually(async () => {
      const res = await alice.get('/api/v1/notifications?types[]=follow').expect(200)
      return res.body.length ? res.body : undefined
    }, WAIT_MS)
    expect(notifications[0].account.acct).toBe(`bob@${peer.host}`)
  })

  it('and unfollows (Undo): the follow ends on Roost', async () => {
    await peer.unfollow(aliceUri(), followId)
    await eventually(async () => (await accountOf(alice)).body.followers_count === 0, WAIT_MS)
    const followers = await alice.get(`/api/v1/accounts/${alice.id}/followers`).expect(200)
    expect(followers.body).toEqual([])
  })
})

describe('a Roost account follows the Fedify peer', () => {
  it('resolved by search: the Follow arrives, the peer accepts, the relationship is following; then unfollows', async () => {
    const search = await alice
      .get(`/api/v2/search?q=${encodeURIComponent(`@bob@${peer.host}`)}&resolve=true&type=accounts`)
      .expect(200)
    expect(search.body.accounts).toHaveLength(1)
    const bob = search.body.accounts[0]
    expect(bob).toMatchObject({ acct: `bob@${peer.host}`, uri: peer.actor(), locked: true })

    const followed = await alice.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
    expect(followed.body).toMatchObject({ following: false, requested: true })
    const follow = await received((a) => a.type === 'Follow' && a.actor === aliceUri())
    expect(follow.object).toBe(peer.actor())

    await peer.accept(follow.id!)
    const relationship = await eventually(async () => {
      const res = await alice.get(`/api/v1/accounts/relationships?id[]=${bob.id}`).expect(200)
      return res.body[0].following ? res.body[0] : undefined
    }, WAIT_MS)
    expect(relationship).toMatchObject({ following: true, requested: false })
    expect((await accountOf(alice)).body.following_count).toBe(1)

    await alice.post(`/api/v1/accounts/${bob.id}/unfollow`).expect(200)
    const undo = await received((a) => a.type === 'Undo' && a.actor === aliceUri())
    expect((undo.json.object as { id?: string }).id ?? undo.object).toBe(follow.id)
  })
})

describe('a suspended peer', () => {
  it('cannot follow: its inbox POST is refused (403) and nothing is stored; once unblocked it can', async () => {
    const boss = await stack.createUser({ username: 'boss', role: 'admin' })
    const token = await stack.userToken('admin:read admin:write', boss)
    const block = await stack
      .api()
      .post('/api/v1/admin/domain_blocks')
      .set(bearer(token))
      .send({ domain: '127.0.0.1', severity: 'suspend' })
      .expect(200)

    await expect(peer.follow(aliceUri())).rejects.toThrow(/403|Forbidden|Public key not found/)
    await stack.drain()
    expect((await accountOf(alice)).body.followers_count).toBe(0)

    await stack.api().delete(`/api/v1/admin/domain_blocks/${block.body.id}`).set(bearer(token)).expect(200)
    const { followId } = await peer.follow(aliceUri())
    await received((a) => a.type === 'Accept' && a.object === followId)
    expect((await accountOf(alice)).body.followers_count).toBe(1)
  })
})
