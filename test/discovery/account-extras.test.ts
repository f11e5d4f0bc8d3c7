import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
})
afterAll(() => stack.stop())

const ids = (accounts: { id: string }[]) => accounts.map((a) => a.id)

describe('account notes', () => {
  it('keeps a private note shown in the Relationship; a blank comment removes it', async () => {
    const res = await alice
      .post(`/api/v1/accounts/${bob.id}/note`, { comment: 'met at the conference' })
      .expect(200)
    expect(res.body).toMatchObject({ id: bob.id, note: 'met at the conference' })
    const seen = await alice.get(`/api/v1/accounts/relationships?id[]=${bob.id}`).expect(200)
    expect(seen.body[0].note).toBe('met at the conference')
    // Private: bob's view of alice has no note.
    expect((await bob.get(`/api/v1/accounts/relationships?id[]=${alice.id}`).expect(200)).body[0].note).toBe(
      '',
    )
    await alice.post(`/api/v1/accounts/${bob.id}/note`, { comment: 'changed' }).expect(200)
    expect((await alice.post(`/api/v1/accounts/${bob.id}/note`, { comment: '' }).expect(200)).body.note).toBe(
      '',
    )
    const long = await alice
      .post(`/api/v1/accounts/${bob.id}/note`, { comment: 'x'.repeat(2001) })
      .expect(422)
    expect(long.body).toEqual({
      error: 'Validation failed: comment is too long (maximum is 2000 characters)',
    })
    await alice
      .post('/api/v1/accounts/999999/note', { comment: 'x' })
      .expect(404, { error: 'Record not found' })
  })
})

describe('endorsements', () => {
  it('endorses followed accounts only, lists them, and drops an endorsement with the follow', async () => {
    const refused = await alice.post(`/api/v1/accounts/${carol.id}/pin`).expect(422)
    expect(refused.body).toEqual({
      error: 'Validation failed: You must be already following the person you want to endorse',
    })
    await alice.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
    await alice.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
    expect((await alice.post(`/api/v1/accounts/${bob.id}/pin`).expect(200)).body).toMatchObject({
      id: bob.id,
      endorsed: true,
    })
    await alice.post(`/api/v1/accounts/${bob.id}/pin`).expect(200)
    await alice.post(`/api/v1/accounts/${carol.id}/endorse`).expect(200)

    const mine = await alice.get('/api/v1/endorsements?limit=1').expect(200)
    expect(ids(mine.body)).toEqual([carol.id])
    const next = links(mine.headers.link).next!
    expect(ids((await alice.get(onStack(stack, next)).expect(200)).body)).toEqual([bob.id])
    // Public: anyone, even without a token, sees them.
    expect(
      ids((await stack.api().get(`/api/v1/accounts/${alice.id}/endorsements`).expect(200)).body),
    ).toEqual([carol.id, bob.id])

    await alice.post(`/api/v1/accounts/${carol.id}/unendorse`).expect(200)
    await alice.post(`/api/v1/accounts/${bob.id}/unfollow`).expect(200)
    expect(
      (await alice.get(`/api/v1/accounts/relationships?id[]=${bob.id}`).expect(200)).body[0].endorsed,
    ).toBe(false)
    expect((await alice.get('/api/v1/endorsements').expect(200)).body).toEqual([])
  })

  it('hides endorsements of an account hiding its collections, except from its owner', async () => {
    const dave = await signUp(stack, { username: 'dave' })
    await dave.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
    await dave.post(`/api/v1/accounts/${alice.id}/pin`).expect(200)
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${dave.token}`)
      .send({ hide_collections: true })
      .expect(200)
    expect((await bob.get(`/api/v1/accounts/${dave.id}/endorsements`).expect(200)).body).toEqual([])
    expect(ids((await dave.get(`/api/v1/accounts/${dave.id}/endorsements`).expect(200)).body)).toEqual([
      alice.id,
    ])
  })
})

describe('familiar followers', () => {
  it('names, for each account, the followed accounts that follow it', async () => {
    const erin = await signUp(stack, { username: 'erin' })
    const frank = await signUp(stack, { username: 'frank' })
    const hidden = await signUp(stack, { username: 'hidden' })
    for (const u of [bob, carol, hidden]) await erin.post(`/api/v1/accounts/${u.id}/follow`).expect(200)
    for (const u of [bob, carol, hidden]) await u.post(`/api/v1/accounts/${frank.id}/follow`).expect(200)
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${hidden.token}`)
      .send({ hide_collections: true })
      .expect(200)
    const res = await erin
      .get(`/api/v1/accounts/familiar_followers?id[]=${frank.id}&id[]=${alice.id}&id[]=${frank.id}`)
      .expect(200)
    expect(res.body).toEqual([
      { id: frank.id, accounts: expect.any(Array) },
      { id: alice.id, accounts: [] },
    ])
    expect(ids(res.body[0].accounts).sort()).toEqual([bob.id, carol.id].sort())
    expect(res.body[0].accounts[0]).toMatchObject({ username: expect.any(String), acct: expect.any(String) })
    expect((await erin.get('/api/v1/accounts/familiar_followers').expect(200)).body).toEqual([])
  })
})

describe('domain blocks', () => {
  it('adds, lists (paged), and removes a user’s blocked domains, normalised', async () => {
    const gina = await signUp(stack, { username: 'gina' })
    expect((await gina.get('/api/v1/domain_blocks').expect(200)).body).toEqual([])
    for (const domain of ['Spam.Example', 'spam.example', 'https://other.example/path', 'bücher.example'])
      expect((await gina.post('/api/v1/domain_blocks', { domain }).expect(200)).body).toEqual({})
    const first = await gina.get('/api/v1/domain_blocks?limit=2').expect(200)
    expect(first.body).toEqual(['xn--bcher-kva.example', 'other.example'])
    const { next, prev } = links(first.headers.link)
    expect(prev).toMatch(/since_id=/)
    expect((await gina.get(onStack(stack, next!)).expect(200)).body).toEqual(['spam.example'])

    for (const domain of ['', 'not a domain', '-bad-.example']) {
      const res = await gina.post('/api/v1/domain_blocks', { domain }).expect(422)
      expect(res.body.error).toMatch(/^Validation failed: Domain /)
    }
    expect(
      (
        await stack
          .api()
          .delete('/api/v1/domain_blocks')
          .set('Authorization', `Bearer ${gina.token}`)
          .send({ domain: 'SPAM.example' })
          .expect(200)
      ).body,
    ).toEqual({})
    await gina.delete('/api/v1/domain_blocks?domain=never.example').expect(200)
    expect((await gina.get('/api/v1/domain_blocks').expect(200)).body).toEqual([
      'xn--bcher-kva.example',
      'other.example',
    ])
    // Local accounts have no domain.
    expect(
      (await gina.get(`/api/v1/accounts/relationships?id[]=${bob.id}`).expect(200)).body[0].domain_blocking,
    ).toBe(false)
  })

  it('needs the blocks scopes', async () => {
    const reader = await signUp(stack, { scope: 'read:accounts write:accounts' })
    await reader.get('/api/v1/domain_blocks').expect(403)
    await reader.post('/api/v1/domain_blocks', { domain: 'x.example' }).expect(403)
    const follower = await signUp(stack, { scope: 'follow' })
    await follower.get('/api/v1/domain_blocks').expect(200)
  })
})
