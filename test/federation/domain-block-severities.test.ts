import { bearer, startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Admin domain blocks below suspend (docs/federation.md, "Domain blocks"): `silence` makes the host's accounts
 * limited, new ones too, so their posts stay out of public timelines and their notifications reach only those who
 * follow them; `reject_media` links none of the host's images; `reject_reports` drops its Flags.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let bob: TestUser
let eve: PeerActor
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  const boss = await stack.createUser({ username: 'boss', role: 'admin' })
  const admin = await stack.userToken('read write admin:read admin:write', boss)
  await stack
    .api()
    .post('/api/v1/admin/domain_blocks')
    .set(bearer(admin))
    .send({ domain: '127.0.0.1', severity: 'silence', reject_media: true, reject_reports: true })
    .expect(200)
  eve = peer.actor('eve')
})
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
let n = 0
const activity = (type: string, object: unknown, extra: object = {}) => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${eve.uri}#activities/${++n}`,
  type,
  actor: eve.uri,
  object,
  ...extra,
})
const notificationsFromEve = async (user: TestUser, eveId: string) =>
  (await user.get('/api/v1/notifications').expect(200)).body.filter(
    (x: { account: { id: string } }) => x.account.id === eveId,
  )

it('silences a new account of the host: limited, out of public timelines, notifying only its followers', async () => {
  expect((await peer.post(inbox(), eve, activity('Follow', `${stack.url}/users/alice`))).status).toBe(202)
  await stack.drain(60_000)
  const row = await db()('accounts').where({ uri: eve.uri }).first()
  expect(row.silenced_at).not.toBeNull()
  expect((await alice.get(`/api/v1/accounts/${row.id}`).expect(200)).body.limited).toBe(true)
  // The follow is made, but alice, who does not follow eve, is not notified.
  expect((await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body.followers_count).toBe(1)
  expect(await notificationsFromEve(alice, row.id)).toEqual([])

  // bob follows eve (accepted); eve's follow then reaches him.
  await bob.post(`/api/v1/accounts/${row.id}/follow`).expect(200)
  await stack.drain(60_000)
  const request = await db()('follow_requests')
    .where({ account_id: bob.id, target_account_id: row.id })
    .first()
  expect((await peer.post(inbox(), eve, activity('Accept', request.uri))).status).toBe(202)
  // The inbox queue may take two activities in either order: the Accept is handled before the Follow is sent.
  await stack.drain(60_000)
  expect((await peer.post(inbox(), eve, activity('Follow', `${stack.url}/users/bob`))).status).toBe(202)
  await stack.drain(60_000)
  expect((await notificationsFromEve(bob, row.id)).map((x: { type: string }) => x.type)).toEqual(['follow'])

  // A public post of eve's is stored, and stays out of the public timelines.
  const note = {
    id: `${eve.uri}/statuses/1`,
    type: 'Note',
    attributedTo: eve.uri,
    content: '<p>hello from a silenced host</p>',
    to: ['https://www.w3.org/ns/activitystreams#Public'],
    cc: [`${eve.uri}/followers`],
    published: new Date().toISOString(),
  }
  expect((await peer.post(inbox(), eve, activity('Create', note))).status).toBe(202)
  await stack.drain(60_000)
  expect(await db()('statuses').where({ uri: note.id }).first()).toBeDefined()
  for (const path of ['/api/v1/timelines/public', '/api/v1/timelines/public?remote=true'])
    expect(
      (await alice.get(path).expect(200)).body.map((s: { account: { id: string } }) => s.account.id),
    ).not.toContain(row.id)
})

it('links no images of a host with reject_media, and drops its reports with reject_reports', async () => {
  const update = activity('Update', {
    ...peer.actorJson(eve),
    icon: { type: 'Image', url: `${peer.base}/avatar.png` },
    image: { type: 'Image', url: `${peer.base}/header.png` },
  })
  expect((await peer.post(inbox(), eve, update)).status).toBe(202)
  const flag = activity('Flag', [`${stack.url}/users/alice`], { content: 'spam' })
  expect((await peer.post(inbox(), eve, flag)).status).toBe(202)
  await stack.drain(60_000)
  const row = await db()('accounts').where({ uri: eve.uri }).first()
  expect(row).toMatchObject({ avatar_remote_url: null, header_remote_url: null })
  expect(await db()('reports').where({ account_id: row.id }).first()).toBeUndefined()
})
