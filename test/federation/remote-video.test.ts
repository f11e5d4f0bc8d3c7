import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { download, mp3, mp4, probeBuffer, webm } from '../media/av-helpers'
import { receiveMention, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Remote video and audio (docs/federation.md, "Remote media"): the accounts worker copies them like images, probes
 * them for `meta` and a preview, transcodes only what browsers cannot play, keeps the sender's `icon` as
 * `preview_remote_url`, leaves linked what is over REMOTE_MEDIA_MAX_BYTES, and fetches again, with backoff, from a
 * server that failed.
 */
const MAX_BYTES = 200_000
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let mallory: PeerActor

beforeAll(async () => {
  stack = await startStack({
    env: { FEDERATION_ALLOW_HTTP: 'true', REMOTE_MEDIA_MAX_BYTES: String(MAX_BYTES) },
  })
  peer = await startMiniPeer()
  mallory = peer.actor('mallory')
  alice = await signUp(stack, { username: 'alice' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

/** mallory's public Note mentioning alice (a status nobody here relates to is not stored) with `attachment`. */
const receive = (attachment: Record<string, unknown>[]) =>
  receiveMention<{
    media_attachments: ({ url: string } & Record<string, unknown>)[]
  }>(stack, peer, mallory, alice, { attachment })

it('copies a video that plays as it is, with meta and a preview; the sender’s icon is preview_remote_url', async () => {
  const video = await mp4()
  const remote = peer.file('clip.mp4', 'video/mp4', video)
  const icon = `${peer.base}/files/clip.jpg`
  const status = await receive([
    {
      type: 'Document',
      mediaType: 'video/mp4',
      url: remote,
      name: 'a test pattern',
      icon: { type: 'Image', url: icon },
    },
  ])
  const [media] = status.media_attachments
  expect(media).toMatchObject({
    type: 'video',
    remote_url: remote,
    preview_remote_url: icon,
    description: 'a test pattern',
    url: expect.stringMatching(new RegExp(`^${stack.url}/media/[0-9a-f]{32}\\.mp4$`)),
    preview_url: expect.stringMatching(new RegExp(`^${stack.url}/media/[0-9a-f]{32}-small\\.jpg$`)),
    meta: { width: 320, height: 240, duration: 2, small: { width: 320, height: 240 } },
  })
  // Playable already: served as sent.
  expect((await download(media!.url)).equals(video)).toBe(true)
})

it('transcodes a remote video browsers may not play (WebM) and keeps a remote MP3 as it is', async () => {
  const audio = await mp3()
  const status = await receive([
    { type: 'Document', mediaType: 'video/webm', url: peer.file('clip.webm', 'video/webm', await webm()) },
    { type: 'Document', mediaType: 'audio/mpeg', url: peer.file('tone.mp3', 'audio/mpeg', audio) },
  ])
  const [video, sound] = status.media_attachments
  expect(video).toMatchObject({ type: 'video', url: expect.stringMatching(/\.mp4$/) })
  expect((await probeBuffer(await download(video!.url))).codecs).toEqual(['video:h264', 'audio:aac'])
  expect(sound).toMatchObject({ type: 'audio', url: expect.stringMatching(/\.mp3$/), preview_url: null })
  expect((await download(sound!.url)).equals(audio)).toBe(true)
})

it('leaves linked a video over REMOTE_MEDIA_MAX_BYTES', async () => {
  const large = Buffer.concat([await mp4(), Buffer.alloc(MAX_BYTES)])
  const remote = peer.file('large.mp4', 'video/mp4', large)
  const [media] = (await receive([{ type: 'Document', mediaType: 'video/mp4', url: remote }]))
    .media_attachments
  expect(media).toMatchObject({ type: 'video', url: remote, remote_url: remote, preview_url: null })
  expect(peer.fileRequests.filter((p) => p === '/files/large.mp4')).toHaveLength(1)
})

it('fetches again, with backoff, from a server that failed; after the last attempt the file stays linked', async () => {
  const flaky = peer.file('flaky.mp4', 'video/mp4', await mp4(), { failFirst: 2 })
  const down = peer.file('down.mp4', 'video/mp4', await mp4(), { failFirst: 100 })
  const [copied, linked] = (
    await receive([
      { type: 'Document', mediaType: 'video/mp4', url: flaky },
      { type: 'Document', mediaType: 'video/mp4', url: down },
    ])
  ).media_attachments
  expect(copied!.url).toMatch(new RegExp(`^${stack.url}/media/`))
  expect(peer.fileRequests.filter((p) => p === '/files/flaky.mp4')).toHaveLength(3)
  expect(linked).toMatchObject({ url: down, remote_url: down })
  // The first attempt and three retries (REMOTE_MEDIA_ATTEMPTS), then no more.
  expect(peer.fileRequests.filter((p) => p === '/files/down.mp4')).toHaveLength(4)
})
