import sharp from 'sharp'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { download, phonePhoto, telltalesIn } from '../media/fixtures'
import { FEDERATED, eventually } from './two-roost'

/**
 * An image with a focal point and alt text across two Roost servers, both ways (docs/federation.md, "Remote
 * media"): the Document carries `name` and `focalPoint`, the receiving side shows `description` and
 * `meta.focus` as sent and serves its own copy (its URL on its own host, `remote_url` the sender's), re-encoded.
 */
let a: Stack
let b: Stack
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({ env: FEDERATED })
  alice = await signUp(a, { username: 'alice' })
  bob = await signUp(b, { username: 'bob' })
}, 240_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})

const host = (s: Stack) => new URL(s.url).host

/** `from`'s user posts a photo with `focus` and `description` mentioning `to`'s user; `to`'s user reads its copy. */
async function travel(
  from: { stack: Stack; user: TestUser },
  to: { stack: Stack; user: TestUser; username: string },
  focus: string,
  description: string,
) {
  const media = (
    await from.user
      .post('/api/v2/media')
      .field('focus', focus)
      .field('description', description)
      .attach('file', await phonePhoto(900, 600, 6), { filename: 'p.jpg', contentType: 'image/jpeg' })
      .expect(200)
  ).body
  const sent = (
    await from.user
      .post('/api/v1/statuses', { status: `@${to.username}@${host(to.stack)} look`, media_ids: [media.id] })
      .expect(200)
  ).body
  const uri = sent.uri as string
  const copy = await eventually(async () => {
    const row = await to.stack.accounts.ctx.db('statuses').where({ uri }).first()
    if (!row) return undefined
    const status = (await to.user.get(`/api/v1/statuses/${row.id}`).expect(200)).body
    // Until the worker has copied the file, the attachment links to the sender's.
    return status.media_attachments[0]?.url.startsWith(to.stack.url) ? status : undefined
  })
  return { media, copy }
}

it('A → B: B shows the focal point and the description, and serves its own clean copy', async () => {
  const { media, copy } = await travel(
    { stack: a, user: alice },
    { stack: b, user: bob, username: 'bob' },
    '0.25,-0.5',
    'a red wall with a blue corner',
  )
  const [attachment] = copy.media_attachments
  expect(attachment).toMatchObject({
    type: 'image',
    description: 'a red wall with a blue corner',
    remote_url: media.url,
    meta: { focus: { x: 0.25, y: -0.5 }, original: { width: 600, height: 900 } },
  })
  expect(attachment.url).toMatch(new RegExp(`^${b.url}/media/`))
  expect(attachment.preview_url).toMatch(new RegExp(`^${b.url}/media/`))
  const served = await download(attachment.url)
  expect(telltalesIn(served)).toEqual([])
  expect(await sharp(served).metadata()).toMatchObject({ width: 600, height: 900 })
})

it('B → A: the same the other way round', async () => {
  const { media, copy } = await travel(
    { stack: b, user: bob },
    { stack: a, user: alice, username: 'alice' },
    '-1,1',
    'ein Foto',
  )
  expect(copy.media_attachments[0]).toMatchObject({
    description: 'ein Foto',
    remote_url: media.url,
    meta: { focus: { x: -1, y: 1 } },
  })
  expect(copy.media_attachments[0].url).toMatch(new RegExp(`^${a.url}/media/`))
})
