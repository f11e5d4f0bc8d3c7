import { createPublicKey } from 'node:crypto'
import { localKeyPair } from '../../apps/accounts/src/federation/transport/keys'
import {
  checkSignedRequest,
  signRequest,
  verifiedBy,
} from '../../apps/accounts/src/federation/transport/signatures'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import { startPeer } from './peer'
import type { Peer } from './peer'

// Roost against an independent ActivityPub implementation: a Fedify server (./peer). Everything on the peer's
// side (WebFinger client, JSON-LD parsing of Roost's actor, HTTP signatures both ways) is Fedify's code.
let stack: Stack
let peer: Peer
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true' } })
  peer = await startPeer({ httpHosts: [new URL(stack.url).host] })
}, 180_000)
afterAll(async () => {
  await peer?.stop()
  await stack?.stop()
})

const host = () => new URL(stack.url).host
const aliceUri = () => `${stack.url}/users/alice`
/** alice's key pair as Roost keeps it. */
const aliceKeys = async () => {
  const row = await stack.accounts.ctx
    .db('accounts')
    .where({ username: 'alice' })
    .whereNull('domain')
    .first('id')
  return localKeyPair(stack.accounts.ctx.db, row.id)
}

describe('a Fedify server finds a Roost account', () => {
  beforeAll(async () => {
    await signUp(stack, { username: 'alice' })
  })

  it("by WebFinger (Fedify's client), acct: handle and actor URL alike", async () => {
    const jrd = await peer.webfinger(`acct:alice@${host()}`)
    expect(jrd.subject).toBe(`acct:alice@${host()}`)
    expect(jrd.links).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ rel: 'self', type: 'application/activity+json', href: aliceUri() }),
      ]),
    )
    expect((await peer.webfinger(aliceUri())).subject).toBe(`acct:alice@${host()}`)
  })

  it('and reads its actor and key as a Person, fetched with GETs Fedify signs', async () => {
    const { json, publicKey } = await peer.lookup(`@alice@${host()}`)
    expect(json).toMatchObject({
      id: aliceUri(),
      type: 'Person',
      preferredUsername: 'alice',
      inbox: `${aliceUri()}/inbox`,
      outbox: `${aliceUri()}/outbox`,
      followers: `${aliceUri()}/followers`,
      following: `${aliceUri()}/following`,
      endpoints: { sharedInbox: `${stack.url}/inbox` },
      url: `${stack.url}/@alice`,
    })
    // The key Fedify read from the actor is the one Roost signs with.
    const roost = createPublicKey((await aliceKeys()).publicKey).export({ format: 'jwk' })
    expect(publicKey).toMatchObject({ kty: 'RSA', n: roost.n, e: roost.e })
  })
})

describe("Roost's HTTP signatures and Fedify's", () => {
  it("Fedify verifies a GET Roost signs (fetching alice's key from Roost)", async () => {
    const keys = await aliceKeys()
    const url = new URL(peer.actor())
    const headers = signRequest({
      method: 'GET',
      url,
      keyId: `${aliceUri()}#main-key`,
      privateKey: keys.privateKey,
    })
    const res = await fetch(url, { headers: { ...headers, Accept: 'application/activity+json' } })
    expect(res.status).toBe(200)
    const { signedGets } = await peer.log()
    expect(signedGets).toContainEqual({
      path: '/users/bob',
      identifier: 'bob',
      keyId: `${aliceUri()}#main-key`,
      owner: aliceUri(),
    })
  })

  it("Fedify's inbox takes a POST Roost signs, and refuses it tampered with or unsigned", async () => {
    const keys = await aliceKeys()
    const inbox = new URL(`${peer.actor()}/inbox`)
    const activity = {
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${aliceUri()}#follows/signed-by-roost`,
      type: 'Follow',
      actor: aliceUri(),
      object: peer.actor(),
    }
    const body = JSON.stringify(activity)
    const sign = (b: string) =>
      signRequest({
        method: 'POST',
        url: inbox,
        body: b,
        keyId: `${aliceUri()}#main-key`,
        privateKey: keys.privateKey,
      })
    const send = (headers: Record<string, string>, b: string) =>
      fetch(inbox, {
        method: 'POST',
        headers: { ...headers, 'Content-Type': 'application/activity+json' },
        body: b,
      })

    // Tampered: the body no longer matches the signed Digest.
    const tampered = body.replace('signed-by-roost', 'tampered')
    expect((await send(sign(body), tampered)).status).toBe(401)
    // Unsigned.
    expect((await send({}, body)).status).toBe(401)
    expect((await peer.log()).inbox).toEqual([])

    const res = await send(sign(body), body)
    expect(res.status).toBe(202)
    const { inbox: received } = await peer.log()
    expect(received).toEqual([
      expect.objectContaining({ type: 'Follow', id: activity.id, actor: aliceUri(), object: peer.actor() }),
    ])

    // Fedify's verifyRequest, given the same signed request, names alice's key.
    const checked = await peer.verify({ method: 'POST', url: inbox.href, headers: sign(body), body })
    expect(checked).toEqual({ verified: true, keyId: `${aliceUri()}#main-key`, owner: aliceUri() })
  })

  it("Roost's signature checks accept a GET and a POST Fedify signs", async () => {
    const bobKey = (await peer.lookup(peer.actor())).publicKey!
    const pem = createPublicKey({ key: bobKey, format: 'jwk' })
      .export({ type: 'spki', format: 'pem' })
      .toString()
    const target = new URL(`${aliceUri()}?page=1`)
    const requests: { method: string; url: string; headers: Record<string, string>; body?: string }[] = [
      { method: 'GET', url: target.href, headers: { Accept: 'application/activity+json' } },
      {
        method: 'POST',
        url: `${aliceUri()}/inbox`,
        headers: { 'Content-Type': 'application/activity+json' },
        body: '{"type":"Follow"}',
      },
    ]
    for (const request of requests) {
      const { keyId, headers } = await peer.sign(request)
      expect(keyId).toBe(`${peer.actor()}#main-key`)
      const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
      const url = new URL(request.url)
      const checked = checkSignedRequest({
        method: request.method,
        url: url.pathname + url.search,
        headers: lower,
        body: request.body === undefined ? undefined : Buffer.from(request.body),
      })
      expect(checked.keyId).toBe(keyId)
      expect(verifiedBy(pem, checked)).toBe(true)
      // And not by another key (alice's).
      expect(verifiedBy((await aliceKeys()).publicKey, checked)).toBe(false)
    }
  })
})
