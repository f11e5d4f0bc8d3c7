import type { mastodon } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import { FEDERATED, eventually, masto } from './two-roost'

/**
 * Polls across two Roost servers, with masto.js as each user's client (docs/federation.md, "Polls"): bob's poll on
 * B reaches alice on A as a poll; alice's vote reaches B as Mastodon sends one; B's counts come back to A after each
 * vote; when the poll ends, alice hears of it on A.
 */
let a: Stack
let b: Stack
beforeAll(async () => {
  a = await startStack({ env: FEDERATED })
  b = await startStack({
    env: { ...FEDERATED, POLL_MIN_EXPIRATION_SECONDS: '1', FEDERATION_POLL_UPDATE_DELAY_MS: '300' },
  })
}, 240_000)
afterAll(async () => {
  await a?.stop()
  await b?.stop()
})

describe('a poll of B voted on from A', () => {
  let alice: mastodon.rest.Client
  let bob: mastodon.rest.Client
  let carol: mastodon.rest.Client
  let poll: mastodon.v1.Status
  let copy: mastodon.v1.Status

  beforeAll(async () => {
    alice = masto(a, (await signUp(a, { username: 'alice' })).token)
    bob = masto(b, (await signUp(b, { username: 'bob' })).token)
    carol = masto(b, (await signUp(b, { username: 'carol' })).token)
    const found = await alice.v2.search.list({
      q: `@bob@${new URL(b.url).host}`,
      resolve: true,
      type: 'accounts',
    })
    const bobOnA = found.accounts[0]!
    await alice.v1.accounts.$select(bobOnA.id).follow()
    await eventually(async () => {
      const [r] = await alice.v1.accounts.relationships.fetch({ id: [bobOnA.id] })
      return r?.following || undefined
    })
  }, 120_000)

  it("reaches A as a poll, with B's options and end", async () => {
    poll = await bob.v1.statuses.create({
      status: 'Tea or coffee?',
      poll: { options: ['tea', 'coffee'], expiresIn: 25 },
      visibility: 'public',
    })
    copy = await eventually(async () =>
      (await alice.v1.timelines.home.list()).find((s) => s.uri === poll.uri),
    )
    expect(copy.poll).toMatchObject({
      expiresAt: poll.poll!.expiresAt,
      expired: false,
      multiple: false,
      votesCount: 0,
      votersCount: 0,
      options: [
        { title: 'tea', votesCount: 0 },
        { title: 'coffee', votesCount: 0 },
      ],
      voted: false,
      ownVotes: [],
    })
    expect(copy.poll!.id).not.toBe(poll.poll!.id)
  })

  it("alice's vote counts on A at once and reaches B as her vote", async () => {
    const voted = await alice.v1.polls.$select(copy.poll!.id).votes.create({ choices: [1] })
    expect(voted).toMatchObject({ voted: true, ownVotes: [1], votesCount: 1, votersCount: 1 })
    // A second vote in a single-choice poll: Mastodon's 422.
    await expect(alice.v1.polls.$select(copy.poll!.id).votes.create({ choices: [0] })).rejects.toMatchObject({
      statusCode: 422,
    })
    const onB = await eventually(async () => {
      const p = await bob.v1.polls.$select(poll.poll!.id).fetch()
      return p.votesCount === 1 ? p : undefined
    })
    expect(onB.options.map((o) => o.votesCount)).toEqual([0, 1])
    expect(onB.votersCount).toBe(1)
    // The vote is alice's (her account on B), not a status.
    const aliceOnB = await b.accounts.ctx
      .db('accounts')
      .where({ username: 'alice' })
      .whereNotNull('domain')
      .first()
    expect(
      await b.accounts.ctx.db('poll_votes').where({ poll_id: poll.poll!.id }).select('account_id', 'choice'),
    ).toEqual([{ account_id: aliceOnB.id, choice: 1 }])
    expect(await b.accounts.ctx.db('statuses').where({ account_id: aliceOnB.id }).count('* as n')).toEqual([
      { n: '0' },
    ])
  })

  it("B's counts come back to A after a vote on B", async () => {
    await carol.v1.polls.$select(poll.poll!.id).votes.create({ choices: [0] })
    const updated = await eventually(async () => {
      const p = await alice.v1.polls.$select(copy.poll!.id).fetch()
      return p.votersCount === 2 ? p : undefined
    })
    expect(updated).toMatchObject({
      votesCount: 2,
      options: [
        { title: 'tea', votesCount: 1 },
        { title: 'coffee', votesCount: 1 },
      ],
      voted: true,
      ownVotes: [1],
    })
    // New counts are not an edit.
    expect((await alice.v1.statuses.$select(copy.id).fetch()).editedAt).toBeNull()
  })

  it('ends on A too: alice, who voted, is notified, and the poll shows as ended', async () => {
    const [notification] = await eventually(async () => {
      const found = await alice.v1.notifications.list({ types: ['poll'] })
      return found.length ? found : undefined
    }, 120_000)
    expect(notification).toMatchObject({ type: 'poll', status: { id: copy.id } })
    expect(Date.parse(notification!.createdAt)).toBeGreaterThanOrEqual(Date.parse(poll.poll!.expiresAt!))
    expect((await alice.v1.polls.$select(copy.poll!.id).fetch()).expired).toBe(true)
  }, 180_000)
})
