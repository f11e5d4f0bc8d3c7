import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer } from './mini-peer'

/**
 * Profile fields (docs/federation.md, "Profile fields"): a remote field value keeps its links, sanitised as
 * Mastodon's MASTODON_STRICT; a field that is a link is verified (`verified_at`) when the page it links to links
 * back to the profile with rel="me", read by the worker as Mastodon's VerifyLinkService reads it, for remote
 * profiles when stored and for local ones when saved. The pages are served by the mini-peer on loopback.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
const page = (name: string, body: string) =>
  peer.file(
    name,
    'text/html',
    Buffer.from(`<!doctype html><html><head><title>t</title></head><body>${body}</body></html>`),
  )
/** A link as Mastodon writes a field value: the scheme hidden in a span, the text the address itself. */
const mastodonLink = (url: string) => {
  const [scheme, rest] = url.split('//')
  return `<a href="${url}" target="_blank" rel="nofollow noopener me" translate="no"><span class="invisible">${scheme}//</span><span class="">${rest}</span><span class="invisible"></span></a>`
}

beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
}, 120_000)
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

it('keeps the links of a remote field value, sanitised, and verifies the one whose page links back with rel=me', async () => {
  const profile = `${peer.base}/@fred`
  const mine = page('fred.html', `<p>I am <a href="${profile}" rel="me">fred</a></p>`)
  const notMine = page('other.html', `<p><a href="${profile}">fred, without rel=me</a></p>`)
  peer.actor('fred', {
    extra: {
      attachment: [
        { type: 'PropertyValue', name: 'Site', value: mastodonLink(mine) },
        { type: 'PropertyValue', name: 'Other', value: mastodonLink(notMine) },
        {
          type: 'PropertyValue',
          name: 'Pics',
          value: `see <a href="https://pics.example/fred" onclick="steal()" style="x">pics</a><script>steal()</script><img src=x>`,
        },
        { type: 'PropertyValue', name: 'Bad', value: '<a href="javascript:alert(1)">click</a>' },
      ],
    },
  })
  const found = await alice.get(`/api/v2/search?q=fred@${peer.domain}&resolve=true&type=accounts`).expect(200)
  const id = found.body.accounts[0].id as string
  await stack.drain(60_000)
  const { fields } = (await alice.get(`/api/v1/accounts/${id}`).expect(200)).body as {
    fields: { name: string; value: string; verified_at: string | null }[]
  }
  expect(fields.map((f) => f.name)).toEqual(['Site', 'Other', 'Pics', 'Bad'])
  // The link kept, its rel that of every link from elsewhere, its spans' classes kept.
  expect(fields[0]!.value).toBe(
    `<a href="${mine}" rel="nofollow noopener" target="_blank" translate="no"><span class="invisible">http://</span><span>${mine.slice(7)}</span><span class="invisible"></span></a>`,
  )
  expect(fields[2]!.value).toBe(
    'see <a href="https://pics.example/fred" rel="nofollow noopener" target="_blank">pics</a>',
  )
  expect(fields[3]!.value).toBe('<a rel="nofollow noopener" target="_blank">click</a>')
  expect(Date.parse(fields[0]!.verified_at!)).toBeGreaterThan(Date.now() - 120_000)
  expect(fields.slice(1).map((f) => f.verified_at)).toEqual([null, null, null])
  // Each verifiable page read once; the others not at all.
  expect(peer.fileRequests.filter((p) => p === '/files/fred.html')).toHaveLength(1)
  expect(peer.fileRequests.filter((p) => p === '/files/other.html')).toHaveLength(1)

  // Stored again (a refresh) with the same values: the verification stays, and the page is not read again.
  const account = await stack.accounts.ctx.db('accounts').where({ id }).first()
  await stack.accounts.ctx
    .db('accounts')
    .where({ id })
    .update({ fetched_at: new Date(0) })
  await alice.get(`/api/v2/search?q=fred@${peer.domain}&resolve=true&type=accounts`).expect(200)
  await stack.drain(60_000)
  const again = await stack.accounts.ctx.db('accounts').where({ id }).first()
  expect(again.fields[0].verified_at).toBe(account.fields[0].verified_at)
  expect(peer.fileRequests.filter((p) => p === '/files/fred.html')).toHaveLength(1)
})

it('verifies a local field when it is saved, if its page links back to the profile; a changed value loses it', async () => {
  const profile = `${stack.url}/@alice`
  const mine = page(
    'alice.html',
    `<link rel="me authn" href="${profile.toUpperCase().replace('HTTP://', 'http://')}">`,
  )
  const notMine = page('nobody.html', `<a rel="me" href="${stack.url}/@bob">bob</a>`)
  await stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set(bearer(alice.token))
    .send({
      fields_attributes: [
        { name: 'Site', value: mine },
        { name: 'Other', value: notMine },
        { name: 'Missing', value: `${peer.base}/files/missing.html` },
        { name: 'Text', value: 'not a link' },
      ],
    })
    .expect(200)
  await stack.drain(60_000)
  const me = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body as {
    fields: { value: string; verified_at: string | null }[]
  }
  expect(me.fields[0]!.verified_at).not.toBeNull()
  expect(me.fields.slice(1).map((f) => f.verified_at)).toEqual([null, null, null])
  expect(me.fields[0]!.value).toContain(`href="${mine}"`)

  const other = page('alice2.html', '<p>nothing here</p>')
  await stack
    .api()
    .patch('/api/v1/accounts/update_credentials')
    .set(bearer(alice.token))
    .send({ fields_attributes: [{ name: 'Site', value: other }] })
    .expect(200)
  await stack.drain(60_000)
  const after = (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body as {
    fields: { verified_at: string | null }[]
  }
  expect(after.fields).toEqual([expect.objectContaining({ verified_at: null })])
})
