import { createHash, createPublicKey } from 'node:crypto'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { createLogger } from '@roost/service'
import { createFederation } from '../../apps/accounts/src/federation/transport/client'
import type { Federation } from '../../apps/accounts/src/federation/transport/client'
import { instanceKeyPair, localKeyPair } from '../../apps/accounts/src/federation/transport/keys'
import { signMessage } from '../../apps/accounts/src/federation/transport/message-signatures'
import type { SignatureScheme } from '../../apps/accounts/src/federation/transport/signatures'
import { checkSignedRequest, verifiedBy } from '../../apps/accounts/src/federation/transport/signatures'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startPeer } from './peer'
import type { Peer } from './peer'
import { startMiniPeer, testOutboundClient } from './mini-peer'
import type { MiniPeer } from './mini-peer'
// An independent implementation of RFC 9421 (dhensby/node-http-message-signatures, written from the RFC and its
// test vectors, not from Mastodon's or Roost's code), a test-only dev dependency: it runs on Node 20, which the
// Fedify releases that speak RFC 9421 (1.6+) do not.
import { createSigner, createVerifier, httpbis } from 'http-message-signatures'

const eventually = <T>(check: () => Promise<T>, timeoutMs = 90_000) => eventuallyWithin(check, timeoutMs)
jest.setTimeout(300_000)

/**
 * HTTP signature schemes (docs/federation.md, "HTTP signatures"): two Roost servers that try RFC 9421 first follow
 * each other's accounts with RFC 9421 both ways (and take RFC 9421 signed with each other's real keys, refusing a
 * changed one); against the Fedify peer (Fedify 1.5.9, which speaks only draft-cavage) Roost double-knocks: RFC 9421
 * is refused with a 401, draft-cavage goes through and is remembered; and against a loopback server that accepts one
 * scheme only, each side of the double knock, and the memory per host, shared through Postgres. RFC 9421 is also
 * shown against an independent implementation (http-message-signatures): a request it signs as Mastodon 4.5 does is
 * taken (and refused with its body changed), and a delivery Roost signs verifies with it.
 */
let a: Stack
let b: Stack
let peer: Peer
let alice: TestUser
let bob: TestUser
const RFC9421_FIRST = {
  FEDERATION_ALLOW_HTTP: 'true',
  FEDERATION_RETRY_BASE_MS: '100',
  HTTP_SIGNATURE_FIRST: 'rfc9421',
}
beforeAll(async () => {
  a = await startStack({ env: RFC9421_FIRST })
  b = await startStack({ env: RFC9421_FIRST })
  peer = await startPeer({ users: ['fred'], autoAccept: true, httpHosts: [new URL(a.url).host] })
  alice = await signUp(a, { username: 'alice' })
  bob = await signUp(b, { username: 'bob' })
}, 300_000)
afterAll(async () => {
  await peer?.stop()
  await a?.stop()
  await b?.stop()
})

const hostOf = (url: string) => new URL(url).host
const remembered = (s: Stack, url: string) =>
  s.accounts.ctx
    .db('http_signature_schemes')
    .where({ domain: hostOf(url) })
    .first('scheme')

it('RFC 9421 both ways between two Roost servers: a follow and its Accept', async () => {
  const found = await alice.get(
    `/api/v2/search?q=${encodeURIComponent(`@bob@${hostOf(b.url)}`)}&resolve=true`,
  )
  const bobOnA = found.body.accounts[0]
  await alice.post(`/api/v1/accounts/${bobOnA.id}/follow`).expect(200)
  await eventually(async () => {
    const res = await alice.get(`/api/v1/accounts/relationships?id[]=${bobOnA.id}`)
    return res.body[0]?.following
  })
  // Each side tried RFC 9421 first and it went through: the other server verified it (a 401 would have switched
  // the host to draft-cavage).
  expect(await remembered(a, b.url)).toEqual({ scheme: 'rfc9421' })
  expect(await remembered(b, a.url)).toEqual({ scheme: 'rfc9421' })
})

