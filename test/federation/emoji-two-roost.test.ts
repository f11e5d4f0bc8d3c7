import type { mastodon } from 'masto'
import { createRestAPIClient } from 'masto'
import sharp from 'sharp'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { roost as cli } from '../discovery/helpers'
import { FEDERATED, domainOf, eventually } from './two-roost'

/**
 * Custom emojis across two Roost servers (docs/emoji.md): an admin adds an emoji through the admin API, its owner
 * uses it in a post and in her display name, and a follower on the other server sees both `emojis` arrays pointing
 * at his own server's copy of the image (remote emoji images are copied like other remote media), which is served.
 * Both directions: A → B and B → A.
 */
let a: Stack
let b: Stack
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({ env: FEDERATED })
}, 240_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})

const masto = (s: Stack, user: TestUser) =>
  createRestAPIClient({ url: s.url, accessToken: user.token, timeout: 30_000 })

const png = (color: string) =>
  sharp({ create: { width: 64, height: 64, channels: 4, background: color } })
    .png()
    .toBuffer()

/** Makes an admin on `s` and adds the emoji `shortcode` through `POST /api/v1/admin/custom_emojis`. */
async function addEmoji(s: Stack, adminName: string, shortcode: string, color: string) {
  const boss = await signUp(s, { username: adminName })
  expect((await cli(s, 'accounts', 'role', adminName, 'admin')).code).toBe(0)
  const token = await s.userToken('read write admin:read admin:write', boss)
  const form = new FormData()
  form.set('shortcode', shortcode)
  form.set('image', new Blob([await png(color)], { type: 'image/png' }), `${shortcode}.png`)
  const res = await fetch(`${s.url}/api/v1/admin/custom_emojis`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  expect(res.status).toBe(200)
  const listed = (await (await fetch(`${s.url}/api/v1/custom_emojis`)).json()) as {
    shortcode: string
    url: string
  }[]
  const own = listed.find((e) => e.shortcode === shortcode)!
  expect(own.url.startsWith(`${s.url}/`)).toBe(true)
  return own.url
}

/** `poster` (on `from`, followed by `reader` on `to`) uses `:shortcode:`; `reader` sees `to`'s own copy of it. */
async function emojiCrosses(opts: {
  from: Stack
  to: Stack
  poster: mastodon.rest.Client
  posterName: string
  reader: mastodon.rest.Client
  shortcode: string
  originalUrl: string
}) {
  const { from, to, poster, posterName, reader, shortcode, originalUrl } = opts
  const found = await reader.v2.search.list({
    q: `@${posterName}@${domainOf(from)}`,
    resolve: true,
    type: 'accounts',
  })
  expect(found.accounts).toHaveLength(1)
  const remote = found.accounts[0]!
  await reader.v1.accounts.$select(remote.id).follow()
  await eventually(async () => {
    const [r] = await reader.v1.accounts.relationships.fetch({ id: [remote.id] })
    return r?.following || undefined
  })
  // Her display name first (sent as an Update of her actor), then the post.
  const me = await poster.v1.accounts.updateCredentials({ displayName: `${posterName} :${shortcode}:` })
  expect(me.emojis.map((e) => e.shortcode)).toEqual([shortcode])
  const status = await poster.v1.statuses.create({ status: `hello :${shortcode}:`, visibility: 'public' })
  expect(status.emojis).toEqual([
    { shortcode, url: originalUrl, staticUrl: expect.any(String), visibleInPicker: true },
  ])

  const uri = `${from.url}/users/${posterName}/statuses/${status.id}`
  const row = await eventually(() => to.accounts.ctx.db('statuses').where({ uri }).first())
  const seen = await eventually(async () => {
    const s = await reader.v1.statuses.$select(row.id).fetch()
    return s.emojis.length ? s : undefined
  })
  const expected = {
    shortcode,
    url: expect.stringMatching(new RegExp(`^${to.url}/media/[0-9a-f]{32}\\.png$`)),
    staticUrl: expect.stringMatching(new RegExp(`^${to.url}/media/[0-9a-f]{32}\\.png$`)),
  }
  expect(seen.emojis).toEqual([expect.objectContaining(expected)])
  expect(seen.emojis[0]!.url).not.toBe(originalUrl)
  // The reader's server serves its copy: a PNG.
  const image = await fetch(seen.emojis[0]!.url)
  expect(image.status).toBe(200)
  expect((await sharp(Buffer.from(await image.arrayBuffer())).metadata()).format).toBe('png')
  // The account as the reader sees it: the display name's emoji, the same copy.
  const account = await eventually(async () => {
    const acc = await reader.v1.accounts.$select(remote.id).fetch()
    return acc.emojis.length ? acc : undefined
  })
  expect(account.displayName).toBe(`${posterName} :${shortcode}:`)
  expect(account.emojis).toEqual([expect.objectContaining({ ...expected, url: seen.emojis[0]!.url })])
  // The remote emoji is not offered in the reader's server's picker list.
  const list = (await (await fetch(`${to.url}/api/v1/custom_emojis`)).json()) as { shortcode: string }[]
  expect(list.map((e) => e.shortcode)).not.toContain(shortcode)
}

describe('custom emojis between two Roost servers', () => {
  let alice: mastodon.rest.Client
  let bob: mastodon.rest.Client
  let blobcatUrl: string
  let blobfoxUrl: string

  beforeAll(async () => {
    alice = masto(a, await signUp(a, { username: 'alice', scope: 'read write follow' }))
    bob = masto(b, await signUp(b, { username: 'bob', scope: 'read write follow' }))
    blobcatUrl = await addEmoji(a, 'adminA', 'blobcat', '#f80')
    blobfoxUrl = await addEmoji(b, 'adminB', 'blobfox', '#08f')
  }, 120_000)

  it("A → B: bob sees alice's :blobcat: in her post and her name, with B's copy of the image", async () => {
    await emojiCrosses({
      from: a,
      to: b,
      poster: alice,
      posterName: 'alice',
      reader: bob,
      shortcode: 'blobcat',
      originalUrl: blobcatUrl,
    })
  })

  it("B → A: alice sees bob's :blobfox: in his post and his name, with A's copy of the image", async () => {
    await emojiCrosses({
      from: b,
      to: a,
      poster: bob,
      posterName: 'bob',
      reader: alice,
      shortcode: 'blobfox',
      originalUrl: blobfoxUrl,
    })
  })
})
