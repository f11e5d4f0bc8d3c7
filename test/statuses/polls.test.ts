import { startStack } from '../stack'
import type { Stack } from '../stack'
import { signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

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

const createPoll = async (user: TestUser, poll: object, extra: object = {}) =>
  (await user.post('/api/v1/statuses', { status: 'Which?', poll, ...extra }).expect(200)).body
const votes = (user: TestUser, pollId: string, choices: unknown) =>
  user.post(`/api/v1/polls/${pollId}/votes`, { choices })
const endPoll = (pollId: string) =>
  stack.accounts.ctx
    .db('polls')
    .where({ id: pollId })
    .update({ expires_at: new Date(Date.now() - 1000) })

describe('polls on POST /api/v1/statuses', () => {
  it('adds the poll to the status (JSON and form encodings)', async () => {
    const before = Date.now()
    const status = await createPoll(alice, { options: [' Tea ', 'Coffee', ''], expires_in: 3600 })
    expect(status.poll).toEqual({
      id: expect.stringMatching(/^\d+$/),
      expires_at: expect.any(String),
      expired: false,
      multiple: false,
      votes_count: 0,
      voters_count: 0,
      options: [
        { title: 'Tea', votes_count: 0 },
        { title: 'Coffee', votes_count: 0 },
      ],
      emojis: [],
      voted: true,
      own_votes: [],
    })
    const expires = Date.parse(status.poll.expires_at)
    expect(expires).toBeGreaterThanOrEqual(before + 3_599_000)
    expect(expires).toBeLessThanOrEqual(Date.now() + 3_601_000)

    const form = await stack
      .api()
      .post('/api/v1/statuses')
      .set('Authorization', `Bearer ${bob.token}`)
      .type('form')
      .send('status=form+poll&poll[options][]=a&poll[options][]=b&poll[options][]=c&poll[expires_in]=300')
      .send('poll[multiple]=true&poll[hide_totals]=1')
      .expect(200)
    expect(form.body.poll).toMatchObject({
      multiple: true,
      options: [
        { title: 'a', votes_count: null },
        { title: 'b', votes_count: null },
        { title: 'c', votes_count: null },
      ],
    })
  })

  it.each([
    [{ options: ['only'], expires_in: 300 }, 'Validation failed: Poll options must have more than one item'],
    [
      { options: ['a', 'b', 'c', 'd', 'e'], expires_in: 300 },
      "Validation failed: Poll options can't contain more than 4 items",
    ],
    [
      { options: ['a', 'x'.repeat(51)], expires_in: 300 },
      'Validation failed: Poll options cannot be longer than 50 characters each',
    ],
    [{ options: ['a', 'a'], expires_in: 300 }, 'Validation failed: Poll options contain duplicate items'],
    [{ options: ['a', 'b'] }, "Validation failed: Poll expires at can't be blank"],
    [{ options: ['a', 'b'], expires_in: 299 }, 'Validation failed: Poll expires at is too soon'],
    [
      { options: ['a', 'b'], expires_in: 2_629_747 },
      'Validation failed: Poll expires at is too far into the future',
    ],
    [
      { options: ['a'], expires_in: 1 },
      'Validation failed: Poll options must have more than one item, Poll expires at is too soon',
    ],
  ])('refuses %j with 422', async (poll, error) => {
    const res = await alice.post('/api/v1/statuses', { status: 'bad poll', poll }).expect(422)
    expect(res.body).toEqual({ error })
  })

  it('counts an option of 50 emoji as 50 characters, and refuses a malformed poll with 400', async () => {
    await createPoll(alice, { options: ['👍🏽'.repeat(50), 'no'], expires_in: 300 })
    const res = await alice.post('/api/v1/statuses', { status: 'x', poll: 'yes' }).expect(400)
    expect(res.body.error).toMatch(/poll/)
    await alice
      .post('/api/v1/statuses', { status: 'x', poll: { options: ['a', 'b'], expires_in: 'soon' } })
      .expect(400)
  })
})

describe('GET /api/v1/polls/:id and POST /api/v1/polls/:id/votes', () => {
  it('records a vote, counts it, and refuses a second one', async () => {
    const { poll } = await createPoll(alice, { options: ['yes', 'no'], expires_in: 600 })
    const voted = await votes(bob, poll.id, ['1']).expect(200)
    expect(voted.body).toMatchObject({
      votes_count: 1,
      voters_count: 1,
      voted: true,
      own_votes: [1],
      options: [
        { title: 'yes', votes_count: 0 },
        { title: 'no', votes_count: 1 },
      ],
    })
    const again = await votes(bob, poll.id, ['0']).expect(422)
    expect(again.body).toEqual({ error: 'Validation failed: You have already voted on this poll' })

    const anonymous = await stack.api().get(`/api/v1/polls/${poll.id}`).expect(200)
    expect(anonymous.body).not.toHaveProperty('voted')
    expect(anonymous.body.votes_count).toBe(1)
    const asCarol = await carol.get(`/api/v1/polls/${poll.id}`).expect(200)
    expect(asCarol.body).toMatchObject({ voted: false, own_votes: [] })
  })

  it('lets a multiple-choice poll take several options once each, and hides totals until it ends', async () => {
    const { id: statusId, poll } = await createPoll(alice, {
      options: ['a', 'b', 'c'],
      expires_in: 600,
      multiple: true,
      hide_totals: true,
    })
    const res = await votes(bob, poll.id, ['0', '2']).expect(200)
    expect(res.body).toMatchObject({ votes_count: 2, voters_count: 1, own_votes: [0, 2] })
    expect(res.body.options.map((o: { votes_count: number | null }) => o.votes_count)).toEqual([
      null,
      null,
      null,
    ])
    await votes(carol, poll.id, ['1']).expect(200)
    const twice = await votes(bob, poll.id, ['2']).expect(422)
    expect(twice.body.error).toBe('Validation failed: You have already voted on this poll')
    await votes(carol, poll.id, ['0', '0']).expect(422)

    await endPoll(poll.id)
    const ended = (await bob.get(`/api/v1/statuses/${statusId}`).expect(200)).body.poll
    expect(ended).toMatchObject({ expired: true, votes_count: 3, voters_count: 2 })
    expect(ended.options.map((o: { votes_count: number }) => o.votes_count)).toEqual([1, 1, 1])
  })

  it('answers Mastodon’s errors: own poll, unknown option, ended poll, missing choices, blocks, invisible', async () => {
    const { poll } = await createPoll(alice, { options: ['a', 'b'], expires_in: 600 })
    expect((await votes(alice, poll.id, ['0']).expect(422)).body).toEqual({
      error: 'Validation failed: You cannot vote in your own polls',
    })
    for (const choice of ['2', '-1', 'first'])
      expect((await votes(bob, poll.id, [choice]).expect(422)).body).toEqual({
        error: 'Validation failed: The chosen vote option does not exist',
      })
    expect((await votes(bob, poll.id, []).expect(400)).body).toEqual({
      error: 'param is missing or the value is empty or invalid: choices',
    })
    await bob.post(`/api/v1/polls/${poll.id}/votes`).expect(400)

    await carol.post(`/api/v1/accounts/${alice.id}/block`).expect(200)
    expect((await votes(carol, poll.id, ['0']).expect(403)).body).toEqual({
      error: 'This action is not allowed',
    })
    await carol.post(`/api/v1/accounts/${alice.id}/unblock`).expect(200)

    await endPoll(poll.id)
    expect((await votes(bob, poll.id, ['0']).expect(422)).body).toEqual({
      error: 'Validation failed: The poll has already ended',
    })

    const secret = await createPoll(
      alice,
      { options: ['a', 'b'], expires_in: 600 },
      { visibility: 'private' },
    )
    for (const res of [
      await bob.get(`/api/v1/polls/${secret.poll.id}`),
      await votes(bob, secret.poll.id, ['0']),
      await bob.get('/api/v1/polls/12345'),
    ]) {
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: 'Not Found' })
    }
    const app = await stack.appToken('read write')
    await stack.api().post(`/api/v1/polls/${poll.id}/votes`).set('Authorization', `Bearer ${app}`).expect(422)
  })

  it('takes one vote from identical requests sent at once', async () => {
    const { poll } = await createPoll(alice, { options: ['a', 'b'], expires_in: 600 })
    const answers = await Promise.all(Array.from({ length: 5 }, () => votes(carol, poll.id, ['0'])))
    expect(answers.map((r) => r.status).sort()).toEqual([200, 422, 422, 422, 422])
    expect((await carol.get(`/api/v1/polls/${poll.id}`).expect(200)).body).toMatchObject({
      votes_count: 1,
      voters_count: 1,
    })
  })
})

