import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import sharp from 'sharp'
import type { Test } from 'supertest'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { roost as cli } from '../discovery/helpers'
import { roost as mediaCli } from '../media/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Custom emojis (docs/emoji.md): the admin API and the CLI, `/api/v1/custom_emojis`, `emojis` of statuses, polls
 * and accounts, Emoji tags going out, other servers' Emoji tags copied by the worker, reactions (Misskey's Like,
 * Pleroma's EmojiReact) and an Undo that names its Like only by id. Payload shapes are those of each project's own
 * source, cited where they are built.
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)
const PUBLIC = 'https://www.w3.org/ns/activitystreams#Public'

let stack: Stack
let peer: MiniPeer
let admin: TestUser
let alice: TestUser
let mallory: PeerActor

const png = (color: string, size = 64) =>
  sharp({ create: { width: size, height: size, channels: 4, background: color } })
    .png()
    .toBuffer()

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  mallory = peer.actor('mallory', { name: 'Mallory' })
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  const boss = await signUp(stack, { username: 'boss' })
  expect((await cli(stack, 'accounts', 'role', 'boss', 'admin')).code).toBe(0)
  const auth = `Bearer ${await stack.userToken('read write admin:read admin:write', boss)}`
  admin = {
    ...boss,
    get: (p: string) => stack.api().get(p).set('Authorization', auth),
    post: (p: string) => stack.api().post(p).set('Authorization', auth),
    patch: (p: string) => stack.api().patch(p).set('Authorization', auth),
    delete: (p: string) => stack.api().delete(p).set('Authorization', auth),
  } as unknown as TestUser
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
const upload = (shortcode: string, image: Buffer, fields: Record<string, string> = {}) => {
  let req = (admin as unknown as { post: (p: string) => Test })
    .post('/api/v1/admin/custom_emojis')
    .field('shortcode', shortcode)
  for (const [k, v] of Object.entries(fields)) req = req.field(k, v)
  return req.attach('image', image, { filename: `${shortcode}.png`, contentType: 'image/png' })
}

