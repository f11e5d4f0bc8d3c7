import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { followAccepted as followAndAccept, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Objects other than notes and Group actors (docs/federation.md, "Articles, videos, events and other objects",
 * "Groups"), with payloads shaped as each project sends them: a WordPress Article, a PeerTube Video shared by its
 * channel (a Group), a Mobilizon Event, and a Lemmy community (a Group) sharing a Page as Lemmy does, both as
 * Announce of the Create and as Announce of the Page. The content is what Mastodon's `processed_text` makes of
 * them, after its sanitizer (headings become bold paragraphs).
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let wordpress: PeerActor
let channel: PeerActor
let peertubeAccount: PeerActor
let mobilizon: PeerActor
let community: PeerActor
let lemmyUser: PeerActor
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'
const ids: Record<string, string> = {}

const inbox = () => `${stack.url}/inbox`

/** alice follows `actor`, which accepts; its account (its id kept in `ids`). */
async function followAccepted(actor: PeerActor) {
  const account = await followAndAccept(stack, alice, peer, actor)
  ids[actor.username] = account.id
  return account
}

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  wordpress = peer.actor('wpauthor', { name: 'A WordPress author' })
  // PeerTube: a video's channel is a Group, its owner a Person (Chocobozzz/PeerTube:
  // server/core/lib/activitypub/actors/… and server/core/models/actor/actor.ts, `type: 'Group'` for channels).
  channel = peer.actor('cooking_channel', { name: 'Cooking channel', type: 'Group' })
  peertubeAccount = peer.actor('chef', { name: 'Chef' })
  mobilizon = peer.actor('meetups', { name: 'Meetups', type: 'Group' })
  // Lemmy: a community is a Group (LemmyNet/lemmy: crates/apub/src/objects/community.rs, `type: Group`).
  community = peer.actor('technology', { name: 'Technology', type: 'Group' })
  lemmyUser = peer.actor('lemmy_user', { name: 'A Lemmy user' })
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const link = (url: string) => {
  const prefix = /^https?:\/\/(?:www\.)?/.exec(url)![0]
  const rest = url.slice(prefix.length)
  const hidden = rest.slice(30)
  return (
    `<p><a href="${url}" rel="nofollow noopener" target="_blank" translate="no">` +
    `<span class="invisible">${prefix}</span>` +
    (hidden ? `<span class="ellipsis">${rest.slice(0, 30)}</span>` : `<span>${rest}</span>`) +
    `<span class="invisible">${hidden}</span></a></p>`
  )
}

test('a Lemmy community and a PeerTube channel are accounts with group: true, a person is not', async () => {
  const tech = await followAccepted(community)
  expect(tech).toMatchObject({ group: true, bot: false, acct: `technology@${peer.domain}` })
  expect((await followAccepted(channel)).group).toBe(true)
  expect((await followAccepted(wordpress)).group).toBe(false)
  await followAccepted(mobilizon)
})

test('a WordPress Article shows its title, excerpt and link as Mastodon renders them, with no content warning', async () => {
  // Shaped as Automattic/wordpress-activitypub includes/transformer/class-post.php sends a post: `name` is the
  // title, `summary` the excerpt, `content` the whole post, `url` the permalink, the image an attachment.
  const article = {
    '@context': ['https://www.w3.org/ns/activitystreams', { sensitive: 'as:sensitive' }],
    id: `${peer.base}/?p=42`,
    type: 'Article',
    attributedTo: wordpress.uri,
    name: 'Hello world',
    summary: '<p>An excerpt of the post</p>',
    content: '<h2>Hello world</h2><p>The whole post, which Mastodon does not show.</p>',
    url: 'https://wordpress.example/2025/11/hello-world/',
    published: new Date(Date.now() - 1000).toISOString(),
    to: [PUBLIC, `${wordpress.uri}/followers`],
    cc: [],
    sensitive: false,
    attachment: [
      {
        type: 'Image',
        url: 'https://wordpress.example/wp-content/uploads/2025/11/cover.jpg',
        mediaType: 'image/jpeg',
        name: 'The cover',
      },
    ],
    tag: [],
  }
  const res = await peer.post(inbox(), wordpress, {
    id: `${peer.base}/?p=42&c=create`,
    type: 'Create',
    actor: wordpress.uri,
    to: article.to,
    object: article,
  })
  expect(res.status).toBe(202)
  const status = await eventually(async () => {
    const s = (await alice.get(`/api/v1/accounts/${ids.wpauthor}/statuses`).expect(200)).body[0]
    return s?.uri === article.id ? s : undefined
  })
  expect(status.content).toBe(
    '<p><strong>Hello world</strong></p>\n\n<p>An excerpt of the post</p>\n\n' +
      '<p><a href="https://wordpress.example/2025/11/hello-world/" rel="nofollow noopener" target="_blank" translate="no">' +
      '<span class="invisible">https://</span><span class="ellipsis">wordpress.example/2025/11/hell</span>' +
      '<span class="invisible">o-world/</span></a></p>',
  )
  expect(status).toMatchObject({ spoiler_text: '', sensitive: false, url: article.url })
  expect(status.media_attachments).toHaveLength(1)
  expect(status.media_attachments[0]).toMatchObject({ description: 'The cover' })
})

test('a PeerTube Video shared by its channel is a boost by the channel in home, its preview and page kept', async () => {
  // Shaped as Chocobozzz/PeerTube server/core/models/video/formatter/video-activity-pub-format.ts makes a video:
  // `name`, a Markdown `content`, `url` Links (the text/html watch page among the files), `icon` thumbnails,
  // `attributedTo` the owner (Person) and the channel (Group).
  const video = {
    '@context': ['https://www.w3.org/ns/activitystreams'],
    id: `${peer.base}/videos/watch/9c9de5e8-0a1e-484a-b099-e80766180a6d`,
    type: 'Video',
    name: 'How to bake bread',
    duration: 'PT314S',
    uuid: '9c9de5e8-0a1e-484a-b099-e80766180a6d',
    content: 'A **Markdown** description',
    mediaType: 'text/markdown',
    published: new Date(Date.now() - 2000).toISOString(),
    url: [
      {
        type: 'Link',
        mediaType: 'video/mp4',
        href: `${peer.base}/static/web-videos/9c9de5e8-720.mp4`,
        height: 720,
      },
      { type: 'Link', mediaType: 'text/html', href: `${peer.base}/w/kv3Pq1FdA5aZ1dYkPBJmTM` },
    ],
    icon: [
      {
        type: 'Image',
        url: `${peer.base}/lazy-static/thumbnails/9c9de5e8.jpg`,
        mediaType: 'image/jpeg',
        width: 280,
        height: 157,
      },
    ],
    attributedTo: [
      { type: 'Person', id: peertubeAccount.uri },
      { type: 'Group', id: channel.uri },
    ],
    to: [PUBLIC],
    cc: [`${peertubeAccount.uri}/followers`],
  }
  peer.objects.set(video.id, video)
  const res = await peer.post(inbox(), channel, {
    id: `${channel.uri}/announces/1`,
    type: 'Announce',
    actor: channel.uri,
    object: video.id,
    to: [PUBLIC],
    cc: [`${channel.uri}/followers`],
  })
  expect(res.status).toBe(202)
  const boost = await eventually(async () => {
    const home = (await alice.get('/api/v1/timelines/home').expect(200)).body
    return home.find((s: { reblog?: { uri: string } }) => s.reblog?.uri === video.id)
  })
  expect(boost.account).toMatchObject({ acct: `cooking_channel@${peer.domain}`, group: true })
  expect(boost.reblog.account.acct).toBe(`chef@${peer.domain}`)
  expect(boost.reblog.url).toBe(`${peer.base}/w/kv3Pq1FdA5aZ1dYkPBJmTM`)
  expect(boost.reblog.content).toBe(
    `<p><strong>How to bake bread</strong></p>\n\n${link(`${peer.base}/w/kv3Pq1FdA5aZ1dYkPBJmTM`)}`,
  )
  expect(boost.reblog.spoiler_text).toBe('')
})

test('a Mobilizon Event is a status with its title and link', async () => {
  // Shaped as framasoft/mobilizon lib/federation/activity_stream/converter/event.ex makes an event: `name`,
  // `content` (its description), `startTime`, `location`, `url`, the picture as an attachment.
  const event = {
    id: `${peer.base}/events/2a2c37a4-7c9c-4b6b-a6c1-4a1c5b2e7f11`,
    type: 'Event',
    name: 'Fediverse meetup',
    content: '<p>Come and meet us</p>',
    summary: '<p>Not a content warning</p>',
    startTime: '2026-12-01T18:00:00Z',
    endTime: '2026-12-01T21:00:00Z',
    url: `${peer.base}/events/2a2c37a4-7c9c-4b6b-a6c1-4a1c5b2e7f11`,
    attributedTo: mobilizon.uri,
    published: new Date(Date.now() - 3000).toISOString(),
    to: [PUBLIC],
    cc: [`${mobilizon.uri}/followers`],
    location: { type: 'Place', name: 'The library' },
    joinMode: 'free',
  }
  await peer.post(inbox(), mobilizon, {
    id: `${event.id}/activity`,
    type: 'Create',
    actor: mobilizon.uri,
    to: event.to,
    cc: event.cc,
    object: event,
  })
  const status = await eventually(async () => {
    const s = (await alice.get(`/api/v1/accounts/${ids.meetups}/statuses`).expect(200)).body[0]
    return s?.uri === event.id ? s : undefined
  })
  expect(status.content).toBe(
    `<p><strong>Fediverse meetup</strong></p>\n\n<p>Not a content warning</p>\n\n${link(event.url)}`,
  )
  expect(status.spoiler_text).toBe('')
  expect(status.sensitive).toBe(false)
})

test("a Lemmy community's Announce of a Create of a Page, and of the Page, is one boost from the community", async () => {
  // Shaped as LemmyNet/lemmy crates/apub/src/objects/post.rs (a Page with `name`, `attributedTo` the user,
  // `audience` the community) and crates/apub/src/activities/community/announce.rs (the community announces the
  // Create, and, for Mastodon's sake, the Page itself too).
  const page = {
    id: `${peer.base}/post/77`,
    type: 'Page',
    attributedTo: lemmyUser.uri,
    to: [community.uri, PUBLIC],
    cc: [],
    audience: community.uri,
    name: 'A link worth reading',
    content: '<p>body</p>',
    mediaType: 'text/html',
    source: { content: 'body', mediaType: 'text/markdown' },
    attachment: [{ type: 'Link', href: 'https://example.org/article' }],
    sensitive: false,
    published: new Date(Date.now() - 4000).toISOString(),
  }
  peer.objects.set(page.id, page)
  const create = {
    id: `${peer.base}/activities/create/0d1f3f3c`,
    type: 'Create',
    actor: lemmyUser.uri,
    to: [community.uri, PUBLIC],
    cc: [],
    audience: community.uri,
    object: page,
  }
  await peer.post(inbox(), community, {
    id: `${peer.base}/activities/announce/create/5a0c`,
    type: 'Announce',
    actor: community.uri,
    to: [PUBLIC],
    cc: [`${community.uri}/followers`],
    object: create,
  })
  await peer.post(inbox(), community, {
    id: `${peer.base}/activities/announce/page/5a0d`,
    type: 'Announce',
    actor: community.uri,
    to: [PUBLIC],
    cc: [`${community.uri}/followers`],
    object: page.id,
  })
  await stack.drain(120_000)
  const home = (await alice.get('/api/v1/timelines/home').expect(200)).body
  const boosts = home.filter((s: { reblog?: { uri: string } }) => s.reblog?.uri === page.id)
  expect(boosts).toHaveLength(1)
  expect(boosts[0].account.acct).toBe(`technology@${peer.domain}`)
  expect(boosts[0].reblog.account.acct).toBe(`lemmy_user@${peer.domain}`)
  expect(boosts[0].reblog.content).toBe(`<p><strong>A link worth reading</strong></p>\n\n${link(page.id)}`)
})
