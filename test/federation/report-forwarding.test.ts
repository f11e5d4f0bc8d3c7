import { checkSignedRequest, verifiedBy } from '../../apps/accounts/src/federation/transport/signatures'
import { eventually as eventuallyWithin, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor, Received } from './mini-peer'

/**
 * Reports across servers (docs/federation.md, "Reports across servers"), outgoing: a report on a remote account
 * with `forward` goes to its server as a Flag signed by the instance actor, and to the servers named in
 * `forward_to_domains` whose accounts the reported posts replied to, as Mastodon's ReportService forwards it.
 * (Incoming Flags: test/federation/inbox.test.ts.)
 */
const eventually = <T>(check: () => Promise<T>, timeoutMs = 60_000) => eventuallyWithin(check, timeoutMs)

let stack: Stack
let trolls: MiniPeer // the reported account's server
let others: MiniPeer // the server of the account it replied to
let troll: PeerActor
let carol: PeerActor
let alice: TestUser
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  trolls = await startMiniPeer()
  others = await startMiniPeer()
  troll = trolls.actor('troll')
  carol = others.actor('carol')
  alice = await signUp(stack, { username: 'alice' })
}, 240_000)
afterAll(async () => {
  await stack?.stop()
  await trolls?.stop()
  await others?.stop()
})

/** The status Roost keeps for a remote Note, fetched through a search as a client would. */
async function resolve(uri: string): Promise<{ id: string; account: { id: string } }> {
  const res = await alice
    .get(`/api/v2/search?type=statuses&resolve=true&q=${encodeURIComponent(uri)}`)
    .expect(200)
  expect(res.body.statuses).toHaveLength(1)
  return res.body.statuses[0]
}

const flagsOf = (peer: MiniPeer, reportId: string) =>
  peer.received.filter(
    (r) => r.activity.type === 'Flag' && r.activity.id === `${stack.url}/reports/${reportId}`,
  )

/** Whether `received` is signed by the instance actor's key, as the receiving server checks it. */
async function signedByInstanceActor(received: Received) {
  const actor = JSON.parse(
    (await stack.api().get('/actor').set('Accept', 'application/activity+json').expect(200)).text,
  )
  const checked = checkSignedRequest({
    method: 'POST',
    url: received.path,
    headers: received.headers as Record<string, string>,
    body: Buffer.from(received.body),
  })
  return checked.keyId === `${stack.url}/actor#main-key` && verifiedBy(actor.publicKey.publicKeyPem, checked)
}

it("a forwarded report reaches the target's server and the replied-to account's server, from the instance actor", async () => {
  const parent = others.note(carol, 'an ordinary post')
  const reply = trolls.note(troll, 'a rude reply', parent.id)
  const status = await resolve(reply.id)
  // The reply's parent was fetched: the reported post replied to carol.
  await eventually(async () =>
    (await stack.accounts.ctx.db('statuses').where({ id: status.id }).first())?.in_reply_to_account_id
      ? true
      : undefined,
  )

  const report = await alice
    .post('/api/v1/reports', {
      account_id: status.account.id,
      status_ids: [status.id],
      comment: 'rude to carol',
      forward: true,
      forward_to_domains: [others.domain],
    })
    .expect(200)
  expect(report.body).toMatchObject({ forwarded: true, comment: 'rude to carol' })

  const expected = {
    type: 'Flag',
    actor: `${stack.url}/actor`,
    content: 'rude to carol',
    object: [troll.uri, reply.id],
  }
  const [atTrolls] = await eventually(
    async () => flagsOf(trolls, report.body.id)[0] && flagsOf(trolls, report.body.id),
  )
  expect(atTrolls!.activity).toMatchObject(expected)
  expect(atTrolls!.path).toBe('/inbox') // two servers addressed: each one's shared inbox
  expect(await signedByInstanceActor(atTrolls!)).toBe(true)
  const [atOthers] = await eventually(
    async () => flagsOf(others, report.body.id)[0] && flagsOf(others, report.body.id),
  )
  expect(atOthers!.activity).toMatchObject(expected)
  expect(await signedByInstanceActor(atOthers!)).toBe(true)

  // Forwarded without naming domains: the target's own server only, as Mastodon's default.
  const onlyOrigin = await alice
    .post('/api/v1/reports', { account_id: status.account.id, status_ids: [status.id], forward: true })
    .expect(200)
  expect(onlyOrigin.body.forwarded).toBe(true)
  await eventually(async () => flagsOf(trolls, onlyOrigin.body.id)[0])
  await stack.drain()
  expect(flagsOf(others, onlyOrigin.body.id)).toEqual([])
})

it('a report without forward, or on a local account, stays here; a domain that is not one is a 422', async () => {
  const post = trolls.note(troll, 'another post')
  const status = await resolve(post.id)
  const kept = await alice
    .post('/api/v1/reports', { account_id: status.account.id, status_ids: [status.id], comment: 'kept' })
    .expect(200)
  expect(kept.body.forwarded).toBe(false)

  const bob = await signUp(stack, { username: 'bob' })
  const local = await alice.post('/api/v1/reports', { account_id: bob.id, forward: true }).expect(200)
  expect(local.body.forwarded).toBe(false)

  const bad = await alice
    .post('/api/v1/reports', {
      account_id: status.account.id,
      forward: true,
      forward_to_domains: ['not a domain!'],
    })
    .expect(422)
  expect(bad.body).toEqual({ error: 'Validation failed: Forward to domains is invalid' })

  // A later forwarded report arrives; the two above never do.
  const later = await alice
    .post('/api/v1/reports', { account_id: status.account.id, forward: true })
    .expect(200)
  await eventually(async () => flagsOf(trolls, later.body.id)[0])
  await stack.drain()
  expect(flagsOf(trolls, kept.body.id)).toEqual([])
  expect(await stack.accounts.ctx.db('reports').where({ id: kept.body.id }).first('forwarded')).toEqual({
    forwarded: false,
  })
})
