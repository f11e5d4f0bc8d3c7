import { bearer, eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { startRelay } from './relay'
import type { Relay } from './relay'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 90_000) => eventuallyWithin(check, timeoutMs)

/**
 * Relays (docs/federation.md, "Relays") between two Roost servers and the loopback relay of test/federation/relay.ts:
 * A subscribes by the relay's inbox (Mastodon's style: posts are forwarded to it as they came), B by the relay's
 * actor (LitePub's: posts are announced to it, and the relay follows B back). A public post of either server
 * reaches the other's federated timeline through the relay and no home feed there; disabling sends the Undo.
 */
let a: Stack
let b: Stack
let relay: Relay
const FEDERATED = { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' }
const tokens: Record<string, string> = {}

beforeAll(async () => {
  ;[a, b, relay] = await Promise.all([
    startStack({ env: FEDERATED }),
    startStack({ env: FEDERATED }),
    startRelay(),
  ])
  for (const [name, stack] of [
    ['a', a],
    ['b', b],
  ] as const) {
    const admin = await stack.createUser({ username: 'admin', role: 'admin' })
    tokens[`${name}Admin`] = await stack.userToken('read write admin:read admin:write', admin)
    tokens[`${name}User`] = await stack.userToken(
      'read write',
      await stack.createUser({ username: `${name}user` }),
    )
  }
}, 240_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
  await relay?.stop()
})

const relays = (s: Stack, token: string) => s.api().get('/api/v1/admin/relays').set(bearer(token)).expect(200)
const post = async (s: Stack, token: string, status: string, visibility = 'public') =>
  (await s.api().post('/api/v1/statuses').set(bearer(token)).send({ status, visibility }).expect(200))
    .body as {
    id: string
    uri: string
  }
const contents = (body: { content: string }[]) => body.map((s) => s.content)

describe('the admin API', () => {
  it('is for admins, and refuses what is not a relay inbox', async () => {
    await a.api().get('/api/v1/admin/relays').set(bearer(tokens.aUser!)).expect(403)
    const add = (inbox_url: unknown) =>
      a.api().post('/api/v1/admin/relays').set(bearer(tokens.aAdmin!)).send({ inbox_url })
    for (const bad of ['', 'not a url', 'ftp://relay.example/inbox', `${a.url}/inbox`]) {
      const res = await add(bad).expect(422)
      expect(res.body).toEqual({ error: expect.stringMatching(/^Validation failed: Inbox URL/) })
    }
    for (const path of ['enable', 'disable'])
      await a.api().post(`/api/v1/admin/relays/999/${path}`).set(bearer(tokens.aAdmin!)).expect(404)
    await a.api().delete('/api/v1/admin/relays/x').set(bearer(tokens.aAdmin!)).expect(404)
    // The OpenAPI document says these routes are Roost's.
    const openapi = (await a.api().get('/api/openapi.json').expect(200)).body
    expect(openapi.paths['/api/v1/admin/relays'].post.description).toMatch(/^A Roost addition/)
    expect(openapi.paths['/api/v1/admin/relays/{id}/disable'].post.security).toEqual([
      { OAuth2: ['admin:write'] },
    ])
  })
})

