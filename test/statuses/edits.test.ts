import { startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG, post, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
})
afterAll(() => stack.stop())

const put = (user: TestUser, id: string, body: object) =>
  stack.api().put(`/api/v1/statuses/${id}`).set('Authorization', `Bearer ${user.token}`).send(body)
const upload = async (user: TestUser, description: string) =>
  (
    await user
      .post('/api/v1/media')
      .attach('file', PNG, 'x.png')
      .field('description', description)
      .expect(200)
  ).body.id as string

describe('PUT /api/v1/statuses/:id', () => {
  it('edits the text, sets edited_at and keeps every version, oldest first', async () => {
    const created = (
      await alice.post('/api/v1/statuses', { status: 'first #draft', language: 'en' }).expect(200)
    ).body
    expect(created.edited_at).toBeNull()
    const once = await put(alice, created.id, { status: 'second @bob #final', spoiler_text: 'cw' }).expect(
      200,
    )
    expect(once.body).toMatchObject({
      id: created.id,
      content: expect.stringContaining('second'),
      spoiler_text: 'cw',
      sensitive: true,
      language: 'en',
      mentions: [{ username: 'bob' }],
      tags: [{ name: 'final' }],
      created_at: created.created_at,
    })
    expect(Date.parse(once.body.edited_at)).toBeGreaterThanOrEqual(Date.parse(created.created_at))
    await put(alice, created.id, { status: 'third' }).expect(200)

    const history = (await stack.api().get(`/api/v1/statuses/${created.id}/history`).expect(200)).body
    expect(history.map((v: { content: string }) => v.content)).toEqual([
      expect.stringContaining('first'),
      expect.stringContaining('second'),
      '<p>third</p>',
    ])
    expect(history.map((v: { spoiler_text: string }) => v.spoiler_text)).toEqual(['', 'cw', ''])
    expect(history.map((v: { sensitive: boolean }) => v.sensitive)).toEqual([false, true, false])
    expect(history[0]).toMatchObject({
      created_at: created.created_at,
      account: { id: alice.id },
      emojis: [],
    })
    const shown = (await bob.get(`/api/v1/statuses/${created.id}`).expect(200)).body
    expect(shown).toMatchObject({ content: '<p>third</p>', mentions: [], tags: [] })
    expect(shown.edited_at).not.toBeNull()
  })

  it('swallows an edit that changes nothing', async () => {
    const id = await post(alice, 'unchanged')
    const res = await put(alice, id, { status: 'unchanged' }).expect(200)
    expect(res.body.edited_at).toBeNull()
    const history = (await alice.get(`/api/v1/statuses/${id}/history`).expect(200)).body
    expect(history).toHaveLength(1)
    expect(history[0]).toMatchObject({ content: '<p>unchanged</p>', media_attachments: [] })
  })

  it('keeps, reorders, adds and removes attachments; the history shows each version’s own', async () => {
    const [a, b, c] = [await upload(alice, 'A'), await upload(alice, 'B'), await upload(alice, 'C')]
    const id = (await alice.post('/api/v1/statuses', { status: 'pics', media_ids: [b, a] }).expect(200)).body
      .id
    const shown = (await alice.get(`/api/v1/statuses/${id}`).expect(200)).body
    expect(shown.media_attachments.map((m: { id: string }) => m.id)).toEqual([b, a])

    const edited = await put(alice, id, {
      status: 'pics',
      media_ids: [c, b],
      media_attributes: [{ id: b, description: 'B, described better' }],
    }).expect(200)
    expect(edited.body.media_attachments).toMatchObject([
      { id: c, description: 'C' },
      { id: b, description: 'B, described better' },
    ])
    const history = (await alice.get(`/api/v1/statuses/${id}/history`).expect(200)).body
    expect(
      history.map((v: { media_attachments: { id: string; description: string }[] }) => v.media_attachments),
    ).toMatchObject([
      [
        { id: b, description: 'B' },
        { id: a, description: 'A' },
      ],
      [
        { id: c, description: 'C' },
        { id: b, description: 'B, described better' },
      ],
    ])
    // Attachments left out are removed from the status; with no text, that leaves nothing.
    const empty = await put(alice, id, { status: '' }).expect(422)
    expect(empty.body).toEqual({ error: "Validation failed: Text can't be blank" })
    const textOnly = await put(alice, id, { status: 'no pictures now' }).expect(200)
    expect(textOnly.body.media_attachments).toEqual([])
  })

  it('accepts the form encoding with media_attributes[][…], and PATCH', async () => {
    const a = await upload(alice, 'old')
    const id = (await alice.post('/api/v1/statuses', { status: 'form', media_ids: [a] }).expect(200)).body.id
    const res = await stack
      .api()
      .patch(`/api/v1/statuses/${id}`)
      .set('Authorization', `Bearer ${alice.token}`)
      .type('form')
      .send(
        `status=form+edited&media_ids[]=${a}&media_attributes[][id]=${a}&media_attributes[][description]=new`,
      )
      .expect(200)
    expect(res.body).toMatchObject({
      content: '<p>form edited</p>',
      media_attachments: [{ description: 'new' }],
    })
  })

  it('answers 404 for someone else’s status, a boost or an unknown id, and 422 for bad versions', async () => {
    const id = await post(alice, 'mine')
    expect((await put(bob, id, { status: 'hijack' }).expect(404)).body).toEqual({ error: 'Record not found' })
    const boost = (await bob.post(`/api/v1/statuses/${id}/reblog`).expect(200)).body.id
    await put(bob, boost, { status: 'edited boost' }).expect(404)
    await put(alice, '99999', { status: 'x' }).expect(404)
    await put(alice, 'abc', { status: 'x' }).expect(404)

    const long = await put(alice, id, { status: 'x'.repeat(501) }).expect(422)
    expect(long.body.error).toMatch(/character limit of 500/)
    const theirs = await upload(bob, 'not yours')
    const foreign = await put(alice, id, { status: 'x', media_ids: [theirs] }).expect(422)
    expect(foreign.body).toEqual({ error: `Validation failed: Media ${theirs} not found` })
    const five = await put(alice, id, { status: 'x', media_ids: ['1', '2', '3', '4', '5'] }).expect(422)
    expect(five.body).toEqual({ error: 'Validation failed: Cannot attach more than 4 files' })
    await put(alice, id, { status: 'x', media_ids: 'nope' }).expect(422)
    const shape = await put(alice, id, { status: 'x', media_attributes: 'nope' }).expect(400)
    expect(shape.body.error).toMatch(/media_attributes/)
    expect((await alice.get(`/api/v1/statuses/${id}`).expect(200)).body.content).toBe('<p>mine</p>')

    const readOnly = await signUp(stack, { scope: 'read' })
    await put(readOnly, id, { status: 'x' }).expect(403)
  })
})

