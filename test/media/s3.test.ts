import { existsSync, readdirSync } from 'node:fs'
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from '../federation/mini-peer'
import type { MiniPeer, PeerActor } from '../federation/mini-peer'
import { urlsOf } from '../../apps/accounts/src/entities/account'
import { s3Files } from '../../apps/accounts/src/media/s3'
import { removeOrphans } from '../../apps/accounts/src/media/cleanup'
import { ageAttachment, fileOf, png, receiveRemoteImage, roost } from './helpers'
import { S3_KEYS, startS3Server } from './s3-server'
import type { S3Server } from './s3-server'

/**
 * Media in an S3-compatible bucket (docs/media.md, "Where files are kept"), against s3rver, a real S3-protocol
 * server on loopback: uploads, avatars, headers and the worker's copies of remote images are objects of the bucket,
 * served from it (or from S3_ALIAS_HOST), deleted from it, and swept by the cleanup commands; MEDIA_DIR is never
 * written.
 */
const DAY = 86_400_000
let s3: S3Server
let stack: Stack
let peer: MiniPeer
let mallory: PeerActor
let alice: TestUser
let mediaDir: string

beforeAll(async () => {
  s3 = await startS3Server()
  mediaDir = path.join(os.tmpdir(), 'roost-test-media', `s3-${process.pid}-${Date.now()}`)
  stack = await startStack({
    env: {
      ...s3.env,
      MEDIA_DIR: mediaDir,
      FEDERATION_ALLOW_HTTP: 'true',
    },
  })
  peer = await startMiniPeer()
  mallory = peer.actor('mallory')
  alice = await signUp(stack, { username: 'alice' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
  await s3?.stop()
})

/** Nothing of these tests is ever written to MEDIA_DIR. */
afterEach(() => {
  expect(existsSync(mediaDir) ? readdirSync(mediaDir) : []).toEqual([])
})

const bucketUrl = () => `${s3.endpoint}/${s3.bucket}/`

const download = async (url: string) => {
  const res = await fetch(url)
  expect(res.status).toBe(200)
  return { body: Buffer.from(await res.arrayBuffer()), headers: res.headers }
}

async function upload(image: Buffer) {
  const res = await stack
    .api()
    .post('/api/v2/media')
    .set('Authorization', `Bearer ${alice.token}`)
    .attach('file', image, { filename: 'photo.png', contentType: 'image/png' })
    .field('description', 'a red square')
  expect(res.status).toBe(200)
  return res.body as { id: string; url: string; preview_url: string }
}

it('stores an upload and its preview in the bucket and serves them from it, byte-equal, cacheable forever', async () => {
  const image = await png(1280, 720)
  const media = await upload(image)
  expect(media.url.startsWith(bucketUrl())).toBe(true)
  expect(media.preview_url.startsWith(bucketUrl())).toBe(true)
  const keys = await s3.keys()
  expect(keys).toEqual(expect.arrayContaining([fileOf(media.url), fileOf(media.preview_url)]))

  // The entity's URL, fetched without credentials, is the object the bucket holds, and the upload itself.
  const served = await download(media.url)
  expect(served.body.equals(image)).toBe(true)
  expect(served.body.equals((await s3.object(fileOf(media.url)))!)).toBe(true)
  expect(served.headers.get('content-type')).toBe('image/png')
  expect(served.headers.get('cache-control')).toBe('public, max-age=315576000, immutable')
  const preview = await download(media.preview_url)
  expect(preview.body.equals((await s3.object(fileOf(media.preview_url)))!)).toBe(true)

  // The old address on the service leads to the bucket.
  const old = await stack
    .api()
    .get(`/media/${fileOf(media.url)}`)
    .redirects(0)
  expect(old.status).toBe(301)
  expect(old.headers.location).toBe(media.url)
})

it('stores avatars and headers in the bucket', async () => {
  const avatar = await png(400, 400, { r: 10, g: 200, b: 10 })
  const header = await png(1500, 500, { r: 10, g: 10, b: 200 })
  const res = await stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set('Authorization', `Bearer ${alice.token}`)
    .attach('avatar', avatar, { filename: 'avatar.png', contentType: 'image/png' })
    .attach('header', header, { filename: 'header.png', contentType: 'image/png' })
  expect(res.status).toBe(200)
  for (const [url, bytes] of [
    [res.body.avatar as string, avatar],
    [res.body.header as string, header],
  ] as const) {
    expect(url.startsWith(bucketUrl())).toBe(true)
    const served = await download(url)
    expect(served.body.equals(bytes)).toBe(true)
    expect(served.body.equals((await s3.object(fileOf(url)))!)).toBe(true)
  }
})

it('deletes the objects of an attachment deleted before it was posted', async () => {
  const media = await upload(await png(64, 64))
  expect(await s3.object(fileOf(media.url))).toBeDefined()
  await alice.delete(`/api/v1/media/${media.id}`).expect(200)
  expect(await s3.object(fileOf(media.url))).toBeUndefined()
  expect(await s3.object(fileOf(media.preview_url))).toBeUndefined()
  expect((await fetch(media.url)).status).toBe(404)
})

it("copies a remote status's image into the bucket; media remove deletes our copy, and the entity links to the original", async () => {
  const image = await png(300, 200, { r: 1, g: 2, b: 3 })
  const { statusId, remote, media } = await receiveRemoteImage(stack, peer, mallory, alice, image)
  expect(media.url.startsWith(bucketUrl())).toBe(true)
  expect((await s3.object(fileOf(media.url)))!.equals(image)).toBe(true)
  await ageAttachment(stack, media.id, 3 * DAY)

  const dry = await roost(stack, s3.env, 'media', 'remove', '--days', '2', '--dry-run')
  expect(dry).toMatchObject({ code: 0 })
  expect(dry.stdout).toMatch(/Removed 1 remote media attachments \(2 files\) \(dry run: nothing changed\)/)
  expect(await s3.object(fileOf(media.url))).toBeDefined()

  const done = await roost(stack, s3.env, 'media', 'remove', '--days', '2')
  expect(done.stdout).toMatch(/Removed 1 remote media attachments \(2 files\)/)
  expect(done.stderr).toMatch(/remove: 1 remote attachments, 2 files/)
  expect(await s3.object(fileOf(media.url))).toBeUndefined()
  expect(await s3.object(fileOf(media.preview_url))).toBeUndefined()
  const after = (await alice.get(`/api/v1/statuses/${statusId}`).expect(200)).body.media_attachments[0]
  expect(after).toMatchObject({ id: media.id, url: remote, remote_url: remote })
})

it('media remove-orphans sweeps the bucket: objects no row names and unattached attachments a day old; fresh ones stay', async () => {
  const orphan = `${'a'.repeat(32)}.png`
  const fresh = `${'b'.repeat(32)}.png`
  await s3.put(orphan, await png(8, 8), 'image/png')
  await s3.put(fresh, await png(8, 8), 'image/png')
  s3.age(orphan, 2 * DAY)
  const old = await upload(await png(32, 32))
  await ageAttachment(stack, old.id, 2 * DAY)
  const kept = await upload(await png(33, 33))
  // The upload's own objects are new: only its row is old.
  const dry = await roost(stack, s3.env, 'media', 'remove-orphans', '--dry-run')
  expect(dry.stdout).toMatch(/Removed 1 unattached media attachments and 1 orphan files .*dry run/)
  expect(await s3.object(orphan)).toBeDefined()

  const done = await roost(stack, s3.env, 'media', 'remove-orphans')
  expect(done).toMatchObject({ code: 0 })
  expect(done.stdout).toMatch(/Removed 1 unattached media attachments and 1 orphan files/)
  expect(done.stderr).toMatch(/remove-orphans: \d+ files checked, 1 orphans/)
  const keys = await s3.keys()
  expect(keys).not.toContain(orphan)
  expect(keys).not.toContain(fileOf(old.url))
  expect(keys).not.toContain(fileOf(old.preview_url))
  expect(keys).toEqual(expect.arrayContaining([fresh, fileOf(kept.url), fileOf(kept.preview_url)]))
  expect(await stack.accounts.ctx.db('media_attachments').where({ id: old.id }).first()).toBeUndefined()
})

it('lists a bucket of more than one page (the sweep sees every object)', async () => {
  // A second bucket client with pages of S3's size would need 1000 objects; the domain function takes `now`, so
  // 1,100 fresh objects are all "old" a week from now, and all orphans but the rows' own files.
  const files = s3Files({
    bucket: s3.bucket,
    region: 'us-east-1',
    endpoint: s3.endpoint,
    forcePathStyle: true,
    credentials: S3_KEYS,
  })
  try {
    const names = Array.from({ length: 1100 }, (_, i) => `${i.toString(16).padStart(32, '0')}.png`)
    for (let i = 0; i < names.length; i += 50)
      await Promise.all(names.slice(i, i + 50).map((name) => s3.put(name, Buffer.from('x'), 'image/png')))
    const listed = new Set<string>()
    for await (const f of files.list()) listed.add(f.name)
    for (const name of names) expect(listed.has(name)).toBe(true)
    const dry = await removeOrphans(stack.accounts.ctx.db, files, {
      dryRun: true,
      now: new Date(Date.now() + 7 * DAY),
    })
    expect(dry.files).toBeGreaterThanOrEqual(names.length)
    for (const name of names) await files.remove(name)
  } finally {
    files.close?.()
  }
}, 120_000)

it('serves URLs from S3_ALIAS_HOST when set, and from S3_HOSTNAME or the bucket host otherwise', () => {
  const base = { PUBLIC_URL: 'https://social.example', S3_ENABLED: true, S3_BUCKET: 'files' }
  expect(urlsOf({ ...base, S3_ALIAS_HOST: 'media.example.net' }).media).toBe('https://media.example.net')
  expect(urlsOf({ ...base, S3_ALIAS_HOST: 'cdn.example.net/m', S3_PROTOCOL: 'http' }).media).toBe(
    'http://cdn.example.net/m',
  )
  expect(urlsOf({ ...base, S3_ENDPOINT: 'https://s3.example.net' }).media).toBe(
    'https://s3.example.net/files',
  )
  expect(urlsOf({ ...base, S3_ENDPOINT: 'https://s3.example.net', S3_OVERRIDE_PATH_STYLE: true }).media).toBe(
    'https://files.s3.example.net',
  )
  expect(urlsOf({ ...base, S3_HOSTNAME: 'objects.example.net' }).media).toBe(
    'https://objects.example.net/files',
  )
  expect(urlsOf({ ...base, S3_REGION: 'eu-west-1' }).media).toBe('https://s3.eu-west-1.amazonaws.com/files')
  expect(urlsOf({ PUBLIC_URL: 'https://social.example/' }).media).toBe('https://social.example/media')
})

describe('with S3_ALIAS_HOST', () => {
  let aliased: Stack
  let cdn: Server
  let alias: string
  beforeAll(async () => {
    // The alias host: a CDN in front of the bucket, serving its objects at its root.
    cdn = createServer((req, res) => {
      fetch(`${s3.endpoint}/${s3.bucket}${req.url}`).then(
        async (origin) => {
          res.writeHead(origin.status, {
            'content-type': origin.headers.get('content-type') ?? 'application/octet-stream',
            'x-served-by': 'cdn',
          })
          res.end(Buffer.from(await origin.arrayBuffer()))
        },
        () => res.writeHead(502).end(),
      )
    })
    await new Promise<void>((resolve) => cdn.listen(0, '127.0.0.1', resolve))
    alias = `127.0.0.1:${(cdn.address() as AddressInfo).port}`
    aliased = await startStack({
      env: {
        ...s3.env,
        MEDIA_DIR: mediaDir,
        S3_ALIAS_HOST: alias,
        S3_PROTOCOL: 'http',
      },
    })
  }, 120_000)
  afterAll(async () => {
    await aliased?.stop()
    await new Promise((resolve) => cdn?.close(resolve))
  })

  it("answers the upload's url on the alias host, which serves the bucket's object", async () => {
    const user = await signUp(aliased, { username: 'bob' })
    const image = await png(50, 40)
    const res = await aliased
      .api()
      .post('/api/v2/media')
      .set('Authorization', `Bearer ${user.token}`)
      .attach('file', image, { filename: 'photo.png', contentType: 'image/png' })
      .expect(200)
    const file = fileOf(res.body.url)
    expect(res.body.url).toBe(`http://${alias}/${file}`)
    const served = await download(res.body.url)
    expect(served.headers.get('x-served-by')).toBe('cdn')
    expect(served.body.equals(image)).toBe(true)
    expect(served.body.equals((await s3.object(file))!)).toBe(true)
  })
})
