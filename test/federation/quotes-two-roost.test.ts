import type { mastodon } from 'masto'
import { createRestAPIClient } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { FEDERATED, eventually } from './two-roost'

/**
 * Quotes across two Roost servers (docs/statuses.md, "Quotes"; docs/federation.md, "Quotes"), with masto.js reading
 * the `quote` attribute as Mastodon's docs describe it (entities/Quote): alice on A quotes bob's post on B; A sends a
 * QuoteRequest, B accepts it with a stamp it serves, and both sides show the quote accepted; bob revokes it and both
 * show it revoked. A followers-only post cannot be quoted by someone else.
 */
let a: Stack
let b: Stack
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({ env: FEDERATED })
}, 240_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})

const masto = (s: Stack, user: TestUser) =>
  createRestAPIClient({ url: s.url, accessToken: user.token, timeout: 30_000 })

describe('quotes between two Roost servers', () => {
  let alice: mastodon.rest.Client
  let bob: mastodon.rest.Client
  let bobUser: TestUser
  let aliceUser: TestUser
  let bobPost: mastodon.v1.Status
  let bobPostOnA: mastodon.v1.Status
  let quote: mastodon.v1.Status

  beforeAll(async () => {
    aliceUser = await signUp(a, { username: 'alice' })
    bobUser = await signUp(b, { username: 'bob' })
    alice = masto(a, aliceUser)
    bob = masto(b, bobUser)
  }, 120_000)

  it('a local quote of a local post is accepted at once, and masto.js reads it', async () => {
    const own = await alice.v1.statuses.create({ status: 'mine', visibility: 'public' })
    expect(own.quoteApproval).toEqual({ automatic: ['public'], manual: [], currentUser: 'automatic' })
    const q = await alice.v1.statuses.create({ status: 'quoting myself', quotedStatusId: own.id })
    expect(q.quote).toMatchObject({ state: 'accepted', quotedStatus: { id: own.id, content: '<p>mine</p>' } })
  })

  it('alice quotes bob across servers: QuoteRequest, Accept with a stamp, accepted on both sides', async () => {
    bobPost = await bob.v1.statuses.create({ status: 'quote me', visibility: 'public' })
    const found = await alice.v2.search.list({
      q: `${b.url}/users/bob/statuses/${bobPost.id}`,
      resolve: true,
    })
    expect(found.statuses).toHaveLength(1)
    bobPostOnA = found.statuses[0]!
    quote = await alice.v1.statuses.create({ status: 'look at this', quotedStatusId: bobPostOnA.id })
    expect(quote.quote).toMatchObject({ state: 'pending', quotedStatus: null })
    const accepted = await eventually(async () => {
      const s = await alice.v1.statuses.$select(quote.id).fetch()
      return s.quote?.state === 'accepted' ? s : undefined
    })
    expect(accepted.quote).toMatchObject({ quotedStatus: { id: bobPostOnA.id } })
    // B: alice's post is stored with its quote accepted, bob is notified, and the stamp is served at its URL.
    const onB = await eventually(() =>
      b.accounts.ctx
        .db('statuses')
        .where({ uri: `${a.url}/users/alice/statuses/${quote.id}` })
        .first(),
    )
    const bobView = await bob.v1.statuses.$select(onB.id).fetch()
    expect(bobView.quote).toMatchObject({ state: 'accepted', quotedStatus: { id: bobPost.id } })
    const notes = await eventually(async () => {
      const list = await bob.v1.notifications.list({ types: ['quote'] })
      return list.length ? list : undefined
    })
    expect(notes[0]).toMatchObject({ type: 'quote', status: { id: onB.id } })
    const row = await a.accounts.ctx.db('quotes').where({ status_id: quote.id }).first()
    const stamp = await fetch(row.approval_uri, { headers: { accept: 'application/activity+json' } })
    expect(stamp.status).toBe(200)
    expect(await stamp.json()).toMatchObject({
      type: 'QuoteAuthorization',
      attributedTo: `${b.url}/users/bob`,
      interactingObject: `${a.url}/users/alice/statuses/${quote.id}`,
      interactionTarget: `${b.url}/users/bob/statuses/${bobPost.id}`,
    })
    // The quoted post lists it among its quotes; its count says so.
    expect((await bob.v1.statuses.$select(bobPost.id).quotes.list()).map((s) => s.id)).toEqual([onB.id])
    expect((await bob.v1.statuses.$select(bobPost.id).fetch()).quotesCount).toBe(1)
  })

  it('only the quoted author may revoke; revoking shows revoked on both sides', async () => {
    const onB = await b.accounts.ctx
      .db('statuses')
      .where({ uri: `${a.url}/users/alice/statuses/${quote.id}` })
      .first()
    const carol = masto(b, await signUp(b, { username: 'carol' }))
    const carolPost = await carol.v1.statuses.create({ status: 'carol', visibility: 'public' })
    // carol's post is not the one quoted: no such quote of it.
    await expect(
      fetch(`${b.url}/api/v1/statuses/${carolPost.id}/quotes/${onB.id}/revoke`, {
        method: 'POST',
        headers: { authorization: `Bearer ${bobUser.token}` },
      }).then(async (r) => [r.status, await r.json()]),
    ).resolves.toEqual([404, { error: 'Record not found' }])
    // alice's own server: she may not revoke a quote of someone else's post (bob's copy is remote there).
    const notHers = await fetch(`${a.url}/api/v1/statuses/${bobPostOnA.id}/quotes/${quote.id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceUser.token}` },
    })
    expect([notHers.status, await notHers.json()]).toEqual([403, { error: 'This action is not allowed' }])
    const revoked = await fetch(`${b.url}/api/v1/statuses/${bobPost.id}/quotes/${onB.id}/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${bobUser.token}` },
    })
    expect(revoked.status).toBe(200)
    expect(((await revoked.json()) as { quote: { state: string } }).quote.state).toBe('revoked')
    await eventually(async () => {
      const s = await alice.v1.statuses.$select(quote.id).fetch()
      return s.quote?.state === 'revoked' || undefined
    })
    expect((await alice.v1.statuses.$select(quote.id).fetch()).quote).toEqual({
      state: 'revoked',
      quotedStatus: null,
    })
  })

  it('bad quotes answer clear errors', async () => {
    const post = (body: Record<string, unknown>) =>
      fetch(`${a.url}/api/v1/statuses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${aliceUser.token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => [r.status, await r.json()])
    const missing = [404, { error: 'The post you are trying to quote does not appear to exist.' }]
    expect(await post({ status: 'x', quoted_status_id: '12345' })).toEqual(missing)
    // bob's followers-only post: alice does not follow bob, so it is not hers to see, nor to quote.
    const secret = await bob.v1.statuses.create({ status: 'followers only', visibility: 'private' })
    const dave = masto(a, await signUp(a, { username: 'dave' }))
    const own = await dave.v1.statuses.create({ status: 'dave private', visibility: 'private' })
    expect(await post({ status: 'x', quoted_status_id: own.id })).toEqual(missing)
    expect(secret.quoteApproval).toMatchObject({ automatic: [], currentUser: 'automatic' })
    expect(await post({ status: 'x', quoted_status_id: own.id, quote_approval_policy: 'everyone' })).toEqual([
      422,
      { error: 'Record invalid' },
    ])
  })
})