describe('local emojis', () => {
  let blobcatId: string
  it('an admin adds one; GET /api/v1/custom_emojis lists it as Mastodon does, public and cacheable', async () => {
    const res = await upload('blobcat', await png('#f80'), { category: 'Blobs' }).expect(200)
    blobcatId = res.body.id
    expect(res.body).toMatchObject({ shortcode: 'blobcat', category: 'Blobs', domain: null, disabled: false })
    const list = await stack.api().get('/api/v1/custom_emojis').expect(200)
    expect(list.headers['cache-control']).toBe('max-age=180, public')
    expect(list.body).toEqual([
      {
        shortcode: 'blobcat',
        url: expect.stringMatching(/\/media\/[0-9a-f]{32}\.png$/),
        static_url: expect.stringMatching(/\/media\/[0-9a-f]{32}\.png$/),
        visible_in_picker: true,
        category: 'Blobs',
      },
    ])
    // The file is served.
    const file = new URL(list.body[0].url).pathname
    await stack.api().get(file).expect(200)
  })

  it('refuses a bad shortcode, a duplicate, an oversized image and a JPEG with a 422', async () => {
    expect((await upload('a', await png('#000')).expect(422)).body).toEqual({
      error: 'Validation failed: Shortcode is invalid',
    })
    expect((await upload('no-dash', await png('#000')).expect(422)).body.error).toBe(
      'Validation failed: Shortcode is invalid',
    )
    expect((await upload('blobcat', await png('#000')).expect(422)).body).toEqual({
      error: 'Validation failed: Shortcode has already been taken',
    })
    // Random pixels do not compress: far over 256 KB.
    const noise = await sharp(
      Buffer.from(Array.from({ length: 400 * 400 * 3 }, () => Math.floor(Math.random() * 256))),
      {
        raw: { width: 400, height: 400, channels: 3 },
      },
    )
      .png()
      .toBuffer()
    expect(noise.length).toBeGreaterThan(256 * 1024)
    expect((await upload('noisy', noise).expect(422)).body).toEqual({
      error: 'Validation failed: File file size must be less than 256 KB',
    })
    const jpeg = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#fff' } })
      .jpeg()
      .toBuffer()
    expect((await upload('jpeg', jpeg).expect(422)).body).toEqual({
      error: 'Validation failed: Image content type is invalid',
    })
    await (admin as unknown as { post: (p: string) => Test })
      .post('/api/v1/admin/custom_emojis')
      .field('shortcode', 'nothing')
      .expect(422, { error: "Validation failed: Image can't be blank" })
    // Not an admin: refused.
    await alice.get('/api/v1/admin/custom_emojis').expect(403)
  })

  it('fills `emojis` of statuses, polls and accounts; hidden ones stay usable, disabled ones vanish', async () => {
    const id = await post(alice, {
      status: 'I love :blobcat: but not :unknown: nor x:blobcat:y',
      spoiler_text: 'cw :blobcat:',
      poll: { options: [':blobcat:', 'no'], expires_in: 3600 },
    })
    const status = (await alice.get(`/api/v1/statuses/${id}`).expect(200)).body
    expect(status.emojis).toEqual([
      expect.objectContaining({ shortcode: 'blobcat', visible_in_picker: true, url: expect.any(String) }),
    ])
    expect(status.poll.emojis).toEqual([expect.objectContaining({ shortcode: 'blobcat' })])
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${alice.token}`)
      .send({ display_name: 'Alice :blobcat:' })
      .expect(200)
    const account = (await stack.api().get(`/api/v1/accounts/${alice.accountId}`).expect(200)).body
    expect(account.emojis).toEqual([expect.objectContaining({ shortcode: 'blobcat' })])

    // Hidden from the picker: not listed, still shown.
    await (admin as unknown as { patch: (p: string) => Test })
      .patch(`/api/v1/admin/custom_emojis/${blobcatId}`)
      .send({ visible_in_picker: false })
      .expect(200)
    expect((await stack.api().get('/api/v1/custom_emojis').expect(200)).body).toEqual([])
    expect((await alice.get(`/api/v1/statuses/${id}`).expect(200)).body.emojis).toHaveLength(1)
    // Disabled: shown nowhere, the account's too.
    await (admin as unknown as { patch: (p: string) => Test })
      .patch(`/api/v1/admin/custom_emojis/${blobcatId}`)
      .send({ disabled: true })
      .expect(200)
    expect((await alice.get(`/api/v1/statuses/${id}`).expect(200)).body.emojis).toEqual([])
    expect((await stack.api().get(`/api/v1/accounts/${alice.accountId}`).expect(200)).body.emojis).toEqual([])
    await (admin as unknown as { patch: (p: string) => Test })
      .patch(`/api/v1/admin/custom_emojis/${blobcatId}`)
      .send({ disabled: false, visible_in_picker: true })
      .expect(200)
    expect(
      (await stack.api().get(`/api/v1/accounts/${alice.accountId}`).expect(200)).body.emojis,
    ).toHaveLength(1)
  })

  it("outgoing Notes and actors carry Mastodon's Emoji tags (app/serializers/activitypub/emoji_serializer.rb)", async () => {
    const id = await post(alice, 'tagged :blobcat:')
    const note = await stack
      .api()
      .get(`/users/alice/statuses/${id}`)
      .set('Accept', 'application/activity+json')
      .expect(200)
    const emoji = note.body.tag.find((t: { type: string }) => t.type === 'Emoji')
    expect(emoji).toEqual({
      id: `${stack.url}/emojis/${blobcatId}`,
      type: 'Emoji',
      name: ':blobcat:',
      updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      icon: { type: 'Image', mediaType: 'image/png', url: expect.stringMatching(/\.png$/) },
    })
    expect(JSON.stringify(note.body['@context'])).toContain('"Emoji":"toot:Emoji"')
    const actor = await stack.api().get('/users/alice').set('Accept', 'application/activity+json').expect(200)
    expect(actor.body.tag).toEqual([expect.objectContaining({ type: 'Emoji', name: ':blobcat:' })])
  })

  it('serves /emojis/:id as the Emoji object, as Mastodon; a profile emoji that changes sends the actor again', async () => {
    const doc = await stack
      .api()
      .get(`/emojis/${blobcatId}`)
      .set('Accept', 'application/activity+json')
      .expect(200)
    expect(doc.headers['content-type']).toBe('application/activity+json; charset=utf-8')
    expect(doc.body).toEqual({
      '@context': [
        'https://www.w3.org/ns/activitystreams',
        { toot: 'http://joinmastodon.org/ns#', Emoji: 'toot:Emoji' },
      ],
      id: `${stack.url}/emojis/${blobcatId}`,
      type: 'Emoji',
      name: ':blobcat:',
      updated: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      icon: { type: 'Image', mediaType: 'image/png', url: expect.stringMatching(/\.png$/) },
    })
    await stack.api().get('/emojis/12345').expect(404)
    await stack.api().get('/emojis/blobcat').expect(404)

    // mallory follows alice, whose display name uses :blobcat:.
    const follow = {
      id: `${mallory.uri}#follows/emoji`,
      type: 'Follow',
      actor: mallory.uri,
      object: `${stack.url}/users/alice`,
    }
    expect((await peer.post(inbox(), mallory, follow)).status).toBe(202)
    await eventually(async () => peer.received.find((r) => r.activity.type === 'Accept'))
    const updates = () =>
      peer.received.filter(
        (r) =>
          r.activity.type === 'Update' &&
          (r.activity.object as { id?: string }).id === `${stack.url}/users/alice`,
      )
    const before = updates().length
    const patchEmoji = (body: object) =>
      (admin as unknown as { patch: (p: string) => Test })
        .patch(`/api/v1/admin/custom_emojis/${blobcatId}`)
        .send(body)
        .expect(200)
    await patchEmoji({ disabled: true })
    const gone = await eventually(async () => updates()[before])
    expect((gone.activity.object as { tag: unknown[] }).tag).toEqual([])
    await patchEmoji({ disabled: false })
    const back = await eventually(async () => updates()[before + 1])
    expect((back.activity.object as { tag: unknown[] }).tag).toEqual([
      expect.objectContaining({ type: 'Emoji', name: ':blobcat:', id: `${stack.url}/emojis/${blobcatId}` }),
    ])
    // A change that leaves the profile's emojis as they were (here: none of alice's) sends nothing.
    await stack.drain()
    const settled = updates().length
    await upload('unused_one', await png('#123')).expect(200)
    await stack.drain()
    expect(updates()).toHaveLength(settled)
  })

  it('the CLI imports a directory, lists and removes', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'emoji-'))
    await writeFile(path.join(dir, 'party_parrot.png'), await png('#0f0'))
    await writeFile(path.join(dir, 'bad-name.png'), await png('#00f'))
    const env = { MEDIA_DIR: stack.env.MEDIA_DIR! }
    const imported = await mediaCli(stack, env, 'emoji', 'import', dir, '--category', 'Birds')
    expect(imported.code).toBe(0)
    expect(imported.stdout).toContain('bad-name.png: Validation failed: Shortcode is invalid')
    expect(imported.stdout).toContain('Imported 1 of 2 emojis.')
    const listed = await mediaCli(stack, env, 'emoji', 'list')
    expect(listed.stdout).toContain(':party_parrot:\tBirds')
    expect((await mediaCli(stack, env, 'emoji', 'remove', 'party_parrot')).code).toBe(0)
    expect((await mediaCli(stack, env, 'emoji', 'remove', 'party_parrot')).code).toBe(1)
    expect(await db()('custom_emojis').where({ shortcode: 'party_parrot' }).first()).toBeUndefined()
  })
})

