import { startPushReceiver } from '@roost/testing'
import type { PushReceiver } from '@roost/testing'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/** Effects across servers go through two queues each way: generous on a loaded shared machine. */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Statuses and interactions from another server (docs/federation.md, "Incoming statuses"), signed by a test peer
 * and posted to a Roost inbox: Create, Update, Delete, Announce, Like, Undo and Flag, with what follows locally
 * (home feed, public timelines, threads, notifications and decrypted Web Push), and what is refused with nothing
 * stored (replay, forged id, oversize, malformed, a boost of a private status).
 */
let stack: Stack
let peer: MiniPeer
let receiver: PushReceiver
let alice: TestUser // mentioned, favourited and boosted by mallory; her phone gets Web Push
let bob: TestUser // follows mallory
let mallory: PeerActor
let malloryId: string
let aliceEndpoint: string
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  receiver = await startPushReceiver({ vapidPublicKey: stack.env.VAPID_PUBLIC_KEY! })
  mallory = peer.actor('mallory', { name: 'Mallory' })
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow push' })
  bob = await signUp(stack, { username: 'bob' })
  const subscriber = receiver.subscriber()
  aliceEndpoint = subscriber.endpoint
  await alice
    .post('/api/v1/push/subscription', {
      subscription: { endpoint: subscriber.endpoint, keys: subscriber.keys, standard: true },
      data: { alerts: { mention: true, favourite: true, reblog: true }, policy: 'all' },
    })
    .expect(200)

  // bob follows mallory: his request goes to the peer, whose Accept makes it a follow.
  const found = await bob
    .get(`/api/v2/search?q=${encodeURIComponent(`@mallory@${peer.domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  malloryId = found.body.accounts[0].id
  await bob.post(`/api/v1/accounts/${malloryId}/follow`).expect(200)
  const followSent = await eventually(async () => peer.received.find((r) => r.activity.type === 'Follow'))
  expect(
    await peer.post(inbox(), mallory, {
      id: `${mallory.uri}#accepts/1`,
      type: 'Accept',
      actor: mallory.uri,
      object: followSent.activity,
    }),
  ).toMatchObject({ status: 202 })
  await eventually(async () => {
    const r = (await bob.get(`/api/v1/accounts/relationships?id[]=${malloryId}`).expect(200)).body[0]
    return r.following || undefined
  })
}, 240_000)
afterAll(async () => {
  await receiver?.close()
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
const aliceUri = () => `${stack.url}/users/alice`
const drain = () => stack.drain(120_000)
let n = 0
const noteUri = () => `${mallory.uri}/statuses/${++n}`

/** A Note of mallory's (public unless told), with its Create. */
function note(overrides: Record<string, unknown> = {}) {
  return {
    id: noteUri(),
    type: 'Note',
    attributedTo: mallory.uri,
    to: [PUBLIC],
    cc: [`${mallory.uri}/followers`],
    content: '<p>Hello</p>',
    published: new Date().toISOString(),
    ...overrides,
  }
}
const create = (object: Record<string, unknown>, actor = mallory) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${object.id}/activity`,
  type: 'Create',
  actor: actor.uri,
  to: object.to,
  cc: object.cc,
  object,
})
const statusOf = (uri: string) => db()('statuses').where({ uri }).first()
const countStatuses = async () => Number((await db()('statuses').count('* as n'))[0]!.n)

describe('Create', () => {
  let uri: string
  let id: string
  it('stores a Note mentioning a local user: notification, decrypted Web Push, home feed, timelines', async () => {
    const object = note({
      content:
        '<p>Hi <span class="h-card"><a href="' +
        aliceUri() +
        '" class="u-url mention">@<span>alice</span></a></span> #Fediverse <a href="javascript:alert(1)" onclick="x()">x</a></p><script>alert(1)</script><img src="x" onerror="y()">',
      contentMap: { en: '<p>Hi</p>' },
      summary: 'a warning',
      url: `${peer.base}/@mallory/1`,
      tag: [
        { type: 'Mention', href: aliceUri(), name: '@alice' },
        { type: 'Hashtag', href: `${peer.base}/tags/fediverse`, name: '#Fediverse' },
      ],
      attachment: [
        { type: 'Document', mediaType: 'image/png', url: `${peer.base}/media/1.png`, name: 'a picture' },
      ],
    })
    uri = object.id
    expect(await peer.post(inbox(), mallory, create(object))).toEqual({ status: 202, body: undefined })
    const row = await eventually(() => statusOf(uri))
    id = row.id

    const status = (await alice.get(`/api/v1/statuses/${id}`).expect(200)).body
    expect(status).toMatchObject({
      uri,
      url: `${peer.base}/@mallory/1`,
      visibility: 'public',
      language: 'en',
      spoiler_text: 'a warning',
      sensitive: true,
      account: { id: malloryId, acct: `mallory@${peer.domain}` },
      mentions: [{ id: alice.id, username: 'alice' }],
      tags: [{ name: 'fediverse' }],
      media_attachments: [
        {
          type: 'image',
          url: `${peer.base}/media/1.png`,
          remote_url: `${peer.base}/media/1.png`,
          description: 'a picture',
        },
      ],
    })
    // Sanitised: no script, no event handler, no javascript: link, no image.
    expect(status.content).toBe(
      `<p>Hi <span class="h-card"><a href="${aliceUri()}" rel="nofollow noopener" target="_blank" class="u-url mention">@<span>alice</span></a></span> #Fediverse <a rel="nofollow noopener" target="_blank">x</a></p>`,
    )

    // alice is notified, and her phone gets the mention, decrypted.
    const notifications = await eventually(async () => {
      const res = await alice.get('/api/v1/notifications').expect(200)
      return res.body.length ? res.body : undefined
    })
    expect(notifications[0]).toMatchObject({ type: 'mention', status: { id }, account: { id: malloryId } })
    await receiver.waitFor(() => receiver.messagesFor(aliceEndpoint).length === 1, 60_000)
    expect(receiver.problems).toEqual([])
    expect(receiver.messagesFor(aliceEndpoint)[0]!.payload).toMatchObject({
      notification_type: 'mention',
      title: 'You were mentioned by Mallory',
    })

    // bob follows mallory: it is in his home feed.
    await eventually(async () => {
      // 206 while the feed is being built.
      const home = await bob.get('/api/v1/timelines/home')
      return (home.status === 200 && home.body.some((s: { id: string }) => s.id === id)) || undefined
    })
    // The federated timeline has it, the local one does not; `remote` gives it alone.
    const ids = async (path: string) =>
      ((await alice.get(path).expect(200)).body as { id: string }[]).map((s) => s.id)
    expect(await ids('/api/v1/timelines/public')).toContain(id)
    expect(await ids('/api/v1/timelines/public?remote=true')).toEqual([id])
    expect(await ids('/api/v1/timelines/public?local=true')).not.toContain(id)
    expect(await ids('/api/v1/timelines/tag/fediverse')).toEqual([id])
    expect(await ids(`/api/v1/accounts/${malloryId}/statuses`)).toEqual([id])
  })

  it('threads a remote reply under a local status (context on both ends)', async () => {
    const mine = await post(alice, 'a local post')
    const object = note({
      inReplyTo: `${stack.url}/users/alice/statuses/${mine}`,
      content: '<p>a reply</p>',
      cc: [aliceUri(), `${mallory.uri}/followers`],
      tag: [{ type: 'Mention', href: aliceUri(), name: '@alice' }],
    })
    await peer.post(inbox(), mallory, create(object))
    const reply = await eventually(() => statusOf(object.id))
    const context = (await alice.get(`/api/v1/statuses/${mine}/context`).expect(200)).body
    expect(context.descendants.map((s: { id: string }) => s.id)).toEqual([reply.id])
    const up = (await alice.get(`/api/v1/statuses/${reply.id}/context`).expect(200)).body
    expect(up.ancestors.map((s: { id: string }) => s.id)).toEqual([mine])
    expect((await alice.get(`/api/v1/statuses/${reply.id}`).expect(200)).body).toMatchObject({
      in_reply_to_id: mine,
      in_reply_to_account_id: alice.id,
    })
  })

  it('takes a direct message to a local user as direct, for her only', async () => {
    const object = note({
      to: [aliceUri()],
      cc: [],
      content: '<p>psst</p>',
      tag: [{ type: 'Mention', href: aliceUri(), name: '@alice' }],
    })
    await peer.post(inbox(), mallory, create(object))
    const row = await eventually(() => statusOf(object.id))
    expect(row.visibility).toBe('direct')
    await alice.get(`/api/v1/statuses/${row.id}`).expect(200)
    await bob.get(`/api/v1/statuses/${row.id}`).expect(404)
    // alice does not follow mallory: the default notification policy files it as a request, which she accepts.
    const [request] = await eventually(async () => {
      const res = await alice.get('/api/v1/notifications/requests').expect(200)
      return res.body.length ? res.body : undefined
    })
    expect(request).toMatchObject({ account: { id: malloryId }, last_status: { id: row.id } })
    expect((await alice.get('/api/v1/conversations').expect(200)).body).toEqual([])
    await alice.post(`/api/v1/notifications/requests/${request.id}/accept`).expect(200)
    const conversations = await eventually(async () => {
      const res = await alice.get('/api/v1/conversations').expect(200)
      return res.body.length ? res.body : undefined
    })
    expect(conversations[0].last_status.id).toBe(row.id)
  })

  it('ignores a Note nothing local relates to (nobody follows its author, no local mention)', async () => {
    const stranger = peer.actor('stranger')
    const object = { ...note(), attributedTo: stranger.uri, id: `${stranger.uri}/statuses/1` }
    expect(await peer.post(inbox(), stranger, create(object, stranger))).toMatchObject({ status: 202 })
    await drain()
    expect(await statusOf(object.id)).toBeUndefined()
  })
})

