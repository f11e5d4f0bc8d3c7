import { favourite } from '../../apps/accounts/src/domain/favourites'
import { createStatus } from '../../apps/accounts/src/domain/statuses'
import { ACTOR_DELETION_BATCH } from '../../apps/accounts/src/federation/inbox/process'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { startMiniPeer } from './mini-peer'
import type { MiniPeer, PeerActor } from './mini-peer'

/**
 * Delete of a remote actor by itself (docs/federation.md, "Inboxes"): the account and everything of it go, as
 * Mastodon's DeleteAccountService, with counts, feeds and notifications in step, nothing left naming it; a later
 * Follow from the same URI makes a new account from the actor fetched again.
 */
let stack: Stack
let peer: MiniPeer
let alice: TestUser
let mallory: PeerActor
beforeAll(async () => {
  stack = await startStack({ env: { FEDERATION_ALLOW_HTTP: 'true', FEDERATION_RETRY_BASE_MS: '100' } })
  peer = await startMiniPeer()
  alice = await signUp(stack, { username: 'alice' })
  mallory = peer.actor('mallory')
})
afterAll(async () => {
  await stack?.stop()
  await peer?.stop()
})

const db = () => stack.accounts.ctx.db
const inbox = () => `${stack.url}/inbox`
const aliceUri = () => `${stack.url}/users/alice`
let n = 0
const follow = () => ({
  '@context': 'https://www.w3.org/ns/activitystreams',
  id: `${mallory.uri}#follows/${++n}`,
  type: 'Follow',
  actor: mallory.uri,
  object: aliceUri(),
})
const me = async () => (await alice.get('/api/v1/accounts/verify_credentials').expect(200)).body

it('removes the account, its follows, statuses, favourites and notifications; a later Follow starts afresh', async () => {
  // mallory follows alice, and alice follows mallory (accepted).
  expect((await peer.post(inbox(), mallory, follow())).status).toBe(202)
  const found = await alice
    .get(`/api/v2/search?q=mallory@${peer.domain}&resolve=true&type=accounts`)
    .expect(200)
  const malloryId = found.body.accounts[0].id as string
  await alice.post(`/api/v1/accounts/${malloryId}/follow`).expect(200)
  const sent = await eventually(
    async () => peer.received.find((r) => r.activity.type === 'Follow')?.activity,
    60_000,
  )
  const accept = { id: `${mallory.uri}#accepts/1`, type: 'Accept', actor: mallory.uri, object: sent.id }
  expect((await peer.post(inbox(), mallory, accept)).status).toBe(202)
  await stack.drain(60_000)
  expect(await me()).toMatchObject({ followers_count: 1, following_count: 1 })

  // A post of mallory's, which alice boosts, favourites and answers; mallory favourites alice's post.
  const row = await db()('accounts').where({ id: malloryId }).first()
  const { status } = await db().transaction((trx) =>
    createStatus(trx, row, {
      text: 'from mallory',
      spoilerText: '',
      sensitive: false,
      visibility: 'public',
      language: null,
      mediaIds: [],
    }),
  )
  const mine = await post(alice, { status: 'from alice' })
  await stack.drain(60_000)
  await alice.post(`/api/v1/statuses/${status.id}/reblog`).expect(200)
  await alice.post(`/api/v1/statuses/${status.id}/favourite`).expect(200)
  const reply = await post(alice, { status: 'answer', in_reply_to_id: status.id })
  const aliceStatus = await db()('statuses').where({ id: mine }).first()
  await db().transaction((trx) => favourite(trx, malloryId, aliceStatus))
  await stack.drain(60_000)
  // The home feed is built on first read (206 meanwhile).
  const home = async () => {
    const res = await eventually(async () => {
      const r = await alice.get('/api/v1/timelines/home')
      return r.status === 200 ? r : undefined
    }, 60_000)
    return res.body.map((s: { id: string; reblog: { id: string } | null }) => s.reblog?.id ?? s.id)
  }
  expect(await home()).toContain(status.id)
  const fromMallory = async () =>
    (await alice.get('/api/v1/notifications').expect(200)).body.filter(
      (x: { account: { id: string } }) => x.account.id === malloryId,
    )
  expect((await fromMallory()).map((x: { type: string }) => x.type).sort()).toEqual(['favourite', 'follow'])
  expect((await me()).statuses_count).toBe(3)

  const del = { id: `${mallory.uri}#delete`, type: 'Delete', actor: mallory.uri, object: mallory.uri }
  expect((await peer.post(inbox(), mallory, del)).status).toBe(202)
  await stack.drain(60_000)

  // Every consumer of the events the deletion recorded handled them, without the account.
  const worker = stack.accountsWorker!
  expect(await worker.activities.getFailedCount()).toBe(0)
  expect(await worker.inbox.getFailedCount()).toBe(0)
  await alice.get(`/api/v1/accounts/${malloryId}`).expect(404)
  await alice.get(`/api/v1/statuses/${status.id}`).expect(404)
  expect(await me()).toMatchObject({ followers_count: 0, following_count: 0, statuses_count: 2 })
  expect(await fromMallory()).toEqual([])
  expect(await home()).not.toContain(status.id)
  expect((await alice.get(`/api/v1/statuses/${mine}`).expect(200)).body.favourites_count).toBe(0)
  const answer = (await alice.get(`/api/v1/statuses/${reply}`).expect(200)).body
  expect(answer).toMatchObject({ in_reply_to_id: null, in_reply_to_account_id: null })
  for (const [table, column] of [
    ['accounts', 'id'],
    ['follows', 'account_id'],
    ['follows', 'target_account_id'],
    ['statuses', 'account_id'],
    ['statuses', 'in_reply_to_account_id'],
    ['favourites', 'account_id'],
    ['notifications', 'from_account_id'],
  ] as const)
    expect(
      await db()(table)
        .where({ [column]: malloryId })
        .first(),
    ).toBeUndefined()

  // The same actor follows again: its actor is fetched anew and it is a new account, following alice.
  expect((await peer.post(inbox(), mallory, follow())).status).toBe(202)
  await stack.drain(60_000)
  const again = await db()('accounts').where({ uri: mallory.uri }).first()
  expect(again.id).not.toBe(malloryId)
  expect(await me()).toMatchObject({ followers_count: 1 })
  const followers = (await alice.get(`/api/v1/accounts/${alice.id}/followers`).expect(200)).body
  expect(followers.map((a: { id: string }) => a.id)).toEqual([again.id])
})

