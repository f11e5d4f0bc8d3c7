import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'

// Two Roost servers in secure mode read each other: Roost's own fetches are signed by its instance actor, whose
// key the other server fetches from `/actor` (always open) and verifies.
let a: Stack
let b: Stack
const SECURE = { FEDERATION_ALLOW_HTTP: 'true', AUTHORIZED_FETCH: 'true' }
beforeAll(async () => {
  a = await startStack({ env: SECURE })
  b = await startStack({ env: SECURE })
}, 180_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})

it('a Roost server resolves an account of another in secure mode, with the full actor its signed GET gets', async () => {
  await signUp(a, { username: 'alice' })
  const bob = await signUp(b, { username: 'bob' })
  const domain = new URL(a.url).host
  const res = await bob
    .get(`/api/v2/search?q=${encodeURIComponent(`@alice@${domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  expect(res.body.accounts.map((x: { acct: string }) => x.acct)).toEqual([`alice@${domain}`])
  // The outbox and followers are not among the fields an unsigned fetch gets: B's fetch was signed and verified.
  const stored = await b.accounts.ctx
    .db('accounts')
    .where({ uri: `${a.url}/users/alice` })
    .first()
  expect(stored).toMatchObject({
    outbox_url: `${a.url}/users/alice/outbox`,
    followers_url: `${a.url}/users/alice/followers`,
  })
  // A knows B's instance actor, which signed it.
  const signer = await a.accounts.ctx
    .db('accounts')
    .where({ uri: `${b.url}/actor` })
    .first()
  expect(signer).toMatchObject({ username: new URL(b.url).host, domain: new URL(b.url).host })
})

it("a profile of a secure-mode server is backfilled through the instance actor's signed fetches, pinned post included", async () => {
  const carol = await signUp(a, { username: 'carol' })
  const ids: string[] = []
  for (const text of ['one', 'two', 'three'])
    ids.push((await carol.post('/api/v1/statuses').send({ status: text }).expect(200)).body.id)
  await carol.post(`/api/v1/statuses/${ids[0]}/pin`).expect(200)
  // Unsigned, A's outbox is not to be had.
  await a.api().get('/users/carol/outbox').set('Accept', 'application/activity+json').expect(401)
  const bob = await signUp(b, { username: 'bob2' })
  const domain = new URL(a.url).host
  const found = await bob
    .get(`/api/v2/search?q=${encodeURIComponent(`@carol@${domain}`)}&resolve=true&type=accounts`)
    .expect(200)
  const id = found.body.accounts[0].id as string
  const statuses = await eventually(async () => {
    const res = await bob.get(`/api/v1/accounts/${id}/statuses`).expect(200)
    return res.body.length === 3 ? res.body : undefined
  }, 60_000)
  expect(statuses.map((s: { content: string }) => s.content)).toEqual([
    '<p>three</p>',
    '<p>two</p>',
    '<p>one</p>',
  ])
  const pinned = await bob.get(`/api/v1/accounts/${id}/statuses?pinned=true`).expect(200)
  expect(pinned.body.map((s: { content: string }) => s.content)).toEqual(['<p>one</p>'])
})
