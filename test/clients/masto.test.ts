// Roost driven by masto.js 7 (https://github.com/neet/masto.js), unchanged: the library builds every request and
// parses every answer, so a deviation from Mastodon's wire format shows up here as a library error.
import sharp from 'sharp'
import type { mastodon } from 'masto'
import { createOAuthAPIClient, createRestAPIClient, MastoHttpError } from 'masto'
import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG, SCOPES } from './helpers'

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

const REDIRECT = 'urn:ietf:wg:oauth:2.0:oob'

/** A client for `accessToken` on the stack, built the way an app would build it. */
const client = (accessToken?: string) => createRestAPIClient({ url: stack.url, accessToken, timeout: 10_000 })

/** The whole sign-up as an app does it: register the app, get an app token, create the account. */
async function signUp(username: string) {
  const app = await client().v1.apps.create({
    clientName: 'masto e2e',
    redirectUris: REDIRECT,
    scopes: SCOPES,
  })
  const oauth = createOAuthAPIClient({ url: stack.url })
  const appToken = await oauth.token.create({
    grantType: 'client_credentials',
    clientId: app.clientId!,
    clientSecret: app.clientSecret!,
    redirectUri: REDIRECT,
    scope: SCOPES,
  })
  const token = await client(appToken.accessToken).v1.accounts.create({
    username,
    email: `${username}@example.test`,
    password: 'correct horse battery staple',
    agreement: true,
    locale: 'en',
  })
  return { app, appToken, token, api: client(token.accessToken), oauth }
}

