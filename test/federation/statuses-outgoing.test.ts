import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

/** Effects across servers go through queues on both sides: generous on a loaded shared machine. */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * Posts from one Roost server to another (docs/federation.md, "Posts across servers"), outgoing: B's posts reach
 * A's inbox, signed by B and accepted by A (its signature checked, the activity recorded as `inbox.received`).
 * What A then makes of them is the incoming half.
 */
let a: Stack
let b: Stack
const FEDERATED = { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' }
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({ env: FEDERATED })
}, 180_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})
jest.setTimeout(240_000)

const domainOf = (s: Stack) => new URL(s.url).host
/** The activities A's inboxes accepted from B, as A recorded them. */
const acceptedByA = async () =>
  (
    (await a.accounts.ctx.db('outbox').where({ job_name: 'inbox.received' }).select('payload')) as {
      payload: { activity: Record<string, unknown> & { object: Record<string, unknown> } }
    }[]
  ).map((r) => r.payload.activity)
const arrived = (type: string, objectId: string) =>
  eventually(async () => (await acceptedByA()).find((x) => x.type === type && x.object?.id === objectId))

describe('two Roost servers: posts', () => {
  let alice: TestUser // on A
  let bob: TestUser // on B
  beforeAll(async () => {
    alice = await signUp(a, { username: 'alice' })
    bob = await signUp(b, { username: 'bob' })
  })

  it('a mention of @alice@A (host with a port) is resolved when bob posts and the Create reaches her server', async () => {
    const res = await bob
      .post('/api/v1/statuses', { status: `hello @alice@${domainOf(a)}`, visibility: 'direct' })
      .expect(200)
    expect(res.body.mentions).toEqual([
      { id: expect.any(String), username: 'alice', acct: `alice@${domainOf(a)}`, url: `${a.url}/@alice` },
    ])
    const note = `${b.url}/users/bob/statuses/${res.body.id}`
    const create = await arrived('Create', note)
    expect(create).toMatchObject({ actor: `${b.url}/users/bob`, to: [`${a.url}/users/alice`], cc: [] })
    expect(create.object.tag).toEqual([
      { type: 'Mention', href: `${a.url}/users/alice`, name: `@alice@${domainOf(a)}` },
    ])
  })

  it("once alice follows bob, his private post, its edit and its deletion reach A, addressed to bob's followers", async () => {
    const found = await alice
      .get(`/api/v2/search?q=${encodeURIComponent(`@bob@${domainOf(b)}`)}&resolve=true&type=accounts`)
      .expect(200)
    const remoteBob = found.body.accounts[0]
    await alice.post(`/api/v1/accounts/${remoteBob.id}/follow`).expect(200)
    await eventually(async () => {
      const res = await alice.get(`/api/v1/accounts/relationships?id[]=${remoteBob.id}`).expect(200)
      return res.body[0].following
    })

    const res = await bob
      .post('/api/v1/statuses', { status: 'followers only', visibility: 'private' })
      .expect(200)
    const note = `${b.url}/users/bob/statuses/${res.body.id}`
    const create = await arrived('Create', note)
    expect(create.object).toMatchObject({ to: [`${b.url}/users/bob/followers`], cc: [] })

    await b
      .api()
      .put(`/api/v1/statuses/${res.body.id}`)
      .set('Authorization', `Bearer ${bob.token}`)
      .send({ status: 'followers only, edited' })
      .expect(200)
    const update = await arrived('Update', note)
    expect(String(update.object.content)).toContain('edited')

    await bob.delete(`/api/v1/statuses/${res.body.id}`).expect(200)
    expect(await arrived('Delete', note)).toMatchObject({ object: { type: 'Tombstone' } })
  })
})
