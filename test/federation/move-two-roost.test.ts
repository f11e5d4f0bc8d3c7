import type { mastodon } from 'masto'
import { createRestAPIClient } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'
import { FEDERATED, domainOf, eventually } from './two-roost'

/**
 * A local account moving to another Roost server (docs/federation.md, "Moved accounts"): alice on A moves to
 * alice2 on B. alice2 first names alice as an alias (`POST /api/v1/accounts/aliases`, served as `alsoKnownAs`),
 * then alice moves (`POST /api/v1/accounts/move`): A sends a Move, and B, as Mastodon's MoveWorker, moves alice's
 * followers there (bob) to alice2 and marks alice as moved; carol, alice's follower on A itself, moves too. alice
 * stays readable and is refused new posts with Mastodon's 403.
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

async function follows(reader: mastodon.rest.Client, acct: string) {
  const found = await reader.v2.search.list({ q: `@${acct}`, resolve: true, type: 'accounts' })
  expect(found.accounts).toHaveLength(1)
  const id = found.accounts[0]!.id
  await reader.v1.accounts.$select(id).follow()
  await eventually(async () => {
    const [r] = await reader.v1.accounts.relationships.fetch({ id: [id] })
    return r?.following || undefined
  })
  return id
}

describe('moving an account from one Roost server to another', () => {
  let aliceUser: TestUser
  let alice2User: TestUser
  let bob: mastodon.rest.Client
  let carol: mastodon.rest.Client
  let aliceOnB: string
  let aliceOnA: string

  beforeAll(async () => {
    aliceUser = await signUp(a, { username: 'alice', scope: 'read write follow' })
    alice2User = await signUp(b, { username: 'alice2', scope: 'read write follow' })
    bob = masto(b, await signUp(b, { username: 'bob', scope: 'read write follow' }))
    carol = masto(a, await signUp(a, { username: 'carol', scope: 'read write follow' }))
    aliceOnB = await follows(bob, `alice@${domainOf(a)}`)
    aliceOnA = await follows(carol, 'alice')
  }, 180_000)

  it('the move is refused until the new account names the old one as an alias', async () => {
    const move = await fetch(`${a.url}/api/v1/accounts/move`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceUser.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ acct: `alice2@${domainOf(b)}`, current_password: aliceUser.password }),
    })
    expect(move.status).toBe(422)
    expect(((await move.json()) as { error: string }).error).toMatch(
      /^Validation failed: Acct must reference/,
    )
  })

  it('alice2 on B sets the alias; alice on A moves; her followers on both servers follow alice2', async () => {
    const alias = await fetch(`${b.url}/api/v1/accounts/aliases`, {
      method: 'POST',
      headers: { authorization: `Bearer ${alice2User.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ acct: `alice@${domainOf(a)}` }),
    })
    expect(alias.status).toBe(200)
    expect(await alias.json()).toEqual([{ uri: `${a.url}/users/alice` }])
    const actor = (await (
      await fetch(`${b.url}/users/alice2`, { headers: { accept: 'application/activity+json' } })
    ).json()) as { alsoKnownAs?: string[] }
    expect(actor.alsoKnownAs).toEqual([`${a.url}/users/alice`])

    const move = await fetch(`${a.url}/api/v1/accounts/move`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceUser.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ acct: `alice2@${domainOf(b)}`, current_password: aliceUser.password }),
    })
    expect(move.status).toBe(200)
    expect(await move.json()).toEqual({ moved_to: `alice2@${domainOf(b)}` })

    // B: alice is shown moved to alice2 (a local account there), and bob now follows alice2, not alice.
    const moved = await eventually(async () => {
      const acc = await bob.v1.accounts.$select(aliceOnB).fetch()
      return acc.moved ? acc : undefined
    })
    expect(moved.moved).toMatchObject({ acct: 'alice2', username: 'alice2' })
    const alice2OnB = moved.moved!.id
    await eventually(async () => {
      const [toNew, toOld] = await bob.v1.accounts.relationships.fetch({ id: [alice2OnB, aliceOnB] })
      return toNew?.following && !toOld?.following && !toOld?.requested ? true : undefined
    })
    const notes = await eventually(async () => {
      // masto.js's types list has no `move` (Mastodon's docs do): read them all.
      const list = (await bob.v1.notifications.list()).filter((n) => (n.type as string) === 'move')
      return list.length ? list : undefined
    })
    expect(notes[0]).toMatchObject({ type: 'move', account: { id: aliceOnB, moved: { id: alice2OnB } } })

    // A: carol, alice's local follower, follows alice2 on B; alice is shown moved there too.
    const onA = await carol.v1.accounts.$select(aliceOnA).fetch()
    expect(onA.moved).toMatchObject({ acct: `alice2@${domainOf(b)}` })
    const alice2OnA = onA.moved!.id
    await eventually(async () => {
      const [toNew, toOld] = await carol.v1.accounts.relationships.fetch({ id: [alice2OnA, aliceOnA] })
      return toNew?.following && !toOld?.following ? true : undefined
    })
  })

  it('the moved account stays readable and is refused new posts with 403', async () => {
    const me = await fetch(`${a.url}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${aliceUser.token}` },
    })
    expect(me.status).toBe(200)
    const post = await fetch(`${a.url}/api/v1/statuses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${aliceUser.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'still here?' }),
    })
    expect([post.status, await post.json()]).toEqual([403, { error: 'Your login is currently disabled' }])
    const actor = (await (
      await fetch(`${a.url}/users/alice`, { headers: { accept: 'application/activity+json' } })
    ).json()) as { movedTo?: string }
    expect(actor.movedTo).toBe(`${b.url}/users/alice2`)
  })
})