describe('masto.js against Roost', () => {
  let alice: Awaited<ReturnType<typeof signUp>>
  let aliceId: string

  it('registers an app, gets an app token and signs up (multipart), then verifies the credentials', async () => {
    alice = await signUp('alice')
    expect(alice.app).toMatchObject({ name: 'masto e2e', vapidKey: stack.env.VAPID_PUBLIC_KEY })
    expect(alice.app.clientId).toEqual(expect.any(String))
    expect(alice.appToken).toMatchObject({ tokenType: 'Bearer', scope: SCOPES })
    expect(alice.token).toMatchObject({ tokenType: 'Bearer', scope: SCOPES })
    expect(alice.token.accessToken).not.toBe(alice.appToken.accessToken)

    const me = await alice.api.v1.accounts.verifyCredentials()
    expect(me).toMatchObject({ username: 'alice', acct: 'alice', locked: false, followersCount: 0 })
    expect(me.source).toMatchObject({ privacy: 'public', sensitive: false })
    aliceId = me.id
  })

  it('updates the profile with multipart: display name, note, fields, source and a real PNG avatar', async () => {
    const updated = await alice.api.v1.accounts.updateCredentials({
      displayName: 'Alice Liddell',
      note: 'Curiouser and curiouser',
      fieldsAttributes: [
        { name: 'Home', value: 'Wonderland' },
        { name: 'Pet', value: 'Dinah' },
      ],
      source: { privacy: 'unlisted', sensitive: true, language: 'en' },
      avatar: new Blob([PNG], { type: 'image/png' }),
    })
    expect(updated).toMatchObject({ id: aliceId, displayName: 'Alice Liddell' })
    expect(updated.note).toContain('Curiouser and curiouser')
    expect(updated.fields.map(({ name, value }) => ({ name, value }))).toEqual([
      { name: 'Home', value: 'Wonderland' },
      { name: 'Pet', value: 'Dinah' },
    ])
    expect(updated.source).toMatchObject({ privacy: 'unlisted', sensitive: true, language: 'en' })
    expect(updated.avatar).toMatch(new RegExp(`^${stack.url}/media/[0-9a-f]+\\.png$`))
    const avatar = await fetch(updated.avatar)
    expect(avatar.status).toBe(200)
    // Re-encoded to Mastodon's avatar size (docs/media.md, "Images"), still a PNG.
    expect(await sharp(Buffer.from(await avatar.arrayBuffer())).metadata()).toMatchObject({
      format: 'png',
      width: 400,
      height: 400,
    })

    // Another user sees the new profile.
    const bob = await signUp('bob')
    const seen = await bob.api.v1.accounts.$select(aliceId).fetch()
    expect(seen).toMatchObject({
      id: aliceId,
      username: 'alice',
      displayName: 'Alice Liddell',
      avatar: updated.avatar,
    })
  })

  it('follows, unfollows, blocks, mutes and reads relationships', async () => {
    const carol = await signUp('carol')
    const carolId = (await carol.api.v1.accounts.verifyCredentials()).id
    const them = alice.api.v1.accounts.$select(carolId)

    const followed = await them.follow({ reblogs: false, notify: true })
    expect(followed).toMatchObject({ id: carolId, following: true, showingReblogs: false, notifying: true })
    expect(await them.unfollow()).toMatchObject({ id: carolId, following: false })

    expect(await them.block()).toMatchObject({ id: carolId, blocking: true })
    const [asSeenByCarol] = await carol.api.v1.accounts.relationships.fetch({ id: [aliceId] })
    expect(asSeenByCarol).toMatchObject({ id: aliceId, blockedBy: true })
    expect(await them.unblock()).toMatchObject({ id: carolId, blocking: false })

    const muted = await them.mute({ notifications: false, duration: 3600 })
    expect(muted).toMatchObject({ id: carolId, muting: true, mutingNotifications: false })
    const [during] = await alice.api.v1.accounts.relationships.fetch({ id: [carolId] })
    expect(during).toMatchObject({ muting: true, mutingNotifications: false })
    // muting_expires_at is Mastodon 4.6, newer than masto 7's types; masto still camel-cases it.
    const expiresAt = (during as unknown as { mutingExpiresAt: string }).mutingExpiresAt
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(3500_000)
    expect(await them.unmute()).toMatchObject({ id: carolId, muting: false })

    await them.follow()
    const relationships = await alice.api.v1.accounts.relationships.fetch({ id: [carolId, aliceId] })
    expect(relationships).toEqual([
      expect.objectContaining({ id: carolId, following: true, muting: false, blocking: false }),
      expect.objectContaining({ id: aliceId, following: false }),
    ])
  })

  it('posts statuses and pages through them and through followers with for await', async () => {
    const bob = await signUp('bob2')
    const bobsStatus = await bob.api.v1.statuses.create({ status: 'Hello from Bob' })
    const listed: mastodon.v1.Status[] = []
    for (let i = 1; i <= 4; i++)
      listed.push(await alice.api.v1.statuses.create({ status: `Status number ${i}` }))
    // exclude_replies keeps self-replies (threads) and drops replies to others, as Mastodon does.
    const reply = await alice.api.v1.statuses.create({ status: '@bob2 Hi Bob', inReplyToId: bobsStatus.id })
    expect(reply.inReplyToId).toBe(bobsStatus.id)
    listed.push(await alice.api.v1.statuses.create({ status: 'A thread', inReplyToId: listed[0]!.id }))

    const statusPages: string[][] = []
    for await (const page of alice.api.v1.accounts
      .$select(aliceId)
      .statuses.list({ limit: 2, excludeReplies: true }))
      statusPages.push(page.map((status) => status.id))
    expect(statusPages.map((page) => page.length)).toEqual([2, 2, 1])
    expect(statusPages.flat()).toEqual(listed.map((status) => status.id).reverse())

    // Five followers: four more users and bob2, each following through masto.
    for (let i = 0; i < 4; i++) {
      const user = await stack.createUser()
      await client(await stack.userToken(SCOPES, user))
        .v1.accounts.$select(aliceId)
        .follow()
    }
    await bob.api.v1.accounts.$select(aliceId).follow()
    const followerPages: string[][] = []
    for await (const page of bob.api.v1.accounts.$select(aliceId).followers.list({ limit: 2 }))
      followerPages.push(page.map((account) => account.username))
    expect(followerPages.map((page) => page.length)).toEqual([2, 2, 1])
    expect(followerPages.flat()).toContain('bob2')
    expect(new Set(followerPages.flat()).size).toBe(5)
    expect((await alice.api.v1.accounts.verifyCredentials()).followersCount).toBe(5)
  })

  it('subscribes to push (policy at the top level), updates, removes, and gets a real push for a follow', async () => {
    const subscriber = receiver.subscriber()
    const push = alice.api.v1.push.subscription

    const none = await push.create({
      subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys },
      data: { alerts: { follow: true, mention: true } },
      policy: 'none',
    })
    expect(none).toMatchObject({
      endpoint: subscriber.endpoint,
      serverKey: stack.env.VAPID_PUBLIC_KEY,
      policy: 'none',
    })
    expect(await push.fetch()).toMatchObject({ id: none.id, policy: 'none' })

    // policy "none": a follow makes a notification, but no push.
    const dave = await signUp('dave')
    await dave.api.v1.accounts.$select(aliceId).follow()
    await stack.drain()
    expect(receiver.messagesFor(subscriber.endpoint)).toEqual([])

    // Subscribing again replaces the token's subscription; now with policy "all".
    const all = await push.create({
      subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys },
      data: { alerts: { follow: true } },
      policy: 'all',
    })
    expect(all.policy).toBe('all')
    const erin = await signUp('erin')
    const erinId = (await erin.api.v1.accounts.verifyCredentials()).id
    await erin.api.v1.accounts.$select(aliceId).follow()
    await stack.drain()
    await receiver.waitFor(() => receiver.messagesFor(subscriber.endpoint).length === 1)
    const [message] = receiver.messagesFor(subscriber.endpoint)
    expect(receiver.problems).toEqual([])
    // masto.js sends no `standard`: Mastodon's default, the legacy aesgcm draft, decrypted by the receiver.
    expect(message!.encoding).toBe('aesgcm')
    expect(message!.payload).toMatchObject({
      access_token: alice.token.accessToken,
      notification_type: 'follow',
      preferred_locale: 'en',
      title: 'erin is now following you',
    })
    // The app opens the notification the push names, with the token the push carries.
    const notification = await client(String(message!.payload.access_token))
      .v1.notifications.$select(String(message!.payload.notification_id))
      .fetch()
    expect(notification).toMatchObject({ type: 'follow', account: expect.objectContaining({ id: erinId }) })

    const updated = await push.update({ data: { alerts: { favourite: true } } })
    expect(updated.id).toBe(all.id)
    // The update replaces the alerts wholesale: only the kinds sent remain (the others are off), as in Mastodon.
    expect(updated.alerts).toEqual({ favourite: true })

    await push.remove()
    // Mastodon's push controller answers its generic "Not Found" here, not "Record not found".
    const gone = await push.fetch().catch((e: unknown) => e)
    expect(gone).toBeInstanceOf(MastoHttpError)
    expect(gone).toMatchObject({ statusCode: 404, message: 'Not Found' })
  })

  it('reads the instance, uploads media, posts with it, and sees favourites and boosts as notifications', async () => {
    // What an app fetches first: the server's limits and its VAPID key.
    const instance = await client().v2.instance.fetch()
    expect(instance.configuration.vapid.publicKey).toBe(stack.env.VAPID_PUBLIC_KEY)
    expect(instance.configuration.statuses.maxCharacters).toEqual(expect.any(Number))

    const media = await alice.api.v2.media.create({
      file: new Blob([PNG], { type: 'image/png' }),
      description: 'A dot',
    })
    expect(media).toMatchObject({ type: 'image', description: 'A dot' })
    expect(media.url).toMatch(new RegExp(`^${stack.url}/media/`))
    const status = await alice.api.v1.statuses.create({
      status: 'A picture',
      mediaIds: [media.id],
      visibility: 'public',
    })
    expect(status.mediaAttachments.map((attachment) => attachment.id)).toEqual([media.id])
    // masto polled GET /api/v1/media/:id above; like Mastodon, it only shows media not yet on a status.
    await expect(alice.api.v1.media.$select(media.id).fetch()).rejects.toMatchObject({ statusCode: 404 })
    const pending = await alice.api.v2.media.create({
      file: new Blob([PNG], { type: 'image/png' }),
      skipPolling: true, // polled once already above; this one is fetched by hand
    })
    expect(await alice.api.v1.media.$select(pending.id).fetch()).toMatchObject({
      id: pending.id,
      url: pending.url,
    })

    const frank = await signUp('frank')
    await expect(frank.api.v1.media.$select(pending.id).fetch()).rejects.toMatchObject({ statusCode: 404 })
    expect(await frank.api.v1.statuses.$select(status.id).favourite()).toMatchObject({ favourited: true })
    const boost = await frank.api.v1.statuses.$select(status.id).reblog()
    expect(boost.reblog).toMatchObject({ id: status.id, reblogged: true })

    await stack.drain()
    const notifications = await alice.api.v1.notifications.list({ types: ['favourite', 'reblog'] })
    expect(notifications.map((n) => [n.type, n.account.username, n.status?.id])).toEqual([
      ['reblog', 'frank', status.id],
      ['favourite', 'frank', status.id],
    ])

    // Deleting answers with the deleted status (its text, for "delete and redraft").
    expect(await alice.api.v1.statuses.$select(status.id).remove()).toMatchObject({
      id: status.id,
      text: 'A picture',
    })
    const deleted = await frank.api.v1.statuses
      .$select(status.id)
      .fetch()
      .catch((e: unknown) => e)
    expect(deleted).toMatchObject({ statusCode: 404 })
  })

  it('maps a failed sign-up to MastoHttpError with Mastodon’s per-field details', async () => {
    const app = await client().v1.apps.create({
      clientName: 'masto e2e',
      redirectUris: REDIRECT,
      scopes: SCOPES,
    })
    const appToken = await createOAuthAPIClient({ url: stack.url }).token.create({
      grantType: 'client_credentials',
      clientId: app.clientId!,
      clientSecret: app.clientSecret!,
      redirectUri: REDIRECT,
      scope: SCOPES,
    })
    const error = await client(appToken.accessToken)
      .v1.accounts.create({
        username: 'alice',
        email: 'another@example.test',
        password: 'correct horse battery staple',
        agreement: true,
        locale: 'en',
      })
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MastoHttpError)
    expect(error).toMatchObject({
      statusCode: 422,
      message: 'Validation failed: Username has already been taken',
      details: { username: [{ error: 'ERR_TAKEN', description: 'has already been taken' }] },
    })
  })

  it('maps a 404 to MastoHttpError with the status and Mastodon’s message', async () => {
    const error = await alice.api.v1.accounts
      .$select('999999999')
      .fetch()
      .catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MastoHttpError)
    expect(error).toMatchObject({ statusCode: 404, message: 'Record not found' })
  })

  it('revokes the token through /oauth/revoke; the token stops working', async () => {
    await alice.oauth.revoke({
      clientId: alice.app.clientId!,
      clientSecret: alice.app.clientSecret!,
      token: alice.token.accessToken,
    })
    const error = await alice.api.v1.accounts.verifyCredentials().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(MastoHttpError)
    expect(error).toMatchObject({ statusCode: 401, message: 'The access token was revoked' })
  })
})
