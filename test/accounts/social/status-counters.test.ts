import { COUNT_STATUS_STATS } from '../../../apps/accounts/src/db/migrations/20261128020001_status_stats'
import type { Stack } from '../../stack'
import { startStack } from '../../stack'
import type { TestUser } from './helpers'
import { post, signUp } from './helpers'

/**
 * A status's replies, boosts and favourites are counted as they come and go (`status_stats`, kept by triggers;
 * docs/performance.md, "Counters"), and what a status shows must equal what counting its rows gives, whichever path
 * added or removed them: the API, a cascade, a reply's parent or visibility changed. As Mastodon, replies and boosts
 * count when public or unlisted.
 */
let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser

beforeAll(async () => {
  stack = await startStack()
  ;[alice, bob, carol] = [await signUp(stack), await signUp(stack), await signUp(stack)]
}, 120_000)
afterAll(() => stack?.stop())

const db = () => stack.accounts.ctx.db

const SHOWN = "('public', 'unlisted')"

/** Every status whose kept counters differ from its rows counted now, with both. */
async function mismatches() {
  const { rows } = await db().raw(`
    SELECT * FROM (
      SELECT s.id,
             coalesce(c.replies_count, 0) AS kept_replies,
             (SELECT count(*) FROM statuses r WHERE r.in_reply_to_id = s.id AND r.visibility IN ${SHOWN}) AS replies,
             coalesce(c.reblogs_count, 0) AS kept_reblogs,
             (SELECT count(*) FROM statuses b WHERE b.reblog_of_id = s.id AND b.visibility IN ${SHOWN}) AS reblogs,
             coalesce(c.favourites_count, 0) AS kept_favourites,
             (SELECT count(*) FROM favourites f WHERE f.status_id = s.id) AS favourites
        FROM statuses s LEFT JOIN status_stats c ON c.status_id = s.id) AS counted
     WHERE kept_replies <> replies OR kept_reblogs <> reblogs OR kept_favourites <> favourites`)
  return rows
}

async function counters(id: string) {
  const { body } = await alice.get(`/api/v1/statuses/${id}`).expect(200)
  return [body.replies_count, body.reblogs_count, body.favourites_count]
}