it('deletes an account larger than one batch in several transactions, leaving nothing of it', async () => {
  const trudy = peer.actor('trudy')
  const follows = { id: `${trudy.uri}#follows/1`, type: 'Follow', actor: trudy.uri, object: aliceUri() }
  expect((await peer.post(inbox(), trudy, follows)).status).toBe(202)
  await stack.drain(60_000)
  const row = await db()('accounts').where({ uri: trudy.uri }).first()
  const count = ACTOR_DELETION_BATCH * 2 + 30
  await db().transaction(async (trx) => {
    for (let i = 0; i < count; i++)
      await createStatus(trx, row, {
        text: `trudy ${i}`,
        spoilerText: '',
        sensitive: false,
        visibility: 'public',
        language: null,
        mediaIds: [],
      })
  })
  const before = await me()
  await stack.drain(120_000)

  const del = { id: `${trudy.uri}#delete`, type: 'Delete', actor: trudy.uri, object: trudy.uri }
  expect((await peer.post(inbox(), trudy, del)).status).toBe(202)
  await stack.drain(120_000)

  expect(await stack.accountsWorker!.inbox.getFailedCount()).toBe(0)
  expect(await db()('accounts').where({ id: row.id }).first()).toBeUndefined()
  expect(await db()('statuses').where({ account_id: row.id }).first()).toBeUndefined()
  expect(await me()).toMatchObject({ followers_count: before.followers_count - 1 })
  // Each transaction's events carry its own start time (now()): the deletions came in three.
  const batches = await db()('outbox')
    .where({ job_name: 'status.deleted' })
    .whereRaw("payload->>'accountId' = ?", [row.id])
    .countDistinct('created_at as n')
  expect(Number(batches[0]!.n)).toBe(Math.ceil((count + 1) / ACTOR_DELETION_BATCH))
}, 240_000)
