import { Queue } from 'bullmq'
import { bullPrefix, createRedis, QUEUES } from '@roost/events'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { eventually, links, onStack, PNG, signUp } from '../accounts/social/helpers'
import type { TestUser } from '../accounts/social/helpers'

// scheduled_at must be 10 s ahead here instead of Mastodon's 5 minutes, so publications happen within the test.
const OFFSET_S = 10
let stack: Stack
let alice: TestUser
let bob: TestUser
let redis: ReturnType<typeof createRedis>
let timers: Queue
beforeAll(async () => {
  stack = await startStack({ env: { SCHEDULED_STATUS_MIN_OFFSET_SECONDS: String(OFFSET_S) } })
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  redis = createRedis(stack.env.REDIS_URL!, { forWorker: true })
  timers = new Queue(QUEUES.timers, { connection: redis, prefix: bullPrefix(stack.env.REDIS_PREFIX!) })
})
afterAll(async () => {
  await timers.close()
  await redis.quit()
  await stack.stop()
})

const inSeconds = (s: number) => new Date(Date.now() + s * 1000).toISOString()
const put = (user: TestUser, id: string, body: object) =>
  stack.api().put(`/api/v1/scheduled_statuses/${id}`).set('Authorization', `Bearer ${user.token}`).send(body)
const statusesOf = async (user: TestUser) =>
  (await user.get(`/api/v1/accounts/${user.id}/statuses`).expect(200)).body as {
    id: string
    content: string
    visibility: string
    media_attachments: { id: string }[]
    poll: { options: { title: string }[] } | null
    application: { name: string } | null
    in_reply_to_id: string | null
  }[]
const upload = async (user: TestUser) =>
  (await user.post('/api/v1/media').attach('file', PNG, 'x.png').field('description', 'alt').expect(200)).body
    .id as string

