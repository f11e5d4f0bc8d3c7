import sharp from 'sharp'
import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { mentionNote, receiveMention, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Remote media (docs/federation.md, "Remote media"): the accounts worker copies the images of a remote status to
 * this server, with preview, sizes and blurhash, and serves its copy with the original as `remote_url`; a file too
 * large, not an image, or from a host under `reject_media` stays linked (the last is not even fetched).
 */
const MAX_BYTES = 100_000
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let mallory: PeerActor
let admin: string

beforeAll(async () => {
  stack = await startStack({
    env: { FEDERATION_ALLOW_HTTP: 'true', REMOTE_MEDIA_MAX_BYTES: String(MAX_BYTES) },
  })
  peer = await startMiniPeer()
  mallory = peer.actor('mallory')
  alice = await signUp(stack, { username: 'alice' })
  const boss = await stack.createUser({ username: 'boss', role: 'admin' })
  admin = await stack.userToken('read write admin:read admin:write', boss)
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

/** mallory's public Note mentioning alice with `attachment`, delivered and handled; alice's view of it. */
const receive = (attachment: Record<string, unknown>[]) =>
  receiveMention<{
    id: string
    uri: string
    media_attachments: Record<string, unknown>[]
  }>(stack, peer, mallory, alice, { attachment })

const png = (width: number, height: number, noise = false) =>
  (noise
    ? sharp(Buffer.from(Array.from({ length: width * height * 3 }, () => Math.floor(Math.random() * 256))), {
        raw: { width, height, channels: 3 },
      })
    : sharp({ create: { width, height, channels: 3, background: { r: 200, g: 40, b: 90 } } })
  )
    .png()
    .toBuffer()

const download = async (url: string) => {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return Buffer.from(await res.arrayBuffer())
}

it('copies an image: our URL serves the same picture, with a preview, sizes and a blurhash; remote_url is the original', async () => {
  const image = await png(1280, 720)
  const remote = peer.file('picture.png', 'image/png', image)
  const status = await receive([
    { type: 'Document', mediaType: 'image/png', url: remote, name: 'a red square' },
  ])
  const [media] = status.media_attachments
  expect(media).toMatchObject({
    type: 'image',
    remote_url: remote,
    description: 'a red square',
    meta: { original: { width: 1280, height: 720 }, small: { width: 640, height: 360 } },
  })
  expect(media!.url).toMatch(new RegExp(`^${stack.url}/media/[0-9a-f]{32}\\.png$`))
  expect(media!.preview_url).toMatch(new RegExp(`^${stack.url}/media/[0-9a-f]{32}-small\\.png$`))
  expect(typeof media!.blurhash).toBe('string')
  // Our copy is re-encoded (docs/media.md, "Images"): the same picture, not the same bytes.
  const copy = await download(media!.url as string)
  expect(await sharp(copy).metadata()).toMatchObject({ format: 'png', width: 1280, height: 720 })
  const { data: pixel } = await sharp(copy)
    .extract({ left: 10, top: 10, width: 1, height: 1 })
    .raw()
    .toBuffer({ resolveWithObject: true })
  expect([...pixel]).toEqual([200, 40, 90])
  expect((await sharp(await download(media!.preview_url as string)).metadata()).width).toBe(640)
  expect(peer.fileRequests.filter((p) => p === '/files/picture.png')).toHaveLength(1)
})

it("keeps the sender's blurhash when it sent one", async () => {
  const remote = peer.file('hashed.png', 'image/png', await png(40, 30))
  const blurhash = 'LEHV6nWB2yk8pyo0adR*.7kCMdnj'
  const status = await receive([{ type: 'Document', mediaType: 'image/png', url: remote, blurhash }])
  expect(status.media_attachments[0]).toMatchObject({ blurhash, remote_url: remote })
  expect(status.media_attachments[0]!.url).not.toBe(remote)
})

it('leaves linked a file over REMOTE_MEDIA_MAX_BYTES, one that is not an image, and one the server fails to give', async () => {
  const large = await png(400, 400, true)
  expect(large.length).toBeGreaterThan(MAX_BYTES)
  const big = peer.file('big.png', 'image/png', large)
  const text = peer.file('not-an-image.png', 'image/png', Buffer.from('just text, whatever the header says'))
  const missing = `${peer.base}/files/gone.png`
  const status = await receive([
    { type: 'Document', mediaType: 'image/png', url: big },
    { type: 'Document', mediaType: 'image/png', url: text },
    { type: 'Document', mediaType: 'image/png', url: missing },
  ])
  expect(status.media_attachments.map((m) => [m.url, m.preview_url, m.remote_url])).toEqual([
    [big, big, big],
    [text, text, text],
    [missing, missing, missing],
  ])
  // Each was asked for.
  for (const p of ['/files/big.png', '/files/not-an-image.png', '/files/gone.png'])
    expect(peer.fileRequests).toContain(p)
})

it('an Update with a new list of attachments is an edit: kept ones keep their copy, a new one is copied, a dropped one stays in the history', async () => {
  const first = peer.file('first.png', 'image/png', await png(640, 480))
  const second = peer.file('second.png', 'image/png', await png(320, 240))
  const third = peer.file('third.png', 'image/png', await png(320, 200))
  const status = (await receive([
    { type: 'Document', mediaType: 'image/png', url: first, name: 'one' },
    { type: 'Document', mediaType: 'image/png', url: second, name: 'two' },
  ])) as { id: string; uri: string; media_attachments: { id: string; url: string; remote_url: string }[] }
  const [keptBefore] = status.media_attachments
  const uri = status.uri
  const object = mentionNote(stack, mallory, {
    id: uri,
    updated: new Date().toISOString(),
    attachment: [
      { type: 'Document', mediaType: 'image/png', url: third, name: 'three' },
      { type: 'Document', mediaType: 'image/png', url: first, name: 'one, described again' },
    ],
  })
  const update = { id: `${uri}#updates/1`, type: 'Update', actor: mallory.uri, to: object.to, object }
  expect((await peer.post(`${stack.url}/inbox`, mallory, update)).status).toBe(202)
  await stack.drain(120_000)

  const edited = (await alice.get(`/api/v1/statuses/${status.id}`).expect(200)).body
  expect(edited.edited_at).not.toBeNull()
  expect(edited.media_attachments.map((m: { remote_url: string }) => m.remote_url)).toEqual([third, first])
  expect(edited.media_attachments[1]).toMatchObject({
    id: keptBefore!.id,
    url: keptBefore!.url,
    description: 'one, described again',
  })
  expect(edited.media_attachments[0].url).toMatch(new RegExp(`^${stack.url}/media/`))
  const history = (await alice.get(`/api/v1/statuses/${status.id}/history`).expect(200)).body as {
    media_attachments: { remote_url: string; description: string }[]
  }[]
  expect(history.map((v) => v.media_attachments.map((m) => [m.remote_url, m.description]))).toEqual([
    [
      [first, 'one'],
      [second, 'two'],
    ],
    [
      [third, 'three'],
      [first, 'one, described again'],
    ],
  ])

  // The same Update again (a new id, nothing new in it) changes nothing.
  const again = { ...update, id: `${uri}#updates/2` }
  expect((await peer.post(`${stack.url}/inbox`, mallory, again)).status).toBe(202)
  await stack.drain(120_000)
  expect((await alice.get(`/api/v1/statuses/${status.id}/history`).expect(200)).body).toHaveLength(2)
})

it('does not fetch the images of a host under reject_media: they stay linked', async () => {
  await stack
    .api()
    .post('/api/v1/admin/domain_blocks')
    .set(bearer(admin))
    .send({ domain: '127.0.0.1', severity: 'noop', reject_media: true })
    .expect(200)
  const remote = peer.file('rejected.png', 'image/png', await png(64, 64))
  const status = await receive([{ type: 'Document', mediaType: 'image/png', url: remote }])
  expect(status.media_attachments[0]).toMatchObject({ url: remote, remote_url: remote })
  expect(peer.fileRequests).not.toContain('/files/rejected.png')
})
