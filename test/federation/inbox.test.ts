import { createFederation } from '../../apps/accounts/src/federation/transport/client'
import { signerOf } from '../../apps/accounts/src/api/federation/inbox'
import {
  checkSignedRequest,
  signRequest,
  verifiedBy,
} from '../../apps/accounts/src/federation/transport/signatures'
import { createLogger } from '@roost/service'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/** Effects across servers go through two queues each way: generous on a loaded shared machine. */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

/**
 * The inboxes (docs/federation.md, "Inboxes"): Mastodon's signature rules (401 and nothing stored otherwise),
 * the signer's key fetched, cached and fetched again when it no longer verifies, 202 and the work done by the
 * accounts worker: Follow (answered by a signed Accept), Block, Undo, Update and Delete of the actor.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let mallory: PeerActor
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  mallory = peer.actor('mallory', { name: 'Mallory' })
})
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
const aliceUri = () => `${stack.url}/users/alice`
const stored = async () => ({
  events: Number((await db()('outbox').where({ job_name: 'inbox.received' }).count('* as n'))[0]!.n),
  remote: Number((await db()('accounts').whereNotNull('domain').count('* as n'))[0]!.n),
})
let n = 0
const follow = (actor: PeerActor, object = aliceUri()) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${actor.uri}#follows/${++n}`,
  type: 'Follow',
  actor: actor.uri,
  object,
})

describe('signatures: anything wrong is a 401 and nothing is stored', () => {
  it('refuses an unsigned POST, a bad digest, a stale date, a foreign key, an unsigned digest', async () => {
    const before = await stored()
    const unsigned = await stack
      .api()
      .post('/inbox')
      .set('Content-Type', 'application/activity+json')
      .send(JSON.stringify(follow(mallory)))
    expect(unsigned.status).toBe(401)
    expect(unsigned.body).toEqual({ error: 'Request not signed' })

    // The body changed after signing: its Digest no longer matches.
    const tampered = await peer.post(inbox(), mallory, follow(mallory), {
      body: JSON.stringify({ ...follow(mallory), object: `${stack.url}/users/other` }),
    })
    expect(tampered.status).toBe(401)
    expect(String(tampered.body?.error)).toMatch(/^Invalid Digest value/)

    const noDigest = await peer.post(inbox(), mallory, follow(mallory), { headers: { Digest: undefined } })
    expect(noDigest).toEqual({ status: 401, body: { error: 'Digest header missing' } })

    const stale = await peer.post(inbox(), mallory, follow(mallory), {
      now: new Date(Date.now() - 2 * 3600_000),
    })
    expect(stale).toEqual({
      status: 401,
      body: { error: 'Signed request date outside acceptable time window' },
    })

    // Signed by another key than the one mallory's actor publishes.
    const impostor = peer.actor('impostor')
    const forged = await peer.post(inbox(), mallory, follow(mallory), { privateKey: impostor.privateKey })
    expect(forged.status).toBe(401)
    expect(String(forged.body?.error)).toMatch(/^Verification failed for mallory@127\.0\.0\.1:\d+ /)

    // A key that cannot be fetched.
    const ghost = await peer.post(inbox(), mallory, follow(mallory), {
      keyId: `${peer.base}/users/ghost#main-key`,
    })
    expect(ghost).toEqual({
      status: 401,
      body: { error: `Unable to fetch key JSON at ${peer.base}/users/ghost#main-key` },
    })

    // Nothing was queued (fetched actors are kept: they are public documents, as Mastodon keeps them).
    expect((await stored()).events).toBe(before.events)
    expect(await db()('follows').count('* as n')).toEqual([{ n: '0' }])

    // Signed with impostor's own key, but speaking as mallory: taken as a forwarded activity (as Mastodon), and
    // done by nobody, since mallory did not sign it (docs/federation.md, "Forwarded activities").
    const activity = follow(mallory)
    expect(await peer.post(inbox(), impostor, activity)).toMatchObject({ status: 202 })
    await eventually(() => db()('inbox_activities').where({ uri: activity.id }).first())
    expect(await db()('follows').count('* as n')).toEqual([{ n: '0' }])
  })

  it('answers 400 to a signed body that is not an activity, 404 to an unknown user', async () => {
    const garbage = await peer.post(inbox(), mallory, '{not json')
    expect(garbage).toEqual({ status: 400, body: { error: 'Error parsing JSON' } })
    const notActivity = await peer.post(inbox(), mallory, { hello: 'world' })
    expect(notActivity).toEqual({ status: 400, body: { error: 'The body is not an activity' } })
    const nobody = await peer.post(`${stack.url}/users/nobody/inbox`, mallory, follow(mallory))
    expect(nobody).toEqual({ status: 404, body: { error: 'Record not found' } })
  })

  it('refuses actors on private addresses unless FEDERATION_ALLOW_HTTP', async () => {
    const strict = createFederation({
      db: db(),
      config: { PUBLIC_URL: stack.url, FEDERATION: true, FEDERATION_ALLOW_HTTP: false },
      logger: createLogger('test', 'silent'),
    })
    const body = JSON.stringify(follow(mallory))
    const headers = signRequest({
      method: 'POST',
      url: new URL(inbox()),
      body,
      keyId: `${peer.base}/users/newcomer#main-key`,
      privateKey: mallory.privateKey,
    })
    peer.actor('newcomer')
    const checked = checkSignedRequest({
      method: 'POST',
      url: '/inbox',
      headers: Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v])),
      body: Buffer.from(body),
    })
    await expect(signerOf(strict, checked)).rejects.toMatchObject({
      kind: 'unauthenticated', // a 401 at the inbox
      message: `Unable to fetch key JSON at ${peer.base}/users/newcomer#main-key`,
    })
    expect(await db()('accounts').where({ username: 'newcomer' }).first()).toBeUndefined()
    strict.close()
  })
})

describe('activities', () => {
  it('a Follow of an unlocked account becomes a follow, answered by an Accept Roost signed', async () => {
    const activity = follow(mallory)
    expect(await peer.post(inbox(), mallory, activity)).toEqual({ status: 202, body: undefined })
    const remote = await eventually(() => db()('accounts').where({ uri: mallory.uri }).first())
    expect(remote).toMatchObject({
      username: 'mallory',
      domain: peer.domain,
      display_name: 'Mallory',
      note: 'Hello from the peer\nsecond line',
      inbox_url: `${mallory.uri}/inbox`,
      shared_inbox_url: `${peer.base}/inbox`,
    })
    await stack.drain()
    await eventually(async () => peer.received.find((r) => r.activity.type === 'Accept'))
    const accept = peer.received.find((r) => r.activity.type === 'Accept')!
    expect(accept.path).toBe('/users/mallory/inbox')
    expect(accept.activity).toMatchObject({
      type: 'Accept',
      actor: aliceUri(),
      object: { id: activity.id, type: 'Follow', actor: mallory.uri, object: aliceUri() },
    })
    // The Accept is signed by alice's key, as the peer would check it.
    const aliceKey = (await db()('accounts').where({ id: alice.id }).first()).public_key
    const checked = checkSignedRequest({
      method: 'POST',
      url: accept.path,
      headers: accept.headers as Record<string, string>,
      body: Buffer.from(accept.body),
    })
    expect(checked.keyId).toBe(`${aliceUri()}#main-key`)
    expect(verifiedBy(aliceKey, checked)).toBe(true)

    const followers = await alice.get(`/api/v1/accounts/${alice.id}/followers`).expect(200)
    expect(followers.body.map((a: { acct: string; note: string }) => [a.acct, a.note])).toEqual([
      [`mallory@${peer.domain}`, '<p>Hello from the peer<br>second line</p>'],
    ])
    const notifications = await alice.get('/api/v1/notifications').expect(200)
    expect(notifications.body.map((x: { type: string }) => x.type)).toEqual(['follow'])
  })

  it('fetches the key again once when it no longer verifies (the actor has a new key)', async () => {
    const rotated = peer.actor('mallory', { name: 'Mallory' })
    const undo = {
      id: `${rotated.uri}#undo/${++n}`,
      type: 'Undo',
      actor: rotated.uri,
      object: { type: 'Follow', actor: rotated.uri, object: aliceUri() },
    }
    expect((await peer.post(inbox(), rotated, undo)).status).toBe(202)
    expect((await db()('accounts').where({ uri: rotated.uri }).first()).public_key).toBe(rotated.publicKey)
    await stack.drain()
    expect(await db()('follows').where({ target_account_id: alice.id }).first()).toBeUndefined()
    expect((await alice.get(`/api/v1/accounts/${alice.id}`).expect(200)).body.followers_count).toBe(0)
    mallory = rotated
  })

  it('a Follow of a locked account is a request; a Block ends follows; Update and Delete of the actor', async () => {
    await db()('accounts').where({ id: alice.id }).update({ locked: true })
    expect((await peer.post(`${aliceUri()}/inbox`, mallory, follow(mallory))).status).toBe(202)
    await stack.drain()
    const requests = await alice.get('/api/v1/follow_requests').expect(200)
    expect(requests.body.map((a: { acct: string }) => a.acct)).toEqual([`mallory@${peer.domain}`])

    // Update: the profile is stored again from the activity.
    const update = {
      id: `${mallory.uri}#updates/${++n}`,
      type: 'Update',
      actor: mallory.uri,
      object: { ...peer.actorJson(mallory), name: 'Mallory Renamed' },
    }
    expect((await peer.post(inbox(), mallory, update)).status).toBe(202)
    await stack.drain()
    const remoteId = (await db()('accounts').where({ uri: mallory.uri }).first()).id
    expect((await alice.get(`/api/v1/accounts/${remoteId}`).expect(200)).body.display_name).toBe(
      'Mallory Renamed',
    )

    // Block: the request ends, and alice sees herself blocked.
    const block = {
      id: `${mallory.uri}#blocks/${++n}`,
      type: 'Block',
      actor: mallory.uri,
      object: aliceUri(),
    }
    expect((await peer.post(inbox(), mallory, block)).status).toBe(202)
    await stack.drain()
    const blocked = (await alice.get(`/api/v1/accounts/relationships?id[]=${remoteId}`).expect(200)).body[0]
    expect(blocked).toMatchObject({ blocked_by: true, requested_by: false })
    expect((await alice.get('/api/v1/follow_requests').expect(200)).body).toEqual([])
    // Undo of the Block by its id.
    const undo = { id: `${block.id}/undo`, type: 'Undo', actor: mallory.uri, object: block.id }
    expect((await peer.post(inbox(), mallory, undo)).status).toBe(202)
    await stack.drain()
    expect(
      (await alice.get(`/api/v1/accounts/relationships?id[]=${remoteId}`).expect(200)).body[0].blocked_by,
    ).toBe(false)
    // Undo of a Follow by its id: the request it made ends.
    const again = follow(mallory)
    expect((await peer.post(`${aliceUri()}/inbox`, mallory, again)).status).toBe(202)
    await stack.drain()
    expect((await alice.get('/api/v1/follow_requests').expect(200)).body).toHaveLength(1)
    const undoFollow = { id: `${again.id}/undo`, type: 'Undo', actor: mallory.uri, object: again.id }
    expect((await peer.post(inbox(), mallory, undoFollow)).status).toBe(202)
    await stack.drain()
    expect((await alice.get('/api/v1/follow_requests').expect(200)).body).toEqual([])

    // Delete of the actor: the account is gone (test/federation/delete-actor.test.ts has the rest).
    const del = { id: `${mallory.uri}#delete`, type: 'Delete', actor: mallory.uri, object: mallory.uri }
    expect((await peer.post(inbox(), mallory, del)).status).toBe(202)
    await stack.drain()
    await alice.get(`/api/v1/accounts/${remoteId}`).expect(404)
  })
})

describe("a user's domain block", () => {
  it('shows in the relationship, and a Follow from that host is rejected', async () => {
    const bobby = await signUp(stack, { username: 'bobby' })
    const trent = peer.actor('trent')
    await bobby.post('/api/v1/domain_blocks', { domain: '127.0.0.1' }).expect(200)
    const activity = follow(trent, `${stack.url}/users/bobby`)
    expect((await peer.post(inbox(), trent, activity)).status).toBe(202)
    await stack.drain()
    const reject = await eventually(async () =>
      peer.received.find(
        (r) => r.activity.type === 'Reject' && r.activity.actor === `${stack.url}/users/bobby`,
      ),
    )
    expect(reject.activity).toMatchObject({ object: { id: activity.id, type: 'Follow', actor: trent.uri } })
    expect(await db()('follows').where({ target_account_id: bobby.id }).first()).toBeUndefined()
    const trentId = (await db()('accounts').where({ uri: trent.uri }).first()).id
    const rel = (await bobby.get(`/api/v1/accounts/relationships?id[]=${trentId}`).expect(200)).body[0]
    expect(rel).toMatchObject({ domain_blocking: true, followed_by: false })
  })
})

describe('an admin domain block (suspend)', () => {
  it('refuses the inbox POSTs of that server, resolves nothing there and delivers nothing to it', async () => {
    const victor = peer.actor('victor')
    const carl = await signUp(stack, { username: 'carl' })
    await db()('domain_blocks').insert({ domain: '127.0.0.1', severity: 'suspend' })
    const before = await stored()
    const refused = await peer.post(inbox(), victor, follow(victor, `${stack.url}/users/carl`))
    expect(refused).toEqual({ status: 403, body: { error: `Public key not found for key ${victor.keyId}` } })
    expect(await stored()).toEqual(before)
    const search = await carl.get(`/api/v2/search?q=victor@${peer.domain}&resolve=true`).expect(200)
    expect(search.body.accounts).toEqual([])

    // An account known from before gets nothing either.
    const trentId = (
      await db()('accounts')
        .where({ uri: `${peer.base}/users/trent` })
        .first()
    ).id
    const attempts = peer.attempts
    await carl.post(`/api/v1/accounts/${trentId}/block`).expect(200)
    await stack.drain()
    await new Promise((resolve) => setTimeout(resolve, 1000))
    expect(peer.attempts).toBe(attempts)
    await db()('domain_blocks').where({ domain: '127.0.0.1' }).delete()
  })
})