describe('POST /api/v1/statuses with scheduled_at', () => {
  it('answers a ScheduledStatus, holds its upload, and publishes it once at its time', async () => {
    const media = await upload(alice)
    const parent = (await bob.post('/api/v1/statuses', { status: 'parent' }).expect(200)).body.id
    const at = inSeconds(OFFSET_S + 6)
    const res = await alice
      .post('/api/v1/statuses', {
        status: 'later, @bob',
        scheduled_at: at,
        media_ids: [media],
        in_reply_to_id: parent,
        poll: { options: ['a', 'b'], expires_in: 600 },
      })
      .expect(200)
    expect(res.body).toEqual({
      id: expect.stringMatching(/^\d+$/),
      scheduled_at: new Date(at).toISOString(),
      params: {
        text: 'later, @bob',
        spoiler_text: null,
        sensitive: null,
        visibility: null,
        language: null,
        in_reply_to_id: parent,
        media_ids: [media],
        poll: { options: ['a', 'b'], expires_in: 600, multiple: false, hide_totals: false },
        application_id: expect.stringMatching(/^\d+$/),
        quoted_status_id: null,
        quote_approval_policy: null,
        scheduled_at: null,
        idempotency: null,
        with_rate_limit: false,
      },
      media_attachments: [expect.objectContaining({ id: media, type: 'image', description: 'alt' })],
    })
    const id = res.body.id as string
    // Not posted yet; listed and shown as scheduled; its upload cannot go on another status meanwhile.
    expect((await statusesOf(alice)).some((s) => s.content.includes('later'))).toBe(false)
    expect(
      (await alice.get('/api/v1/scheduled_statuses').expect(200)).body.map((s: { id: string }) => s.id),
    ).toEqual([id])
    expect((await alice.get(`/api/v1/scheduled_statuses/${id}`).expect(200)).body).toEqual(res.body)
    const taken = await alice.post('/api/v1/statuses', { status: 'x', media_ids: [media] }).expect(422)
    expect(taken.body).toEqual({ error: `Validation failed: Media ${media} not found` })

    const [published] = await eventually(async () => {
      const found = (await statusesOf(alice)).filter((s) => s.content.includes('later'))
      return found.length ? found : undefined
    }, 60_000)
    await stack.drain()
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(at))
    expect(published).toMatchObject({
      visibility: 'public',
      in_reply_to_id: parent,
      media_attachments: [{ id: media }],
      poll: { options: [{ title: 'a' }, { title: 'b' }] },
      application: { name: 'Roost tests' },
    })
    expect((await statusesOf(alice)).filter((s) => s.content.includes('later'))).toHaveLength(1)
    await alice.get(`/api/v1/scheduled_statuses/${id}`).expect(404)
    expect((await alice.get('/api/v1/scheduled_statuses').expect(200)).body).toEqual([])
    // Published like any status: the mention is notified, by the activities pipeline.
    const mentions = (await bob.get('/api/v1/notifications?types[]=mention').expect(200)).body
    expect(mentions.map((n: { status: { id: string } }) => n.status.id)).toContain(published!.id)
  })

  it('posts at once when scheduled_at is in the past, as Mastodon', async () => {
    const res = await alice
      .post('/api/v1/statuses', { status: 'already due', scheduled_at: inSeconds(-60) })
      .expect(200)
    expect(res.body).toMatchObject({ content: '<p>already due</p>', visibility: 'public' })
  })

  it('refuses a time too soon, a date it cannot read, and a status that could not be posted', async () => {
    const soon = await alice
      .post('/api/v1/statuses', { status: 'soon', scheduled_at: inSeconds(OFFSET_S / 2) })
      .expect(422)
    expect(soon.body).toEqual({ error: 'Validation failed: Scheduled at date must be in the future' })
    for (const bad of ['tomorrow', '2026-02-30T10:00:00Z', '2026-13-01'])
      expect(
        (await alice.post('/api/v1/statuses', { status: 'x', scheduled_at: bad }).expect(422)).body,
      ).toEqual({ error: 'Record invalid' })
    const later = inSeconds(3600)
    expect(
      (await alice.post('/api/v1/statuses', { status: ' ', scheduled_at: later }).expect(422)).body,
    ).toEqual({
      error: 'Record invalid',
    })
    const badPoll = await alice
      .post('/api/v1/statuses', {
        status: 'p',
        scheduled_at: later,
        poll: { options: ['only'], expires_in: 600 },
      })
      .expect(422)
    expect(badPoll.body).toEqual({ error: 'Record invalid' })
    const orphan = await alice
      .post('/api/v1/statuses', { status: 'r', scheduled_at: later, in_reply_to_id: '123' })
      .expect(404)
    expect(orphan.body).toEqual({ error: 'The post you are trying to reply to does not appear to exist.' })
    // Time zones are read: 10:00 at +02:00 is 08:00 UTC.
    const zoned = await alice
      .post('/api/v1/statuses', { status: 'zoned', scheduled_at: '2099-06-01T10:00:00+02:00' })
      .expect(200)
    expect(zoned.body.scheduled_at).toBe('2099-06-01T08:00:00.000Z')
    await alice.delete(`/api/v1/scheduled_statuses/${zoned.body.id}`).expect(200)
    expect((await alice.get('/api/v1/scheduled_statuses').expect(200)).body).toEqual([])
  })

  it('holds Mastodon’s limits: 25 scheduled statuses a day, 300 in all', async () => {
    const carol = await signUp(stack)
    const db = stack.accounts.ctx.db
    const day = '2099-03-04'
    const row = (at: string) => ({
      account_id: carol.id,
      scheduled_at: at,
      params: JSON.stringify({ text: 'x' }),
    })
    await db('scheduled_statuses').insert(
      Array.from({ length: 25 }, (_, i) => row(`${day}T0${i % 10}:00:00Z`)),
    )
    const daily = await carol
      .post('/api/v1/statuses', { status: 'one more', scheduled_at: `${day}T23:00:00Z` })
      .expect(422)
    expect(daily.body).toEqual({
      error: 'Validation failed: You have exceeded the limit of 25 scheduled posts for today',
    })
    const nextDay = await carol
      .post('/api/v1/statuses', { status: 'the day after', scheduled_at: '2099-03-05T00:00:00Z' })
      .expect(200)
    // Moving one within its own day is not counted against itself.
    const own = (await db('scheduled_statuses').where({ account_id: carol.id }).orderBy('id').first()).id
    await put(carol, own, { scheduled_at: `${day}T12:00:00Z` }).expect(200)
    await put(carol, nextDay.body.id, { scheduled_at: `${day}T12:00:00Z` }).expect(422)

    await db('scheduled_statuses').insert(
      Array.from({ length: 274 }, (_, i) => row(`2099-04-${10 + (i % 10)}T00:00:00Z`)),
    )
    const total = await carol
      .post('/api/v1/statuses', { status: 'too many', scheduled_at: '2099-05-01T00:00:00Z' })
      .expect(422)
    expect(total.body).toEqual({
      error: 'Validation failed: You have exceeded the limit of 300 scheduled posts',
    })
  })

  it('answers the same scheduled status to a repeated Idempotency-Key', async () => {
    const send = () =>
      stack
        .api()
        .post('/api/v1/statuses')
        .set('Authorization', `Bearer ${bob.token}`)
        .set('Idempotency-Key', 'schedule-once')
        .send({ status: 'once', scheduled_at: inSeconds(3600) })
        .expect(200)
    const [a, b] = await Promise.all([send(), send()])
    expect(b.body).toEqual(a.body)
    expect((await bob.get('/api/v1/scheduled_statuses').expect(200)).body).toHaveLength(1)
    await bob.delete(`/api/v1/scheduled_statuses/${a.body.id}`).expect(200)
  })

  it('keeps a quote and its policy, as Mastodon 4.5, and posts the quote at its time; an unquotable post is 404', async () => {
    const dora = await signUp(stack, { username: 'dora' })
    const quoted = (await bob.post('/api/v1/statuses', { status: 'quote me later' }).expect(200)).body.id
    const closed = (
      await bob.post('/api/v1/statuses', { status: 'not me', quote_approval_policy: 'nobody' }).expect(200)
    ).body.id
    const refused = await dora
      .post('/api/v1/statuses', { status: 'x', scheduled_at: inSeconds(3600), quoted_status_id: closed })
      .expect(404)
    expect(refused.body).toEqual({ error: 'The post you are trying to quote does not appear to exist.' })
    const res = await dora
      .post('/api/v1/statuses', {
        status: 'quoting, later',
        scheduled_at: inSeconds(3600),
        quoted_status_id: quoted,
        quote_approval_policy: 'followers',
      })
      .expect(200)
    expect(res.body.params).toMatchObject({ quoted_status_id: quoted, quote_approval_policy: 'followers' })
    // Due now: the sweep publishes it (as when its timer fires).
    await stack.accounts.ctx
      .db('scheduled_statuses')
      .where({ id: res.body.id })
      .update({ scheduled_at: new Date(Date.now() - 60_000) })
    await stack.accountsWorker!.sweep()
    const [published] = await eventually(async () => {
      const found = (await statusesOf(dora)).filter((s) => s.content.includes('quoting, later'))
      return found.length ? found : undefined
    }, 60_000)
    const shown = (await dora.get(`/api/v1/statuses/${published!.id}`).expect(200)).body
    expect(shown.quote).toMatchObject({ state: 'accepted', quoted_status: { id: quoted } })
    expect(shown.quote_approval).toMatchObject({ automatic: ['followers'] })
  })
})

