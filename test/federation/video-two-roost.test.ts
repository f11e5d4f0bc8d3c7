import type { mastodon } from 'masto'
import { createRestAPIClient } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { download, mp4, probeBuffer } from '../media/av-helpers'
import { FEDERATED, domainOf, eventually } from './two-roost'

/**
 * A video across two Roost servers, both ways (docs/federation.md, "Remote media"): posted with alt text and a focal
 * point on one, it reaches the other with its description and `meta.focus`, and the other serves its own copy with
 * the original as `remote_url`.
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
  createRestAPIClient({ url: s.url, accessToken: user.token, timeout: 60_000 })

/** `from` follows `username` of `there`, and waits until the follow is accepted. */
async function follow(from: mastodon.rest.Client, username: string, there: Stack) {
  const found = await from.v2.search.list({
    q: `@${username}@${domainOf(there)}`,
    resolve: true,
    type: 'accounts',
  })
  const account = found.accounts[0]!
  await from.v1.accounts.$select(account.id).follow()
  await eventually(async () => {
    const [r] = await from.v1.accounts.relationships.fetch({ id: [account.id] })
    return r?.following || undefined
  })
}

/** Posts a video with alt text as `poster` on `here`; the attachment as `reader` sees it on `there`. */
async function postAndReceive(
  poster: mastodon.rest.Client,
  here: Stack,
  username: string,
  there: Stack,
  reader: mastodon.rest.Client,
  description: string,
  focus: string,
) {
  const media = await poster.v2.media.create({
    file: new Blob([new Uint8Array(await mp4())], { type: 'video/mp4' }),
    description,
    focus,
  })
  expect(media.url).toMatch(new RegExp(`^${here.url}/media/`))
  const status = await poster.v1.statuses.create({
    status: 'a video',
    mediaIds: [media.id],
    visibility: 'public',
  })
  const uri = `${here.url}/users/${username}/statuses/${status.id}`
  const row = await eventually(() => there.accounts.ctx.db('statuses').where({ uri }).first())
  await there.drain(120_000)
  const copy = await eventually(async () => {
    const s = await reader.v1.statuses.$select(row.id).fetch()
    const m = s.mediaAttachments[0]
    return m?.url?.startsWith(`${there.url}/media/`) ? m : undefined
  })
  return { media, copy }
}

it('a video with alt text and a focal point goes from A to B and from B to A, each served from its own copy', async () => {
  const alice = masto(a, await signUp(a, { username: 'alice' }))
  const bob = masto(b, await signUp(b, { username: 'bob' }))
  await follow(bob, 'alice', a)
  await follow(alice, 'bob', b)

  for (const [poster, here, name, there, reader, alt, focus] of [
    [alice, a, 'alice', b, bob, 'A test pattern, from A', { x: -0.25, y: 0.5 }],
    [bob, b, 'bob', a, alice, 'A test pattern, from B', { x: 0.75, y: -0.125 }],
  ] as const) {
    const { media, copy } = await postAndReceive(
      poster,
      here,
      name,
      there,
      reader,
      alt,
      `${focus.x},${focus.y}`,
    )
    expect(copy).toMatchObject({ type: 'video', description: alt, remoteUrl: media.url })
    expect(copy.meta?.focus).toEqual(focus)
    expect(copy.previewUrl).toMatch(new RegExp(`^${there.url}/media/[0-9a-f]{32}-small\\.jpg$`))
    expect(copy.previewRemoteUrl).toBe(media.previewUrl)
    const served = await probeBuffer(await download(copy.url!))
    expect(served.codecs).toEqual(['video:h264', 'audio:aac'])
  }
})