describe('remote emojis', () => {
  let malloryId: string
  it("stores a Note's Emoji tags per domain, copies the image in the worker, and shows them; a new `updated` refreshes", async () => {
    const found = await alice
      .get(`/api/v2/search?q=${encodeURIComponent(`@mallory@${peer.domain}`)}&resolve=true&type=accounts`)
      .expect(200)
    malloryId = found.body.accounts[0].id
    await alice.post(`/api/v1/accounts/${malloryId}/follow`).expect(200)
    const image = peer.file('blobfox.png', 'image/png', await png('#f0f'))
    // Mastodon's shape (app/serializers/activitypub/emoji_serializer.rb); also what Misskey's
    // ApRendererService.renderEmoji writes (packages/backend/src/core/activitypub/ApRendererService.ts).
    const tag = {
      id: `${peer.base}/emojis/1`,
      type: 'Emoji',
      name: ':blobfox:',
      updated: '2026-01-01T00:00:00Z',
      icon: { type: 'Image', mediaType: 'image/png', url: image },
    }
    const object = {
      id: `${mallory.uri}/statuses/emoji-1`,
      type: 'Note',
      attributedTo: mallory.uri,
      to: [PUBLIC],
      cc: [`${mallory.uri}/followers`],
      content: '<p>hello :blobfox: and :blobcat:</p>',
      published: new Date().toISOString(),
      tag: [tag],
    }
    const create = { id: `${object.id}/activity`, type: 'Create', actor: mallory.uri, to: [PUBLIC], object }
    // Mallory is followed by alice only once the peer accepts; the Note mentions nobody, so send it once she follows.
    const follow = await eventually(async () => peer.received.find((r) => r.activity.type === 'Follow'))
    await peer.post(inbox(), mallory, {
      id: `${mallory.uri}#a/1`,
      type: 'Accept',
      actor: mallory.uri,
      object: follow.activity,
    })
    await eventually(
      async () => (await db()('follows').where({ target_account_id: malloryId }).first()) ?? undefined,
    )
    expect(await peer.post(inbox(), mallory, create)).toMatchObject({ status: 202 })
    const status = await eventually(async () => {
      const row = await db()('statuses').where({ uri: object.id }).first()
      if (!row) return undefined
      const s = (await alice.get(`/api/v1/statuses/${row.id}`).expect(200)).body
      return s.emojis.length ? s : undefined
    })
    // Only the remote server's emoji: our :blobcat: is not theirs.
    expect(status.emojis).toEqual([
      {
        shortcode: 'blobfox',
        url: expect.stringMatching(new RegExp(`^${stack.url}/media/[0-9a-f]{32}\\.png$`)),
        static_url: expect.stringMatching(/\.png$/),
        visible_in_picker: true,
      },
    ])
    const first = status.emojis[0].url
    // A later `updated` with a new image: copied again.
    const image2 = peer.file('blobfox2.png', 'image/png', await png('#0ff'))
    const update = {
      id: `${object.id}#updates/1`,
      type: 'Update',
      actor: mallory.uri,
      object: {
        ...object,
        content: '<p>edited :blobfox:</p>',
        updated: new Date().toISOString(),
        tag: [{ ...tag, updated: '2026-02-01T00:00:00Z', icon: { ...tag.icon, url: image2 } }],
      },
    }
    expect(await peer.post(inbox(), mallory, update)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${status.id}`).expect(200)).body
      return s.emojis[0]?.url !== first || undefined
    })
    expect(peer.fileRequests).toEqual(expect.arrayContaining(['/files/blobfox.png', '/files/blobfox2.png']))
  })

  it("an actor's Emoji tags fill its account's `emojis`; an admin copies a remote emoji locally", async () => {
    const image = peer.file('ablobwave.png', 'image/png', await png('#888'))
    const actor = {
      ...peer.actorJson(mallory),
      name: 'Mallory :ablobwave:',
      tag: [
        {
          id: `${peer.base}/emojis/2`,
          type: 'Emoji',
          name: ':ablobwave:',
          updated: '2026-01-01T00:00:00Z',
          icon: { type: 'Image', mediaType: 'image/png', url: image },
        },
      ],
    }
    const update = { id: `${mallory.uri}#updates/9`, type: 'Update', actor: mallory.uri, object: actor }
    expect(await peer.post(inbox(), mallory, update)).toMatchObject({ status: 202 })
    const account = await eventually(async () => {
      const a = (await alice.get(`/api/v1/accounts/${malloryId}`).expect(200)).body
      return a.emojis.length ? a : undefined
    })
    expect(account.emojis).toEqual([expect.objectContaining({ shortcode: 'ablobwave' })])
    const remote = await db()('custom_emojis').where({ shortcode: 'ablobwave', domain: peer.domain }).first()
    const copied = await (admin as unknown as { post: (p: string) => Test })
      .post(`/api/v1/admin/custom_emojis/${remote.id}/copy`)
      .expect(200)
    expect(copied.body).toMatchObject({ shortcode: 'ablobwave', domain: null })
    expect(
      (await stack.api().get('/api/v1/custom_emojis').expect(200)).body.map(
        (e: { shortcode: string }) => e.shortcode,
      ),
    ).toContain('ablobwave')
    const listed = await (admin as unknown as { get: (p: string) => Test })
      .get(`/api/v1/admin/custom_emojis?remote=true&by_domain=${peer.domain}`)
      .expect(200)
    expect(listed.body.map((e: { shortcode: string }) => e.shortcode).sort()).toEqual([
      'ablobwave',
      'blobfox',
    ])
  })
})

describe('reactions and Undo by id', () => {
  it("a Misskey reaction Like counts as a favourite (Mastodon's like.rb); its Undo removes it", async () => {
    const mine = await post(alice, 'react to me')
    // Misskey's ApRendererService.renderLike (packages/backend/src/core/activitypub/ApRendererService.ts):
    // `content` and `_misskey_reaction` carry the reaction, `tag` its custom emoji.
    const like = {
      '@context': [
        'https://www.w3.org/ns/activitystreams',
        { _misskey_reaction: 'misskey:_misskey_reaction' },
      ],
      id: `${peer.base}/likes/9xyz`,
      type: 'Like',
      actor: mallory.uri,
      object: `${stack.url}/users/alice/statuses/${mine}`,
      content: ':blobfox@.:',
      _misskey_reaction: ':blobfox@.:',
      tag: [],
    }
    expect(await peer.post(inbox(), mallory, like)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.favourites_count === 1 || undefined
    })
    const undo = { id: `${peer.base}/likes/9xyz/undo`, type: 'Undo', actor: mallory.uri, object: like }
    expect(await peer.post(inbox(), mallory, undo)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.favourites_count === 0 || undefined
    })
  })

  it('an Undo naming its Like only by id undoes it', async () => {
    const mine = await post(alice, 'like me then not')
    const like = {
      id: `${mallory.uri}#likes/by-id`,
      type: 'Like',
      actor: mallory.uri,
      object: `${stack.url}/users/alice/statuses/${mine}`,
    }
    expect(await peer.post(inbox(), mallory, like)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.favourites_count === 1 || undefined
    })
    const undo = { id: `${mallory.uri}#likes/by-id/undo`, type: 'Undo', actor: mallory.uri, object: like.id }
    expect(await peer.post(inbox(), mallory, undo)).toMatchObject({ status: 202 })
    await eventually(async () => {
      const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
      return s.favourites_count === 0 || undefined
    })
  })

  it("a Pleroma EmojiReact changes nothing, as Mastodon's ActivityPub::Activity has no class for it", async () => {
    const mine = await post(alice, 'pleroma reacts')
    // Pleroma's Builder.emoji_react (lib/pleroma/web/activity_pub/builder.ex): the emoji in `content`.
    const react = {
      id: `${peer.base}/activities/react-1`,
      type: 'EmojiReact',
      actor: mallory.uri,
      object: `${stack.url}/users/alice/statuses/${mine}`,
      content: '🔥',
      to: [`${stack.url}/users/alice`],
      cc: [PUBLIC],
    }
    expect(await peer.post(inbox(), mallory, react)).toMatchObject({ status: 202 })
    await stack.drain(120_000)
    const s = (await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body
    expect(s.favourites_count).toBe(0)
    expect(await db()('inbox_activities').where({ uri: react.id }).first()).toBeTruthy()
  })
})