it("each Roost server takes RFC 9421 made with the other's real key, and refuses it changed", async () => {
  for (const [from, to, user, target] of [
    [a, b, alice, 'bob'],
    [b, a, bob, 'alice'],
  ] as const) {
    const keys = await localKeyPair(from.accounts.ctx.db, user.id)
    const inbox = new URL(`${to.url}/users/${target}/inbox`)
    const body = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${from.url}/users/${user.username}#likes/${Date.now()}`,
      type: 'Like',
      actor: `${from.url}/users/${user.username}`,
      object: `${to.url}/users/${target}/statuses/1`,
    })
    const headers = signMessage({
      method: 'POST',
      url: inbox,
      body,
      keyId: `${from.url}/users/${user.username}#main-key`,
      privateKey: keys.privateKey,
    })
    expect(headers['Signature-Input']).toMatch(
      /^sig1=\("@method" "@target-uri" "content-digest"\);created=\d+;keyid="/,
    )
    const client = testOutboundClient()
    const send = (h: Record<string, string>, b: string) =>
      client.request('POST', inbox, { 'Content-Type': 'application/activity+json', ...h }, b)
    expect((await send(headers, body)).status).toBe(202)
    const changed = await send(
      { ...headers, 'Content-Digest': `sha-256=:${Buffer.alloc(32).toString('base64')}:` },
      body,
    )
    expect(changed.status).toBe(401)
    expect(JSON.parse(changed.body.toString()).error).toMatch(/^Invalid Digest value\./)
    const otherTarget = await client.request(
      'POST',
      new URL(`${to.url}/inbox`),
      { 'Content-Type': 'application/activity+json', ...headers },
      body,
    )
    expect(otherTarget.status).toBe(401)
    expect(JSON.parse(otherTarget.body.toString()).error).toMatch(
      /using HTTP Message Signatures \(RFC 9421\)$/,
    )
    // Made for the same path on another server, and sent here with that server's name as Host: refused.
    const elsewhere = new URL(`http://elsewhere.example${inbox.pathname}`)
    const replayed = signMessage({
      method: 'POST',
      url: elsewhere,
      body,
      keyId: `${from.url}/users/${user.username}#main-key`,
      privateKey: keys.privateKey,
    })
    const spoofedHost = { ...replayed, Host: elsewhere.host, 'X-Forwarded-Host': elsewhere.host }
    expect((await send(spoofedHost, body)).status).toBe(401)
    client.close()
  }
})

it('double-knocks with the Fedify peer: RFC 9421 refused, draft-cavage accepted and remembered', async () => {
  // The installed Fedify (1.5.9) signs draft-cavage only: its signRequest has no RFC 9421 (that came in 1.6, Node 22).
  const fedifySigned = await peer.sign({ method: 'GET', url: `${a.url}/users/alice` }, 'fred')
  expect(fedifySigned.headers['signature-input']).toBeUndefined()
  expect(fedifySigned.headers.signature).toMatch(/^keyId="/)
  // fred (Fedify) follows alice; Roost's Accept is signed RFC 9421 first, which Fedify 1.5.9 cannot read.
  await peer.follow(`${a.url}/users/alice`, 'fred')
  await eventually(async () => (await peer.log()).inbox.find((e) => e.type === 'Accept'))
  // Remembered once Roost has the 202: the peer logs the Accept before it answers, and the signed GET of fred's
  // actor before it (which Fedify serves whatever the signature) may have left `rfc9421` there meanwhile.
  await eventually(async () => (await remembered(a, peer.url))?.scheme === 'draft-cavage')
})

describe('double-knocking against a server that accepts one scheme only', () => {
  let server: http.Server
  let origin = ''
  let accepts: SignatureScheme = 'rfc9421'
  const seen: { scheme: SignatureScheme; status: number }[] = []
  let fed: Federation
  beforeAll(async () => {
    // alice signs the POSTs, the instance actor the GETs.
    const publicKeys = [
      (await localKeyPair(a.accounts.ctx.db, alice.id)).publicKey,
      (await instanceKeyPair(a.accounts.ctx.db)).publicKey,
    ]
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const checked = checkSignedRequest({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks),
          origins: [origin],
        })
        // Roost's own checks stand in for the server's: what matters here is which scheme it takes.
        const status =
          checked.scheme === accepts && publicKeys.some((k) => verifiedBy(k, checked)) ? 202 : 401
        seen.push({ scheme: checked.scheme, status })
        res.writeHead(status).end()
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    // A client of A's database that tries draft-cavage first with an unknown host (the default, as Mastodon).
    fed = createFederation({
      db: a.accounts.ctx.db,
      config: { PUBLIC_URL: a.url, FEDERATION: true, FEDERATION_ALLOW_HTTP: true },
      logger: createLogger('test', 'silent'),
    })
  })
  afterAll(async () => {
    fed?.close()
    await new Promise((resolve) => server.close(resolve))
  })

  it('draft-cavage first, RFC 9421 after the 401, then RFC 9421 straight away; and back when it changes', async () => {
    const post = async () => (await fed.post(`${origin}/inbox`, '{"type":"Like"}', alice.id)).status
    expect(await post()).toBe(202)
    expect(seen.splice(0)).toEqual([
      { scheme: 'draft-cavage', status: 401 },
      { scheme: 'rfc9421', status: 202 },
    ])
    expect(await remembered(a, origin)).toEqual({ scheme: 'rfc9421' })
    expect(await post()).toBe(202)
    expect(seen.splice(0)).toEqual([{ scheme: 'rfc9421', status: 202 }])

    // The server now takes draft-cavage only: one 401, and the memory follows.
    accepts = 'draft-cavage'
    expect(await post()).toBe(202)
    expect(seen.splice(0)).toEqual([
      { scheme: 'rfc9421', status: 401 },
      { scheme: 'draft-cavage', status: 202 },
    ])
    expect(await remembered(a, origin)).toEqual({ scheme: 'draft-cavage' })
    // Signed GETs knock the same way.
    accepts = 'rfc9421'
    await fed.fetchJson(`${origin}/users/x`).catch(() => undefined)
    expect(seen.splice(0)).toEqual([
      { scheme: 'draft-cavage', status: 401 },
      { scheme: 'rfc9421', status: 202 },
    ])
  })
})