describe('Update, Delete', () => {
  it('an Update edits the status (with its history); a Delete removes it', async () => {
    const object = note({ content: '<p>first version</p>' })
    await peer.post(inbox(), mallory, create(object))
    const row = await eventually(() => statusOf(object.id))
    const update = {
      id: `${object.id}#updates/1`,
      type: 'Update',
      actor: mallory.uri,
      object: { ...object, content: '<p>second version</p>', updated: new Date().toISOString() },
    }
    expect(await peer.post(inbox(), mallory, update)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await bob.get(`/api/v1/statuses/${row.id}`).expect(200)).body
      return s.content === '<p>second version</p>' && s.edited_at ? s : undefined
    })
    const history = (await bob.get(`/api/v1/statuses/${row.id}/history`).expect(200)).body
    expect(history.map((v: { content: string }) => v.content)).toEqual([
      '<p>first version</p>',
      '<p>second version</p>',
    ])

    // Another actor cannot delete it.
    const other = peer.actor('other')
    const forged = { id: `${other.uri}#delete`, type: 'Delete', actor: other.uri, object: object.id }
    expect(await peer.post(inbox(), other, forged)).toMatchObject({ status: 202 })
    await drain()
    expect(await statusOf(object.id)).toBeDefined()

    const del = {
      id: `${object.id}#delete`,
      type: 'Delete',
      actor: mallory.uri,
      object: { id: object.id, type: 'Tombstone' },
    }
    expect(await peer.post(inbox(), mallory, del)).toMatchObject({ status: 202 })
    await eventually(async () => ((await statusOf(object.id)) ? undefined : true))
    await bob.get(`/api/v1/statuses/${row.id}`).expect(404)
    await eventually(async () => {
      const home = await bob.get('/api/v1/timelines/home')
      return home.status === 200 && !home.body.some((s: { id: string }) => s.id === row.id) ? true : undefined
    })

    // A replay of the Create (same id) stores nothing again.
    expect(await peer.post(inbox(), mallory, create(object))).toMatchObject({ status: 202 })
    await drain()
    expect(await statusOf(object.id)).toBeUndefined()
  })
})

