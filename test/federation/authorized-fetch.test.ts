import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'
import { startPeer } from './peer'
import type { Peer } from './peer'

// Secure mode (AUTHORIZED_FETCH) against the Fedify peer: its signed GETs are served, unsigned ones refused.
let stack: Stack
let peer: Peer
let statusId: string
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', AUTHORIZED_FETCH: 'true' } })
  peer = await startPeer({ httpHosts: [new URL(stack.url).host] })
  const alice = await signUp(stack, { username: 'alice' })
  statusId = await post(alice, 'hello, fediverse')
}, 180_000)
afterAll(async () => {
  await peer?.stop()
  await stack?.stop()
})

const AP = 'application/activity+json'
const alice = () => `${stack.url}/users/alice`
const objects = () => [
  `${alice()}/followers`,
  `${alice()}/following`,
  `${alice()}/outbox`,
  `${alice()}/collections/featured`,
  `${alice()}/statuses/${statusId}`,
  `${alice()}/statuses/${statusId}/activity`,
  `${stack.url}/@alice/${statusId}`,
]
const path = (url: string) => new URL(url).pathname

describe('AUTHORIZED_FETCH', () => {
  it("refuses unsigned GETs of collections and statuses (401), as Mastodon's require_account_signature!", async () => {
    for (const url of objects()) {
      const res = await stack.api().get(path(url)).set('Accept', AP)
      expect([url, res.status, res.body]).toEqual([url, 401, { error: 'Request not signed' }])
    }
    // The Create of a status is a document whatever the Accept.
    await stack
      .api()
      .get(`/users/alice/statuses/${statusId}/activity`)
      .expect(401, { error: 'Request not signed' })
    // Pages are for people and stay open.
    await stack.api().get('/@alice').set('Accept', 'text/html').expect(200)
    await stack.api().get(`/@alice/${statusId}`).set('Accept', 'text/html').expect(200)
  })

  it('answers an unsigned GET of the actor with only what a key fetch needs; the instance actor in full', async () => {
    const res = await stack.api().get('/users/alice').set('Accept', AP).expect(200)
    const actor = JSON.parse(res.text)
    expect(Object.keys(actor).sort()).toEqual(
      ['@context', 'endpoints', 'id', 'inbox', 'preferredUsername', 'publicKey', 'type'].sort(),
    )
    expect(actor.publicKey.id).toBe(`${alice()}#main-key`)
    expect(res.headers.vary).toBe('Accept, Signature')
    const instance = JSON.parse((await stack.api().get('/actor').set('Accept', AP).expect(200)).text)
    expect(instance).toMatchObject({ type: 'Application', outbox: `${stack.url}/actor/outbox` })
  })

  it('serves all of it to GETs the Fedify peer signs (its key fetched and verified)', async () => {
    const { json: actor } = await peer.lookup(alice())
    expect(actor).toMatchObject({
      id: alice(),
      outbox: `${alice()}/outbox`,
      followers: `${alice()}/followers`,
    })
    const { json: followers } = await peer.lookup(`${alice()}/followers`)
    expect(followers).toMatchObject({ type: 'OrderedCollection', totalItems: 0 })
    const { json: note } = await peer.lookup(`${alice()}/statuses/${statusId}`)
    expect(note).toMatchObject({ type: 'Note', id: `${alice()}/statuses/${statusId}` })
    const { json: create } = await peer.lookup(`${alice()}/statuses/${statusId}/activity`)
    expect(create).toMatchObject({ type: 'Create', id: `${alice()}/statuses/${statusId}/activity` })

    // The same, by hand: Fedify's signature headers on a plain GET; answers to signed fetches are private.
    const url = `${alice()}/outbox`
    const { headers } = await peer.sign({ method: 'GET', url, headers: { Accept: AP } })
    const res = await fetch(url, { headers })
    expect(res.status).toBe(200)
    expect(res.headers.get('cache-control')).toBe('max-age=180, private')
    expect(res.headers.get('vary')).toBe('Accept, Signature')
    // The peer is now a known remote account.
    expect(await stack.accounts.ctx.db('accounts').where({ uri: peer.actor() }).first()).toBeDefined()

    // A signature made for another URL does not verify.
    const { headers: other } = await peer.sign({
      method: 'GET',
      url: `${alice()}/following`,
      headers: { Accept: AP },
    })
    const refused = await fetch(url, { headers: other })
    expect(refused.status).toBe(401)
    expect(((await refused.json()) as { error: string }).error).toMatch(
      /^Verification failed for bob@127\.0\.0\.1:/,
    )
  })

  it("refuses a suspended server's signed GETs (403), and serves them again once the block is lifted", async () => {
    const boss = await stack.createUser({ username: 'boss', role: 'admin' })
    const token = await stack.userToken('admin:read admin:write', boss)
    const block = await stack
      .api()
      .post('/api/v1/admin/domain_blocks')
      .set(bearer(token))
      .send({ domain: '127.0.0.1', severity: 'suspend' })
      .expect(200)
    const url = `${alice()}/followers`
    const signedGet = async () => {
      const { headers } = await peer.sign({ method: 'GET', url, headers: { Accept: AP } })
      return fetch(url, { headers })
    }
    const res = await signedGet()
    expect(res.status).toBe(403)
    expect(await res.json()).toEqual({ error: `Public key not found for key ${peer.actor()}#main-key` })
    await stack.api().delete(`/api/v1/admin/domain_blocks/${block.body.id}`).set(bearer(token)).expect(200)
    expect((await signedGet()).status).toBe(200)
  })
})
