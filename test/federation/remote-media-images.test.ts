import sharp from 'sharp'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { download, phonePhoto, telltalesIn } from '../media/fixtures'
import { createOf, deliverCreate, mentionNote, startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Remote images as the worker copies them (docs/federation.md, "Remote media"): re-encoded like uploads, so a
 * phone photo another server passed on as it was is served here without its metadata and upright; the sender's
 * focal point (`focalPoint`) becomes `meta.focus`, its alt text comes from `name`, or from `summary` when a server
 * puts it there, cut to 1,500 characters; an Update that moves the focal point moves it here.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let mallory: PeerActor

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true' } })
  peer = await startMiniPeer()
  mallory = peer.actor('mallory')
  alice = await signUp(stack, { username: 'alice' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

async function statusOf(uri: string) {
  const row = await stack.accounts.ctx.db('statuses').where({ uri }).first()
  expect(row).toBeDefined()
  return (await alice.get(`/api/v1/statuses/${row.id}`).expect(200)).body as {
    id: string
    edited_at: string | null
    media_attachments: {
      url: string
      preview_url: string
      remote_url: string
      description: string | null
      meta: Record<string, unknown>
    }[]
  }
}

/** mallory's public Note mentioning alice with `attachment`, delivered and handled: its id and alice's view of it. */
async function receive(attachment: Record<string, unknown>[]) {
  const object = mentionNote(stack, mallory, { attachment })
  await deliverCreate(stack, peer, mallory, createOf(mallory, object))
  return { uri: object.id, status: await statusOf(object.id) }
}

it('a copied remote photo carries no metadata but its colour profile, and stands upright', async () => {
  const photo = await phonePhoto(800, 600, 6)
  const remote = peer.file('phone.jpg', 'image/jpeg', photo)
  const { status } = await receive([
    { type: 'Document', mediaType: 'image/jpeg', url: remote, name: 'a wall' },
  ])
  const [media] = status.media_attachments
  expect(media).toMatchObject({
    remote_url: remote,
    description: 'a wall',
    meta: { original: { width: 600, height: 800 } },
  })
  for (const url of [media!.url, media!.preview_url]) {
    expect(url).toMatch(new RegExp(`^${stack.url}/media/`))
    const served = await download(url)
    const meta = await sharp(served).metadata()
    expect(meta.exif ?? meta.xmp ?? meta.iptc).toBeUndefined()
    expect(meta.icc).toBeDefined()
    expect(meta.height! > meta.width!).toBe(true)
    expect(telltalesIn(served)).toEqual([])
  }
})

it('reads focalPoint as meta.focus, alt text from name, else from summary, cut to 1,500 characters; an Update moves the focal point', async () => {
  const png = await sharp({ create: { width: 64, height: 48, channels: 3, background: '#808080' } })
    .png()
    .toBuffer()
  const one = peer.file('one.png', 'image/png', png)
  const two = peer.file('two.png', 'image/png', png)
  const three = peer.file('three.png', 'image/png', png)
  const { uri, status } = await receive([
    {
      type: 'Document',
      mediaType: 'image/png',
      url: one,
      name: 'by name',
      summary: 'not this',
      focalPoint: [0.5, -0.5],
    },
    { type: 'Document', mediaType: 'image/png', url: two, summary: '  in summary  ' },
    { type: 'Image', mediaType: 'image/png', url: three, name: 'y'.repeat(2000), focalPoint: ['a', 3] },
  ])
  expect(status.media_attachments.map((m) => [m.description, m.meta.focus])).toEqual([
    ['by name', { x: 0.5, y: -0.5 }],
    ['in summary', undefined],
    ['y'.repeat(1500), { x: 0, y: 1 }],
  ])
  // The copy keeps the focal point next to its own sizes.
  expect(status.media_attachments[0]!.meta).toMatchObject({ original: { width: 64, height: 48 } })
  expect(status.media_attachments[0]!.url).toMatch(new RegExp(`^${stack.url}/media/`))

  const object = mentionNote(stack, mallory, {
    id: uri,
    updated: new Date().toISOString(),
    attachment: [
      { type: 'Document', mediaType: 'image/png', url: one, name: 'by name', focalPoint: [-0.1, 0.9] },
      { type: 'Document', mediaType: 'image/png', url: two, summary: 'in summary' },
      { type: 'Image', mediaType: 'image/png', url: three, name: 'y'.repeat(2000), focalPoint: ['a', 3] },
    ],
  })
  const update = { id: `${uri}#updates/1`, type: 'Update', actor: mallory.uri, to: object.to, object }
  expect((await peer.post(`${stack.url}/inbox`, mallory, update)).status).toBe(202)
  await stack.drain(120_000)
  const edited = await statusOf(uri)
  expect(edited.edited_at).not.toBeNull()
  expect(edited.media_attachments[0]).toMatchObject({
    url: status.media_attachments[0]!.url,
    meta: { focus: { x: -0.1, y: 0.9 }, original: { width: 64, height: 48 } },
  })
})