describe('RFC 9421 with an independent implementation (http-message-signatures)', () => {
  let mini: MiniPeer
  beforeAll(async () => {
    mini = await startMiniPeer()
  })
  afterAll(async () => {
    await mini?.stop()
  })

  it("a request it signs as Mastodon 4.5 does is taken, refused with its body changed; Roost's delivery verifies with it", async () => {
    const mona = mini.actor('mona')
    const inbox = `${a.url}/users/alice/inbox`
    const follow = JSON.stringify({
      '@context': 'https://www.w3.org/ns/activitystreams',
      id: `${mona.uri}#follows/1`,
      type: 'Follow',
      actor: mona.uri,
      object: `${a.url}/users/alice`,
    })
    // As Mastodon 4.5 signs: ("@method" "@target-uri" "content-digest");created;keyid, RSA v1.5 SHA-256, no alg.
    const signed = await httpbis.signMessage(
      {
        key: createSigner(mona.privateKey, 'rsa-v1_5-sha256', mona.keyId),
        fields: ['@method', '@target-uri', 'content-digest'],
        params: ['created', 'keyid'],
      },
      {
        method: 'POST',
        url: inbox,
        headers: {
          'content-type': 'application/activity+json',
          'content-digest': `sha-256=:${createHash('sha256').update(follow).digest('base64')}:`,
        } as Record<string, string>,
      },
    )
    expect(signed.headers['Signature-Input']).toMatch(
      /^sig=\("@method" "@target-uri" "content-digest"\);created=\d+;keyid="/,
    )
    const send = (body: string) => fetch(inbox, { method: 'POST', headers: signed.headers, body })
    const changed = await send(follow.replace('#follows/1', '#follows/2'))
    expect(changed.status).toBe(401)
    expect(((await changed.json()) as { error: string }).error).toMatch(/^Invalid Digest value\./)
    expect((await send(follow)).status).toBe(202)

    // alice accepts: the Accept goes to mona's server signed RFC 9421 (tried first), which the library verifies
    // with the key from alice's actor document.
    const accept = await eventually(async () => mini.received.find((r) => r.activity.type === 'Accept'))
    expect(accept.headers['signature-input']).toBeDefined()
    const actor = (await (
      await fetch(`${a.url}/users/alice`, { headers: { accept: 'application/activity+json' } })
    ).json()) as { publicKey: { id: string; publicKeyPem: string } }
    const headers = Object.fromEntries(
      Object.entries(accept.headers).filter((e): e is [string, string] => typeof e[1] === 'string'),
    )
    const verify = (h: Record<string, string>) =>
      httpbis.verifyMessage(
        {
          keyLookup: async ({ keyid }) =>
            keyid === actor.publicKey.id
              ? {
                  id: keyid,
                  algs: ['rsa-v1_5-sha256'],
                  verify: createVerifier(createPublicKey(actor.publicKey.publicKeyPem), 'rsa-v1_5-sha256'),
                }
              : null,
          requiredFields: ['@method', '@target-uri', 'content-digest'],
          requiredParams: ['created', 'keyid'],
        },
        { method: 'POST', url: `${mini.base}${accept.path}`, headers: h },
      )
    expect(await verify(headers)).toBe(true)
    // The digest it signed is the body's (RFC 9530), and a changed digest no longer verifies.
    expect(headers['content-digest']).toBe(
      `sha-256=:${createHash('sha256').update(accept.body).digest('base64')}:`,
    )
    expect(
      await verify({ ...headers, 'content-digest': `sha-256=:${Buffer.alloc(32).toString('base64')}:` }),
    ).toBe(false)
  })
})