describe('order', () => {
  it('a Delete handled before its Create leaves nothing to store', async () => {
    const object = note({ content: '<p>gone before it came</p>' })
    const del = { id: `${object.id}#delete`, type: 'Delete', actor: mallory.uri, object: object.id }
    expect(await peer.post(inbox(), mallory, del)).toMatchObject({ status: 202 })
    await drain()
    expect(await peer.post(inbox(), mallory, create(object))).toMatchObject({ status: 202 })
    await drain()
    expect(await statusOf(object.id)).toBeUndefined()
  })
})

describe('Like, Announce, Undo', () => {
  it('a Like favourites a local status (notification and Web Push); its Undo takes it back', async () => {
    const mine = await post(alice, 'like me')
    const pushes = receiver.messagesFor(aliceEndpoint).length
    const like = {
      id: `${mallory.uri}#likes/1`,
      type: 'Like',
      actor: mallory.uri,
      object: `${stack.url}/users/alice/statuses/${mine}`,
    }
    expect(await peer.post(inbox(), mallory, like)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.favourites_count === 1 || undefined
    })
    await receiver.waitFor(() => receiver.messagesFor(aliceEndpoint).length === pushes + 1, 60_000)
    expect(receiver.messagesFor(aliceEndpoint).at(-1)!.payload).toMatchObject({
      notification_type: 'favourite',
      title: 'Mallory favorited your post',
    })
    const undo = { id: `${mallory.uri}#likes/1/undo`, type: 'Undo', actor: mallory.uri, object: like }
    expect(await peer.post(inbox(), mallory, undo)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.favourites_count === 0 || undefined
    })
  })

  it('an Announce of a local status is a boost (notification and Web Push); its Undo removes it', async () => {
    const mine = await post(alice, 'boost me')
    const pushes = receiver.messagesFor(aliceEndpoint).length
    const announce = {
      id: `${mallory.uri}/statuses/boost-1/activity`,
      type: 'Announce',
      actor: mallory.uri,
      to: [PUBLIC],
      cc: [aliceUri(), `${mallory.uri}/followers`],
      object: `${stack.url}/users/alice/statuses/${mine}`,
    }
    expect(await peer.post(inbox(), mallory, announce)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.reblogs_count === 1 || undefined
    })
    await receiver.waitFor(() => receiver.messagesFor(aliceEndpoint).length === pushes + 1, 60_000)
    expect(receiver.messagesFor(aliceEndpoint).at(-1)!.payload).toMatchObject({
      notification_type: 'reblog',
      title: 'Mallory boosted your post',
    })
    // bob follows mallory: the boost is in his home feed.
    const boost = await eventually(async () => {
      const home = await bob.get('/api/v1/timelines/home')
      return home.status === 200
        ? home.body.find((s: { reblog: { id: string } | null }) => s.reblog?.id === mine)
        : undefined
    })
    expect(boost).toMatchObject({ uri: announce.id, account: { id: malloryId } })

    const reblogs = (n: number) =>
      eventually(async () => {
        const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
        return s.reblogs_count === n || undefined
      })
    const undo = { id: `${announce.id}/undo`, type: 'Undo', actor: mallory.uri, object: announce }
    expect(await peer.post(inbox(), mallory, undo)).toMatchObject({ status: 202 })
    await reblogs(0)
    // An Undo naming the Announce only by its id ends the boost too (docs/federation.md, "Undo by id").
    const again = { ...announce, id: `${announce.id}/again` }
    expect(await peer.post(inbox(), mallory, again)).toMatchObject({ status: 202 })
    await reblogs(1)
    const byId = { id: `${again.id}/undo`, type: 'Undo', actor: mallory.uri, object: again.id }
    expect(await peer.post(inbox(), mallory, byId)).toMatchObject({ status: 202 })
    await reblogs(0)
  })

  it('an Announce of an unknown remote status fetches it once and boosts it', async () => {
    const author = peer.actor('author')
    const original = {
      id: `${author.uri}/statuses/7`,
      type: 'Note',
      attributedTo: author.uri,
      to: [PUBLIC],
      cc: [],
      content: '<p>fetched</p>',
      published: new Date().toISOString(),
    }
    peer.objects.set(original.id, original)
    const announce = {
      id: `${mallory.uri}/statuses/boost-2/activity`,
      type: 'Announce',
      actor: mallory.uri,
      to: [PUBLIC],
      object: original.id,
    }
    expect(await peer.post(inbox(), mallory, announce)).toMatchObject({ status: 202 })
    const row = await eventually(() => statusOf(original.id))
    expect(row.text).toBe('<p>fetched</p>')
    const boost = await eventually(() => statusOf(announce.id))
    expect(boost.reblog_of_id).toBe(row.id)
    const home = await eventually(async () => {
      const res = await bob.get('/api/v1/timelines/home')
      return res.status === 200 ? res.body.find((s: { uri: string }) => s.uri === announce.id) : undefined
    })
    expect(home.reblog).toMatchObject({ id: row.id, content: '<p>fetched</p>', uri: original.id })
  })
})