describe('status counters', () => {
  it('count replies, boosts and favourites made and taken back through the API', async () => {
    const id = await post(alice, 'count me')
    expect(await counters(id)).toEqual([0, 0, 0])

    await bob.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await bob.post(`/api/v1/statuses/${id}/favourite`).expect(200) // a second favourite is the same one
    await carol.post(`/api/v1/statuses/${id}/favourite`).expect(200)
    await bob.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    const reply = await post(carol, { status: 'a reply', in_reply_to_id: id })
    await post(carol, { status: 'another', in_reply_to_id: id, visibility: 'unlisted' })
    // Not counted, as in Mastodon: everyone sees the count, not everyone these replies.
    await post(bob, { status: 'for followers', in_reply_to_id: id, visibility: 'private' })
    await post(bob, { status: 'in private', in_reply_to_id: id, visibility: 'direct' })
    expect(await counters(id)).toEqual([2, 1, 2])

    await bob.post(`/api/v1/statuses/${id}/unfavourite`).expect(200)
    await bob.post(`/api/v1/statuses/${id}/unreblog`).expect(200)
    await carol.delete(`/api/v1/statuses/${reply}`).expect(200)
    expect(await counters(id)).toEqual([1, 0, 1])
    expect(await mismatches()).toEqual([])
  })

  it('follow cascades and changed parents', async () => {
    const original = await post(alice, 'to be deleted')
    const reply = await post(bob, { status: 'its reply', in_reply_to_id: original })
    const answer = await post(carol, { status: 'a reply to the reply', in_reply_to_id: reply })
    await bob.post(`/api/v1/statuses/${original}/reblog`).expect(200)
    await carol.post(`/api/v1/statuses/${original}/reblog`).expect(200)
    await bob.post(`/api/v1/statuses/${original}/favourite`).expect(200)
    await carol.post(`/api/v1/statuses/${reply}/favourite`).expect(200)
    expect(await mismatches()).toEqual([])

    // A reply moved to another parent (as when a remote reply's parent arrives later).
    const other = await post(alice, 'another parent')
    await db()('statuses').where({ id: answer }).update({ in_reply_to_id: other })
    expect(await counters(reply)).toEqual([0, 0, 1])
    expect(await counters(other)).toEqual([1, 0, 0])
    await db()('statuses').where({ id: answer }).update({ visibility: 'direct' })
    expect(await counters(other)).toEqual([0, 0, 0])
    await db()('statuses').where({ id: answer }).update({ visibility: 'unlisted' })
    expect(await counters(other)).toEqual([1, 0, 0])

    // Deleting the original takes its boosts and favourites with it and unhooks its reply, which keeps its own.
    await db()('statuses').where({ id: original }).delete()
    expect(await counters(reply)).toEqual([0, 0, 1])
    expect(await db()('status_stats').where({ status_id: original })).toEqual([])

    // An account deleted with its statuses and favourites in one statement.
    await db()('accounts').where({ id: carol.id }).delete()
    expect(await counters(reply)).toEqual([0, 0, 0])
    expect(await counters(other)).toEqual([0, 0, 0])
    expect(await mismatches()).toEqual([])
  })

  it('count what one statement adds or takes away by the thousand, summed per status', async () => {
    const [one, two] = [await post(alice, 'popular'), await post(alice, 'also popular')]
    await db().raw(
      `INSERT INTO accounts (username, domain, uri)
       SELECT 'fan' || n, 'fans.example', 'https://fans.example/users/' || n FROM generate_series(1, 2000) AS n`,
    )
    const fans = () => db()('accounts').where({ domain: 'fans.example' }).select('id')
    await db().raw(
      `INSERT INTO favourites (account_id, status_id) SELECT id, ? FROM (${fans().toQuery()}) f`,
      [one],
    )
    await db().raw(
      `INSERT INTO favourites (account_id, status_id) SELECT id, ? FROM (${fans().limit(500).toQuery()}) f`,
      [two],
    )
    await db().raw(
      `INSERT INTO statuses (account_id, reblog_of_id, text, visibility, uri)
       SELECT id, ?, '', 'public', 'https://fans.example/boosts/' || id FROM (${fans().limit(300).toQuery()}) f`,
      [two],
    )
    expect(await counters(one)).toEqual([0, 0, 2000])
    expect(await counters(two)).toEqual([0, 300, 500])
    await db()('favourites').where({ status_id: one }).whereIn('account_id', fans().limit(1500)).delete()
    await db()('statuses').where({ reblog_of_id: two }).whereIn('account_id', fans().limit(100)).delete()
    expect(await counters(one)).toEqual([0, 0, 500])
    expect(await counters(two)).toEqual([0, 200, 500])
    expect(await mismatches()).toEqual([])
    // The status deleted takes its 500 favourites and its row with it, in one statement each.
    await db()('statuses').where({ id: one }).delete()
    expect(await db()('status_stats').where({ status_id: one })).toEqual([])
  })

  it('are what counting every row from scratch gives (the migration counts what exists so)', async () => {
    const kept = await db()('status_stats').orderBy('status_id')
    expect(kept.length).toBeGreaterThan(0)
    await db().transaction(async (trx) => {
      await trx('status_stats').delete()
      await trx.raw(COUNT_STATUS_STATS)
      const counted = await trx('status_stats').orderBy('status_id')
      // Rows the triggers keep at zero stay; counting from scratch makes none for them.
      expect(counted).toEqual(
        kept.filter(
          (r) => Number(r.replies_count) + Number(r.reblogs_count) + Number(r.favourites_count) > 0,
        ),
      )
    })
  })
})