describe('two Roost servers through a relay', () => {
  it('A follows the relay by its inbox (as:Public), B by its actor (LitePub): both accepted', async () => {
    const added = await a
      .api()
      .post('/api/v1/admin/relays')
      .set(bearer(tokens.aAdmin!))
      .send({ inbox_url: relay.inbox })
      .expect(200)
    expect(added.body).toMatchObject({ inbox_url: relay.inbox, state: 'pending', enabled: true })
    await a
      .api()
      .post('/api/v1/admin/relays')
      .set(bearer(tokens.aAdmin!))
      .send({ inbox_url: relay.inbox })
      .expect(422)
    await b
      .api()
      .post('/api/v1/admin/relays')
      .set(bearer(tokens.bAdmin!))
      .send({ inbox_url: relay.actor })
      .expect(200)
    for (const [s, token] of [
      [a, tokens.aAdmin!],
      [b, tokens.bAdmin!],
    ] as const)
      await eventually(async () => (await relays(s, token)).body[0]?.state === 'accepted')
    const follows = relay.received.filter((r) => r.activity.type === 'Follow')
    expect(follows.map((f) => [f.signer, f.activity.object])).toEqual(
      expect.arrayContaining([
        [`${a.url}/actor`, 'https://www.w3.org/ns/activitystreams#Public'],
        [`${b.url}/actor`, relay.actor],
      ]),
    )
    expect([...relay.subscribers.values()].map((s) => s.style).sort()).toEqual(['litepub', 'mastodon'])
    // B accepted the LitePub relay's follow-back.
    await eventually(async () =>
      relay.received.some((r) => r.activity.type === 'Accept' && r.signer === `${b.url}/actor`),
    )
  })

  it("A's public post reaches B's federated timeline through the relay (an Announce), and no home feed on B", async () => {
    const hidden = await post(a, tokens.aUser!, 'unlisted, not for relays', 'unlisted')
    const mine = await post(a, tokens.aUser!, 'hello relay from A')
    const federated = await eventually(async () => {
      const res = await b.api().get('/api/v1/timelines/public').set(bearer(tokens.bUser!)).expect(200)
      return contents(res.body).includes('<p>hello relay from A</p>') ? res.body : undefined
    })
    expect(federated.find((s: { uri: string }) => s.uri === mine.uri)).toMatchObject({
      reblog: null,
      account: { acct: `auser@${new URL(a.url).host}` },
    })
    // Not a boost by the relay, nowhere in B's home feeds.
    await b.drain()
    expect((await b.api().get('/api/v1/timelines/home').set(bearer(tokens.bUser!)).expect(200)).body).toEqual(
      [],
    )
    expect(
      (await b.api().get('/api/v1/timelines/home').set(bearer(tokens.bAdmin!)).expect(200)).body,
    ).toEqual([])
    expect(await b.accounts.ctx.db('statuses').whereNotNull('reblog_of_id')).toEqual([])
    // The unlisted post never went to the relay.
    expect(relay.received.some((r) => JSON.stringify(r.activity).includes(hidden.uri))).toBe(false)
  })

  it("B's public post reaches A's federated timeline through the relay (the Create forwarded), and no home feed on A", async () => {
    const theirs = await post(b, tokens.bUser!, 'hello relay from B')
    await eventually(async () => {
      const res = await a.api().get('/api/v1/timelines/public').set(bearer(tokens.aUser!)).expect(200)
      return contents(res.body).includes('<p>hello relay from B</p>')
    })
    await a.drain()
    // alice's home has her own posts only.
    const home = (await a.api().get('/api/v1/timelines/home').set(bearer(tokens.aUser!)).expect(200)).body
    expect(home.map((s: { account: { acct: string } }) => s.account.acct)).toEqual(['auser', 'auser'])
    expect(await a.accounts.ctx.db('statuses').where({ uri: theirs.uri }).first('id')).toBeTruthy()
  })

  it("B's edit and deletion, forwarded by the relay, reach A's copy, as B's server tells them", async () => {
    const theirs = await post(b, tokens.bUser!, 'to be edited')
    const copy = () => a.accounts.ctx.db('statuses').where({ uri: theirs.uri }).first()
    await eventually(async () => (await copy()) ?? undefined)
    await b
      .api()
      .put(`/api/v1/statuses/${theirs.id}`)
      .set(bearer(tokens.bUser!))
      .send({ status: 'edited' })
      .expect(200)
    await eventually(async () => (await copy())?.text === '<p>edited</p>')
    await b.api().delete(`/api/v1/statuses/${theirs.id}`).set(bearer(tokens.bUser!)).expect(200)
    await eventually(async () => !(await copy()))
  })

  it('disabling sends the Undo; later posts no longer go to the relay', async () => {
    const [row] = (await relays(a, tokens.aAdmin!)).body
    const disabled = await a
      .api()
      .post(`/api/v1/admin/relays/${row.id}/disable`)
      .set(bearer(tokens.aAdmin!))
      .expect(200)
    expect(disabled.body).toMatchObject({ state: 'idle', enabled: false })
    await eventually(async () =>
      relay.received.some((r) => r.activity.type === 'Undo' && r.signer === `${a.url}/actor`),
    )
    expect([...relay.subscribers.values()].map((s) => s.actor)).toEqual([`${b.url}/actor`])
    const later = await post(a, tokens.aUser!, 'after the relay')
    await a.drain()
    expect(relay.received.some((r) => JSON.stringify(r.activity).includes(later.uri))).toBe(false)
    // Enabled again: a new Follow, accepted again; removed: one more Undo and the list is empty.
    await a.api().post(`/api/v1/admin/relays/${row.id}/enable`).set(bearer(tokens.aAdmin!)).expect(200)
    await eventually(async () => (await relays(a, tokens.aAdmin!)).body[0]?.state === 'accepted')
    await a.api().delete(`/api/v1/admin/relays/${row.id}`).set(bearer(tokens.aAdmin!)).expect(200)
    await eventually(
      async () =>
        relay.received.filter((r) => r.activity.type === 'Undo' && r.signer === `${a.url}/actor`).length ===
        2,
    )
    expect((await relays(a, tokens.aAdmin!)).body).toEqual([])
    expect(relay.refused).toBe(0)
  })
})
