// Roost driven by megalodon 10 (https://github.com/h3poteto/megalodon), unchanged. megalodon sends JSON bodies
// where masto sends multipart, follows absolute Link URLs in get_all, and needs push asked for explicitly.
import generator from 'megalodon'
import type { Entity } from 'megalodon'
import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { SCOPES } from './helpers'

let stack: Stack
let receiver: PushReceiver
beforeAll(async () => {
  stack = await startStack()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
})
afterAll(async () => {
  await receiver.close()
  await stack.stop()
})

const client = (token: string | null) => generator('mastodon', stack.url, token, 'roost-e2e')

/** The HTTP status of a failed megalodon call (it rejects with axios's error). */
const statusOf = (error: unknown) => (error as { response?: { status: number } }).response?.status

/** megalodon has no client_credentials call: apps do it with a plain form POST. */
async function appTokenFor(app: { client_id: string; client_secret: string }) {
  const res = await fetch(`${stack.url}/oauth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: app.client_id,
      client_secret: app.client_secret,
      scope: SCOPES,
    }),
  })
  expect(res.status).toBe(200)
  return ((await res.json()) as { access_token: string }).access_token
}

/** Sign-up the way a megalodon app does it: registerApp (push included), app token, registerAccount. */
async function signUp(username: string) {
  const app = await client(null).registerApp('megalodon e2e', { scopes: SCOPES.split(' ') })
  const appToken = await appTokenFor(app)
  const res = await client(appToken).registerAccount(
    username,
    `${username}@example.test`,
    'correct horse battery staple',
    true,
    'en',
  )
  return { app, appToken, token: res.data, api: client(res.data.access_token) }
}

describe('megalodon against Roost', () => {
  let alice: Awaited<ReturnType<typeof signUp>>
  let aliceId: string

  it('registers an app with push, gets an app token and signs up (JSON), then verifies the credentials', async () => {
    alice = await signUp('alice')
    expect(alice.app).toMatchObject({ name: 'megalodon e2e', redirect_uri: 'urn:ietf:wg:oauth:2.0:oob' })
    // registerApp also builds the authorize URL (no network), from the base URL and the requested scopes.
    expect(alice.app.url).toContain(`${stack.url}/oauth/authorize?`)
    expect(alice.app.url).toContain('scope=read+write+follow+push')
    expect(alice.token).toMatchObject({ token_type: 'Bearer', scope: SCOPES })

    const me = await alice.api.verifyAccountCredentials()
    expect(me.status).toBe(200)
    expect(me.data).toMatchObject({ username: 'alice', acct: 'alice', followers_count: 0 })
    aliceId = me.data.id
  })

  it('updates the profile with JSON (nested source and fields) and reads it back', async () => {
    const res = await alice.api.updateCredentials({
      display_name: 'Alice Liddell',
      note: 'Down the rabbit hole',
      locked: false,
      source: { privacy: 'private', sensitive: true, language: 'fr' },
      fields_attributes: [{ name: 'Home', value: 'Wonderland' }],
    })
    expect(res.data).toMatchObject({ id: aliceId, display_name: 'Alice Liddell' })
    expect(res.data.note).toContain('Down the rabbit hole')
    expect(res.data.fields.map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'Home', value: 'Wonderland' },
    ])
    expect(res.data.source).toMatchObject({ privacy: 'private', sensitive: true, language: 'fr' })

    const bob = await signUp('bob')
    const seen = await bob.api.getAccount(aliceId)
    expect(seen.data).toMatchObject({ id: aliceId, display_name: 'Alice Liddell', username: 'alice' })
  })

  it('lists statuses with exclude_replies', async () => {
    // Alice's default visibility is now private (source[privacy] above): bob, not a follower, does not see it.
    const hidden = await alice.api.postStatus('For my followers')
    // postStatus is typed Status | ScheduledStatus; without scheduled_at it is a Status.
    expect((hidden.data as Entity.Status).visibility).toBe('private')
    const own = await alice.api.postStatus('First post', { visibility: 'public' })
    const bob = await signUp('bob2')
    const bobs = await bob.api.postStatus('Bob speaks')
    const reply = await alice.api.postStatus('@bob2 I hear you', {
      in_reply_to_id: bobs.data.id,
      visibility: 'public',
    })
    const thread = await alice.api.postStatus('Continuing my thread', {
      in_reply_to_id: own.data.id,
      visibility: 'public',
    })
    const ids = (data: { id: string }) => data.id

    const all = await bob.api.getAccountStatuses(aliceId, { limit: 10 })
    expect(all.data.map(ids)).toEqual([thread.data.id, reply.data.id, own.data.id].map(String))
    const noReplies = await bob.api.getAccountStatuses(aliceId, { limit: 10, exclude_replies: true })
    expect(noReplies.data.map(ids)).toEqual([thread.data.id, own.data.id].map(String))
  })

  it('follows, unfollows and reads relationships', async () => {
    const carol = await signUp('carol')
    const carolId = (await carol.api.verifyAccountCredentials()).data.id

    const followed = await alice.api.followAccount(carolId, { reblog: false })
    // megalodon sends `reblog` (singular), which Mastodon does not read: boosts stay shown.
    expect(followed.data).toMatchObject({ id: carolId, following: true, showing_reblogs: true })
    const [fromCarol] = (await carol.api.getRelationships([aliceId])).data
    expect(fromCarol).toMatchObject({ id: aliceId, followed_by: true, following: false })

    expect((await alice.api.blockAccount(carolId)).data).toMatchObject({ blocking: true, following: false })
    expect((await alice.api.unblockAccount(carolId)).data).toMatchObject({ blocking: false })
    const muted = await alice.api.muteAccount(carolId, false)
    expect(muted.data).toMatchObject({ muting: true, muting_notifications: false })
    expect((await alice.api.unmuteAccount(carolId)).data).toMatchObject({ muting: false })
    await alice.api.followAccount(carolId)

    const unfollowed = await alice.api.unfollowAccount(carolId)
    expect(unfollowed.data).toMatchObject({ id: carolId, following: false })
    const relationships = (await alice.api.getRelationships([carolId, aliceId])).data
    expect(relationships).toEqual([
      expect.objectContaining({ id: carolId, following: false, followed_by: false }),
      expect.objectContaining({ id: aliceId, following: false }),
    ])
  })

  it('reads every follower with get_all, following absolute Link URLs to a last page that has a Link', async () => {
    const followers: string[] = []
    for (let i = 1; i <= 5; i++) {
      const user = await stack.createUser({ username: `fan${i}` })
      await client(await stack.userToken(SCOPES, user)).followAccount(aliceId)
      followers.push(`fan${i}`)
    }
    const viewer = client(await stack.userToken(SCOPES))

    // Page by page first: the next link is an absolute URL on the public base URL.
    const first = await viewer.getAccountFollowers(aliceId, { limit: 2 })
    expect(first.data).toHaveLength(2)
    expect(String(first.headers.link)).toMatch(
      new RegExp(`^<${stack.url}/api/v1/accounts/${aliceId}/followers\\?`),
    )

    // get_all walks pages of 2, 2 and 1; the last page is not full, and megalodon needs a Link header there.
    const every = await viewer.getAccountFollowers(aliceId, { limit: 2, get_all: true })
    expect(every.data.map((account) => account.username).sort()).toEqual(followers)
  })

  it('subscribes to push, reads, updates and deletes the subscription, and gets a real push', async () => {
    const subscriber = receiver.subscriber()
    const created = await alice.api.subscribePushNotification(
      { endpoint: subscriber.endpoint, keys: subscriber.keys },
      { alerts: { follow: true, mention: true } },
    )
    expect(created.data).toMatchObject({
      endpoint: subscriber.endpoint,
      server_key: stack.env.VAPID_PUBLIC_KEY,
      alerts: { follow: true, mention: true },
    })
    const fetched = await alice.api.getPushSubscription()
    expect(fetched.data).toMatchObject({ id: created.data.id, endpoint: subscriber.endpoint })

    const dave = await signUp('dave')
    await dave.api.followAccount(aliceId)
    await stack.drain()
    await receiver.waitFor(() => receiver.messagesFor(subscriber.endpoint).length === 1)
    expect(receiver.problems).toEqual([])
    expect(receiver.messagesFor(subscriber.endpoint)[0]!.payload).toMatchObject({
      access_token: alice.token.access_token,
      notification_type: 'follow',
      title: 'dave is now following you',
    })

    const updated = await alice.api.updatePushSubscription({ alerts: { favourite: true, follow: false } })
    expect(updated.data).toMatchObject({ id: created.data.id, alerts: { favourite: true, follow: false } })

    const deleted = await alice.api.deletePushSubscription()
    expect(deleted.data).toEqual({})
    const gone = await alice.api.getPushSubscription().catch((e: unknown) => e)
    expect(statusOf(gone)).toBe(404)
  })

  it('reads the instance and the notifications an app shows', async () => {
    const instance = await client(null).getInstance()
    expect(instance.data).toMatchObject({ title: expect.any(String) })
    await stack.drain()
    const notifications = await alice.api.getNotifications({ limit: 40 })
    const follows = notifications.data.filter((n) => n.type === 'follow').map((n) => n.account?.username)
    expect(follows.sort()).toEqual(['dave', 'fan1', 'fan2', 'fan3', 'fan4', 'fan5'])
  })

  it('revokes the token; the token stops working', async () => {
    const app = alice.app
    const res = await alice.api.revokeToken(app.client_id, app.client_secret, alice.token.access_token)
    expect(res.data).toEqual({})
    const error = await alice.api.verifyAccountCredentials().catch((e: unknown) => e)
    expect(statusOf(error)).toBe(401)
    expect((error as { response: { data: unknown } }).response.data).toEqual({
      error: 'The access token was revoked',
    })
  })
})
