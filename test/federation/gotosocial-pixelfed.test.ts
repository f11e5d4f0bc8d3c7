import sharp from 'sharp'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { deliverCreate, followAccepted, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Payloads of GoToSocial and Pixelfed, shaped as each project's own source writes them, the host and names swapped
 * for the mini-peer's (docs/federation.md, "Interoperability tests"):
 * - GoToSocial: superseriousbusiness/gotosocial internal/typeutils/internaltoas_test.go, the expected JSON of
 *   TestAccountToASWithEmoji and TestAccountToASWithFields (an actor whose `tag` is one Emoji object, not an array,
 *   whose key id is `<actor>/main-key`, whose fields are plain text) and of TestStatusWithTagsToASWithIDs (a Note
 *   whose `to` and `cc` are strings, an `Image` attachment with its description in `summary` and a `focalPoint`,
 *   `contentMap`, an empty `summary`, `interactionPolicy`), wrapped as internal/typeutils/wrap.go's
 *   wrapStatusableInActivity wraps it (id `<status>/activity#Create`, the status's audience and `published`).
 * - Pixelfed: pixelfed/pixelfed app/Transformer/ActivityPub/ProfileTransformer.php (the actor) and
 *   app/Transformer/ActivityPub/Verb/CreateNote.php (the Create: id `<status>/activity`, the Note's `summary` null
 *   unless sensitive, `inReplyTo` and `location` null or a Place, `Image` attachments with the caption in `name`,
 *   `width`, `height`, `blurhash`, `commentsEnabled`, `capabilities`).
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let zork: PeerActor
let pixel: PeerActor
let emojiPng: Buffer

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  emojiPng = await sharp({ create: { width: 32, height: 32, channels: 4, background: '#f0a' } })
    .png()
    .toBuffer()
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

describe('GoToSocial', () => {
  let emojiUrl: string
  beforeAll(async () => {
    emojiUrl = peer.file('emoji/original/01F8MH9H8E4VG3KDYJR9EGPXCQ.png', 'image/png', emojiPng)
    zork = peer.actor('the_mighty_zork')
    // GoToSocial's key id is a path of its own, not a fragment.
    zork.keyId = `${zork.uri}/main-key`
    const base = peer.base
    zork.extra = {
      '@context': [
        'https://gotosocial.org/ns',
        'https://w3id.org/security/v1',
        'https://www.w3.org/ns/activitystreams',
        {
          Emoji: 'toot:Emoji',
          PropertyValue: 'schema:PropertyValue',
          discoverable: 'toot:discoverable',
          featured: { '@id': 'toot:featured', '@type': '@id' },
          manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
          schema: 'http://schema.org#',
          toot: 'http://joinmastodon.org/ns#',
          value: 'schema:value',
        },
      ],
      attachment: [
        { name: 'should you follow me?', type: 'PropertyValue', value: 'maybe!' },
        { name: 'age', type: 'PropertyValue', value: '120' },
      ],
      discoverable: true,
      featured: `${zork.uri}/collections/featured`,
      hidesCcPublicFromUnauthedWeb: false,
      hidesToPublicFromUnauthedWeb: false,
      icon: {
        mediaType: 'image/jpeg',
        name: 'a green goblin looking nasty',
        type: 'Image',
        url: `${base}/fileserver/01F8MH1H7YV1Z7D2C8K2730QBF/avatar/original/01F8MH58A357CV5K7R7TJMSH6S.jpg`,
      },
      name: 'original zork (he/they) :rainbow:',
      published: '2022-05-20T11:09:18Z',
      summary: '<p>hey yo this is my profile!</p>',
      // One tag: an object, not an array.
      tag: {
        icon: { mediaType: 'image/png', type: 'Image', url: emojiUrl },
        id: `${base}/emoji/01F8MH9H8E4VG3KDYJR9EGPXCQ`,
        name: ':rainbow:',
        type: 'Emoji',
        updated: '2021-09-20T12:40:37+02:00',
      },
      url: `${base}/@the_mighty_zork`,
    }
  })

  it('an actor with one Emoji tag as an object, a key id that is a path and plain-text fields', async () => {
    const account = await followAccepted(stack, alice, peer, zork)
    expect(account).toMatchObject({
      acct: `the_mighty_zork@${peer.domain}`,
      display_name: 'original zork (he/they) :rainbow:',
      note: '<p>hey yo this is my profile!</p>',
      url: `${peer.base}/@the_mighty_zork`,
      fields: [
        { name: 'should you follow me?', value: 'maybe!', verified_at: null },
        { name: 'age', value: '120', verified_at: null },
      ],
    })
    await stack.drain(60_000)
    const again = (await alice.get(`/api/v1/accounts/${account.id}`).expect(200)).body
    expect(again.emojis).toEqual([
      expect.objectContaining({
        shortcode: 'rainbow',
        url: expect.stringMatching(new RegExp(`^${stack.url}/`)),
      }),
    ])
  })

  it('a Note with string audiences, an Image described in `summary` with a focal point, and contentMap', async () => {
    const id = `${zork.uri}/statuses/01F8MH75CBF9JFX4ZAD54N0W0R`
    const hashtag = `<a href="${peer.base}/tags/welcome" class="mention hashtag" rel="tag nofollow noreferrer noopener" target="_blank">#<span>welcome</span></a>`
    const content = `<p>hello world! ${hashtag} ! first post on the instance :rainbow: !</p>`
    const always = { always: ['https://www.w3.org/ns/activitystreams#Public'], approvalRequired: [] }
    const policy = {
      ...always,
      automaticApproval: ['https://www.w3.org/ns/activitystreams#Public'],
      manualApproval: [],
    }
    const note = {
      attachment: [
        {
          blurhash: 'LIIE|gRj00WB-;j[t7j[4nWBj[Rj',
          focalPoint: [-0.5, 0.5],
          mediaType: 'image/jpeg',
          summary: "Black and white image of some 50's style text saying: Welcome On Board",
          type: 'Image',
          url: `${peer.base}/fileserver/01F8MH17FWEB39HZJ76B6VXSKF/attachment/original/01F8MH6NEM8D7527KZAECTCR76.jpg`,
        },
      ],
      attributedTo: zork.uri,
      cc: `${zork.uri}/followers`,
      content,
      contentMap: { en: content },
      id,
      interactionPolicy: { canAnnounce: policy, canLike: policy, canReply: policy },
      published: '2021-10-20T11:36:45Z',
      replies: {
        first: { id: `${id}/replies?page=true`, partOf: `${id}/replies`, type: 'CollectionPage' },
        id: `${id}/replies`,
        type: 'Collection',
      },
      sensitive: false,
      summary: '',
      tag: [
        {
          icon: { mediaType: 'image/png', type: 'Image', url: emojiUrl },
          id: `${peer.base}/emoji/01F8MH9H8E4VG3KDYJR9EGPXCQ`,
          name: ':rainbow:',
          type: 'Emoji',
          updated: '2021-09-20T10:40:37Z',
        },
        { href: `${peer.base}/tags/welcome`, name: '#welcome', type: 'Hashtag' },
      ],
      to: 'https://www.w3.org/ns/activitystreams#Public',
      type: 'Note',
      url: `${peer.base}/@the_mighty_zork/statuses/01F8MH75CBF9JFX4ZAD54N0W0R`,
    }
    const create = {
      '@context': ['https://gotosocial.org/ns', 'https://www.w3.org/ns/activitystreams'],
      id: `${id}/activity#Create`,
      type: 'Create',
      actor: zork.uri,
      to: note.to,
      cc: note.cc,
      published: note.published,
      object: note,
    }
    const row = await deliverCreate(stack, peer, zork, create)
    const status = (await alice.get(`/api/v1/statuses/${row.id}`).expect(200)).body
    expect(status).toMatchObject({
      uri: id,
      url: note.url,
      visibility: 'public',
      language: 'en',
      spoiler_text: '',
      sensitive: false,
      content: `<p>hello world! <a href="${peer.base}/tags/welcome" rel="tag nofollow noopener" target="_blank" class="mention hashtag">#<span>welcome</span></a> ! first post on the instance :rainbow: !</p>`,
      tags: [expect.objectContaining({ name: 'welcome' })],
      emojis: [expect.objectContaining({ shortcode: 'rainbow' })],
      media_attachments: [
        expect.objectContaining({
          type: 'image',
          description: "Black and white image of some 50's style text saying: Welcome On Board",
          blurhash: 'LIIE|gRj00WB-;j[t7j[4nWBj[Rj',
          remote_url: note.attachment[0]!.url,
          meta: expect.objectContaining({ focus: { x: -0.5, y: 0.5 } }),
        }),
      ],
    })
    // In alice's home: she follows zork.
    const home = (await alice.get('/api/v1/timelines/home').expect(200)).body as { id: string }[]
    expect(home.map((s) => s.id)).toContain(row.id)
  })
})

describe('Pixelfed', () => {
  beforeAll(() => {
    pixel = peer.actor('dansup_photos', { name: 'Photos' })
    pixel.extra = {
      '@context': [
        'https://w3id.org/security/v1',
        'https://www.w3.org/ns/activitystreams',
        {
          toot: 'http://joinmastodon.org/ns#',
          manuallyApprovesFollowers: 'as:manuallyApprovesFollowers',
          alsoKnownAs: { '@id': 'as:alsoKnownAs', '@type': '@id' },
          movedTo: { '@id': 'as:movedTo', '@type': '@id' },
          indexable: 'toot:indexable',
          suspended: 'toot:suspended',
        },
      ],
      summary: 'Photos of things',
      url: `${peer.base}/dansup_photos`,
      indexable: true,
      published: '2024-03-01T00:00:00Z',
      icon: { type: 'Image', mediaType: 'image/jpeg', url: `${peer.base}/storage/avatars/default.jpg` },
      endpoints: { sharedInbox: `${peer.base}/f/inbox` },
    }
  })

  it('a post with photos captioned in `name`, a content warning in `summary`, and a null location', async () => {
    const account = await followAccepted(stack, alice, peer, pixel)
    expect(account).toMatchObject({
      note: '<p>Photos of things</p>',
      url: `${peer.base}/dansup_photos`,
      indexable: true,
    })
    const url = `${peer.base}/p/dansup_photos/712345678901234567`
    const photo = (n: number) => ({
      type: 'Image',
      mediaType: 'image/jpeg',
      url: `${peer.base}/storage/m/_v2/1/photo${n}.jpg`,
      name: `photo ${n}, a lake`,
      blurhash: 'U9Fi:t~qM{IU00Rj-;xu00IU%MWB_3RjWBof',
      width: 1080,
      height: 1350,
    })
    const mention = {
      type: 'Mention',
      href: `${stack.url}/users/alice`,
      name: `@alice@${new URL(stack.url).host}`,
    }
    const create = {
      '@context': [
        'https://w3id.org/security/v1',
        'https://www.w3.org/ns/activitystreams',
        {
          Hashtag: 'as:Hashtag',
          sensitive: 'as:sensitive',
          schema: 'http://schema.org/',
          pixelfed: 'http://pixelfed.org/ns#',
          commentsEnabled: { '@id': 'pixelfed:commentsEnabled', '@type': 'schema:Boolean' },
          capabilities: { '@id': 'pixelfed:capabilities', '@container': '@set' },
          announce: { '@id': 'pixelfed:canAnnounce', '@type': '@id' },
          like: { '@id': 'pixelfed:canLike', '@type': '@id' },
          reply: { '@id': 'pixelfed:canReply', '@type': '@id' },
          toot: 'http://joinmastodon.org/ns#',
          Emoji: 'toot:Emoji',
          blurhash: 'toot:blurhash',
        },
      ],
      id: `${url}/activity`,
      type: 'Create',
      actor: pixel.uri,
      published: '2026-11-20T10:00:00+00:00',
      to: ['https://www.w3.org/ns/activitystreams#Public'],
      cc: [`${pixel.uri}/followers`, `${stack.url}/users/alice`],
      object: {
        id: url,
        type: 'Note',
        summary: 'lake photos',
        content: `Two photos of the lake <a href="${peer.base}/discover/tags/lake?src=hash" title="#lake" class="u-url hashtag" rel="external nofollow noopener">#lake</a> for <a class="u-url mention" href="${stack.url}/@alice" rel="external nofollow noopener" target="_blank">@alice</a>`,
        inReplyTo: null,
        published: '2026-11-20T10:00:00+00:00',
        url,
        attributedTo: pixel.uri,
        to: ['https://www.w3.org/ns/activitystreams#Public'],
        cc: [`${pixel.uri}/followers`, `${stack.url}/users/alice`],
        sensitive: true,
        attachment: [photo(1), photo(2)],
        tag: [mention, { type: 'Hashtag', href: `${peer.base}/discover/tags/lake`, name: '#lake' }],
        commentsEnabled: true,
        capabilities: {
          announce: 'https://www.w3.org/ns/activitystreams#Public',
          like: 'https://www.w3.org/ns/activitystreams#Public',
          reply: 'https://www.w3.org/ns/activitystreams#Public',
        },
        location: null,
      },
    }
    const row = await deliverCreate(stack, peer, pixel, create)
    const status = (await alice.get(`/api/v1/statuses/${row.id}`).expect(200)).body
    expect(status).toMatchObject({
      uri: url,
      url,
      visibility: 'public',
      sensitive: true,
      spoiler_text: 'lake photos',
      in_reply_to_id: null,
      mentions: [expect.objectContaining({ username: 'alice', acct: 'alice' })],
      tags: [expect.objectContaining({ name: 'lake' })],
      media_attachments: [
        expect.objectContaining({ type: 'image', description: 'photo 1, a lake', remote_url: photo(1).url }),
        expect.objectContaining({ type: 'image', description: 'photo 2, a lake', remote_url: photo(2).url }),
      ],
    })
    expect(status.content).toContain('Two photos of the lake')
    expect(status.content).not.toContain('title=')
    // alice is mentioned: a notification.
    const notes = (await alice.get('/api/v1/notifications?types[]=mention').expect(200)).body as {
      status: { id: string }
    }[]
    expect(notes.map((n) => n.status.id)).toContain(row.id)
  })
})