describe('refused, nothing stored', () => {
  it('a replayed activity (same id) is a no-op', async () => {
    const mine = await post(alice, 'like me twice')
    const like = {
      id: `${mallory.uri}#likes/replayed`,
      type: 'Like',
      actor: mallory.uri,
      object: `${stack.url}/users/alice/statuses/${mine}`,
    }
    await peer.post(inbox(), mallory, like)
    await eventually(async () =>
      (await db()('favourites').where({ status_id: mine }).first()) ? true : undefined,
    )
    await peer.post(inbox(), mallory, {
      id: `${mallory.uri}#likes/replayed/undo`,
      type: 'Undo',
      actor: mallory.uri,
      object: like,
    })
    await eventually(async () =>
      (await db()('favourites').where({ status_id: mine }).first()) ? undefined : true,
    )
    expect(await peer.post(inbox(), mallory, like)).toMatchObject({ status: 202 })
    await drain()
    expect(await db()('favourites').where({ status_id: mine }).first()).toBeUndefined()
  })

  it('a Note claiming another server id, a malformed one and an oversize body are refused', async () => {
    await drain()
    const before = await countStatuses()
    const events = async () =>
      Number((await db()('outbox').where({ job_name: 'inbox.received' }).count('* as n'))[0]!.n)
    const queued = await events()
    const forged = note({ id: `${stack.url}/users/alice/statuses/1` })
    expect(await peer.post(inbox(), mallory, create(forged))).toEqual({
      status: 400,
      body: { error: `The object ${forged.id} is not on the host of its actor ${mallory.uri}` },
    })
    const elsewhere = note({ id: 'https://elsewhere.example/notes/1' })
    expect((await peer.post(inbox(), mallory, create(elsewhere))).status).toBe(400)
    const noId = { type: 'Create', actor: mallory.uri, id: `${mallory.uri}#c`, object: { type: 'Note' } }
    expect(await peer.post(inbox(), mallory, noId)).toEqual({
      status: 400,
      body: { error: 'The object has no id' },
    })
    const notAttributed = note({ attributedTo: `${peer.base}/users/someone` })
    expect((await peer.post(inbox(), mallory, create(notAttributed))).status).toBe(400)
    const badContent = note({ content: { html: 1 } })
    expect((await peer.post(inbox(), mallory, create(badContent))).status).toBe(400)
    const huge = note({ content: `<p>${'x'.repeat(1_100_000)}</p>` })
    const oversize = await peer.post(inbox(), mallory, create(huge))
    expect([400, 413]).toContain(oversize.status)
    expect(oversize.body).toHaveProperty('error')
    expect(await events()).toBe(queued)
    await drain()
    expect(await countStatuses()).toBe(before)
  })

  it('an Announce of a private status is refused', async () => {
    const secret = await post(alice, { status: 'followers only', visibility: 'private' })
    const announce = {
      id: `${mallory.uri}/statuses/boost-private/activity`,
      type: 'Announce',
      actor: mallory.uri,
      to: [PUBLIC],
      object: `${stack.url}/users/alice/statuses/${secret}`,
    }
    expect(await peer.post(inbox(), mallory, announce)).toMatchObject({ status: 202 })
    await drain()
    expect(await db()('statuses').where({ reblog_of_id: secret }).first()).toBeUndefined()
    expect(await statusOf(announce.id)).toBeUndefined()
  })
})

describe('Flag', () => {
  it('a Flag of a local account and status becomes a report for the moderators', async () => {
    const mine = await post(alice, 'report me')
    const flag = {
      id: `${peer.base}/flags/1`,
      type: 'Flag',
      actor: mallory.uri,
      content: 'spam',
      object: [aliceUri(), `${stack.url}/users/alice/statuses/${mine}`],
    }
    expect(await peer.post(inbox(), mallory, flag)).toMatchObject({ status: 202 })
    const report = await eventually(() => db()('reports').where({ target_account_id: alice.id }).first())
    expect(report).toMatchObject({ account_id: malloryId, comment: 'spam', status_ids: [mine] })
  })
})