describe('GET /api/v1/statuses/:id/history and /source', () => {
  it('gives the source text to a signed-in reader', async () => {
    const id = (
      await alice.post('/api/v1/statuses', { status: 'Hi @bob <b>', spoiler_text: 'w' }).expect(200)
    ).body.id
    const source = await bob.get(`/api/v1/statuses/${id}/source`).expect(200)
    expect(source.body).toEqual({ id, text: 'Hi @bob <b>', spoiler_text: 'w' })
    await stack.api().get(`/api/v1/statuses/${id}/source`).expect(401)
  })

  it('answers 404 Not Found for a status the reader cannot see', async () => {
    const secret = await post(alice, { status: 'private', visibility: 'private' })
    for (const what of ['history', 'source']) {
      const res = await bob.get(`/api/v1/statuses/${secret}/${what}`).expect(404)
      expect(res.body).toEqual({ error: 'Not Found' })
    }
    await alice.get(`/api/v1/statuses/${secret}/history`).expect(200)
  })
})

describe('what an edit tells others (through the accounts worker)', () => {
  const notificationsOf = async (user: TestUser, type: string) =>
    (await user.get(`/api/v1/notifications?types[]=${type}`).expect(200)).body as {
      id: string
      type: string
      account: { id: string }
      status: { id: string; content: string; edited_at: string | null }
    }[]

  it('sends an `update` to everyone who boosted it, one per booster, replaced by each later edit', async () => {
    const carol = await signUp(stack)
    const id = await post(alice, 'boost me')
    await bob.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    await carol.post(`/api/v1/statuses/${id}/reblog`).expect(200)
    await stack.drain()
    expect(await notificationsOf(bob, 'update')).toEqual([])

    await put(alice, id, { status: 'boost me, edited' }).expect(200)
    await stack.drain()
    const [first, ...none] = await notificationsOf(bob, 'update')
    expect(none).toEqual([])
    expect(first).toMatchObject({
      type: 'update',
      account: { id: alice.id },
      status: { id, content: '<p>boost me, edited</p>', edited_at: expect.any(String) },
    })
    expect(await notificationsOf(carol, 'update')).toHaveLength(1)
    // The author is not told of their own edit.
    expect(await notificationsOf(alice, 'update')).toEqual([])

    await put(alice, id, { status: 'boost me, edited twice' }).expect(200)
    await stack.drain()
    const [second, ...rest] = await notificationsOf(bob, 'update')
    expect(rest).toEqual([])
    expect(second!.id).not.toBe(first!.id)
    expect(second!.status.content).toBe('<p>boost me, edited twice</p>')

    // An edit that changes nothing is swallowed, so it tells no one.
    await put(alice, id, { status: 'boost me, edited twice' }).expect(200)
    await stack.drain()
    expect((await notificationsOf(bob, 'update')).map((n) => n.id)).toEqual([second!.id])
  })

  it('notifies an account the new version mentions for the first time, and nobody twice', async () => {
    const dave = await signUp(stack, { username: 'dave' })
    const id = await post(alice, 'hello @bob')
    await stack.drain()
    const mentions = async (user: TestUser) =>
      (await notificationsOf(user, 'mention')).filter((n) => n.status.id === id)
    expect(await mentions(bob)).toHaveLength(1)
    expect(await mentions(dave)).toHaveLength(0)

    await put(alice, id, { status: 'hello @bob and @dave' }).expect(200)
    await stack.drain()
    expect(await mentions(bob)).toHaveLength(1)
    expect(await mentions(dave)).toHaveLength(1)
  })
})