describe('polls in edits', () => {
  const put = (user: TestUser, id: string, body: object) =>
    stack.api().put(`/api/v1/statuses/${id}`).set('Authorization', `Bearer ${user.token}`).send(body)

  it('keeps the votes when the options stay, resets them when they change, and removes a poll left out', async () => {
    const status = await createPoll(alice, { options: ['a', 'b'], expires_in: 600 })
    await votes(bob, status.poll.id, ['0']).expect(200)

    const same = await put(alice, status.id, {
      status: 'Which, really?',
      poll: { options: ['a', 'b'], expires_in: 900 },
    }).expect(200)
    expect(same.body.poll).toMatchObject({ id: status.poll.id, votes_count: 1 })
    expect(Date.parse(same.body.poll.expires_at)).toBeGreaterThan(Date.parse(status.poll.expires_at))

    const changed = await put(alice, status.id, {
      status: 'Which?',
      poll: { options: ['a', 'c'], expires_in: 900 },
    }).expect(200)
    expect(changed.body.poll).toMatchObject({ id: status.poll.id, votes_count: 0, voters_count: 0 })
    expect((await bob.get(`/api/v1/polls/${status.poll.id}`).expect(200)).body.voted).toBe(false)

    const bad = await put(alice, status.id, {
      status: 'Which?',
      poll: { options: ['a'], expires_in: 900 },
    }).expect(422)
    expect(bad.body.error).toBe('Validation failed: Poll options must have more than one item')

    const removed = await put(alice, status.id, { status: 'No poll now' }).expect(200)
    expect(removed.body.poll).toBeNull()
    await bob.get(`/api/v1/polls/${status.poll.id}`).expect(404)

    const history = (await alice.get(`/api/v1/statuses/${status.id}/history`).expect(200)).body
    expect(
      history.map((v: { poll?: { options: { title: string }[] } }) => v.poll?.options.map((o) => o.title)),
    ).toEqual([['a', 'b'], ['a', 'b'], ['a', 'c'], undefined])
  })

  it('adds a poll to a status that had none', async () => {
    const id = (await alice.post('/api/v1/statuses', { status: 'plain' }).expect(200)).body.id
    const res = await put(alice, id, {
      status: 'plain',
      poll: { options: ['x', 'y'], expires_in: 300 },
    }).expect(200)
    expect(res.body.poll.options.map((o: { title: string }) => o.title)).toEqual(['x', 'y'])
  })
})