describe('/api/v1/scheduled_statuses', () => {
  it('lists newest first with Link headers, shows, moves and deletes; others’ are 404', async () => {
    const dave = await signUp(stack)
    const ids: string[] = []
    for (let i = 0; i < 3; i++)
      ids.push(
        (
          await dave
            .post('/api/v1/statuses', { status: `s${i}`, scheduled_at: inSeconds(3600 + i) })
            .expect(200)
        ).body.id,
      )
    const first = await dave.get('/api/v1/scheduled_statuses?limit=2').expect(200)
    expect(first.body.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]])
    const link = links(first.headers.link)
    expect(link.next).toBe(`${stack.url}/api/v1/scheduled_statuses?limit=2&max_id=${ids[1]}`)
    expect(link.prev).toBe(`${stack.url}/api/v1/scheduled_statuses?limit=2&min_id=${ids[2]}`)
    const second = await dave.get(onStack(stack, link.next!)).expect(200)
    expect(second.body.map((s: { id: string }) => s.id)).toEqual([ids[0]])
    expect(links(second.headers.link).next).toBeUndefined()

    const moved = await put(dave, ids[0]!, { scheduled_at: '2099-01-01T00:00:00.000Z' }).expect(200)
    expect(moved.body).toMatchObject({ id: ids[0], scheduled_at: '2099-01-01T00:00:00.000Z' })
    expect((await put(dave, ids[0]!, { scheduled_at: inSeconds(1) }).expect(422)).body).toEqual({
      error: 'Validation failed: Scheduled at date must be in the future',
    })
    expect((await put(dave, ids[0]!, { scheduled_at: 'soon' }).expect(422)).body).toEqual({
      error: 'Record invalid',
    })
    expect((await put(dave, ids[0]!, {}).expect(200)).body.scheduled_at).toBe('2099-01-01T00:00:00.000Z')

    for (const path of [`/api/v1/scheduled_statuses/${ids[0]}`, '/api/v1/scheduled_statuses/nope'])
      expect((await alice.get(path).expect(404)).body).toEqual({ error: 'Record not found' })
    await put(alice, ids[0]!, { scheduled_at: inSeconds(7200) }).expect(404)
    await alice.delete(`/api/v1/scheduled_statuses/${ids[0]}`).expect(404)

    expect((await dave.delete(`/api/v1/scheduled_statuses/${ids[0]}`).expect(200)).body).toEqual({})
    await dave.get(`/api/v1/scheduled_statuses/${ids[0]}`).expect(404)

    const readOnly = await signUp(stack, { scope: 'read' })
    await readOnly.get('/api/v1/scheduled_statuses').expect(200)
    await readOnly.delete(`/api/v1/scheduled_statuses/${ids[1]}`).expect(403)
    await stack.api().get('/api/v1/scheduled_statuses').expect(401)
  })

  it('gives a deleted scheduled status’s upload back', async () => {
    const media = await upload(alice)
    const scheduled = (
      await alice
        .post('/api/v1/statuses', { status: 'img', media_ids: [media], scheduled_at: inSeconds(3600) })
        .expect(200)
    ).body
    await alice.delete(`/api/v1/scheduled_statuses/${scheduled.id}`).expect(200)
    const posted = await alice.post('/api/v1/statuses', { status: 'img now', media_ids: [media] }).expect(200)
    expect(posted.body.media_attachments.map((m: { id: string }) => m.id)).toEqual([media])
  })

  it('publishes what the sweep finds overdue when Redis lost its timer, and drops it for a disabled author', async () => {
    const id = (
      await bob.post('/api/v1/statuses', { status: 'lost timer', scheduled_at: inSeconds(3600) }).expect(200)
    ).body.id
    await stack.drain()
    const job = (await timers.getDelayed()).find((j) => j.data.scheduledStatusId === id)
    expect(job).toBeDefined()
    await job!.remove()
    const db = stack.accounts.ctx.db
    await db('scheduled_statuses')
      .where({ id })
      .update({ scheduled_at: new Date(Date.now() - 120_000) })
    await stack.accountsWorker!.sweep()
    await eventually(async () => (await statusesOf(bob)).some((s) => s.content === '<p>lost timer</p>'))
    await bob.get(`/api/v1/scheduled_statuses/${id}`).expect(404)

    const erin = await signUp(stack)
    const dropped = (
      await erin.post('/api/v1/statuses', { status: 'never', scheduled_at: inSeconds(3600) }).expect(200)
    ).body.id
    await db('users').where({ account_id: erin.id }).update({ disabled: true })
    await db('scheduled_statuses')
      .where({ id: dropped })
      .update({ scheduled_at: new Date(Date.now() - 120_000) })
    await stack.accountsWorker!.sweep()
    await eventually(async () => !(await db('scheduled_statuses').where({ id: dropped }).first()))
    expect(await db('statuses').where({ account_id: erin.id })).toEqual([])
  })
})
