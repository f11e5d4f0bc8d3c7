import { saveMarkers } from '../../apps/accounts/src/domain/markers'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { createdId, roost, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
})
afterAll(() => stack.stop())

describe('markers', () => {
  it('answers {} without markers, and leaves out timelines not asked for', async () => {
    const carol = await signUp(stack, { username: 'carol' })
    expect((await carol.get('/api/v1/markers?timeline[]=notifications').expect(200)).body).toEqual({})
    await carol.post('/api/v1/markers', { home: { last_read_id: '100' } }).expect(200)
    expect((await carol.get('/api/v1/markers').expect(200)).body).toEqual({})
    expect((await carol.get('/api/v1/markers?timeline[]=notifications').expect(200)).body).toEqual({})
    const home = (await carol.get('/api/v1/markers?timeline=home').expect(200)).body
    expect(home).toEqual({ home: { last_read_id: '100', version: 0, updated_at: expect.any(String) } })
  })

  it('saves both timelines, counts versions, moves backwards, and keeps the version when nothing changes', async () => {
    const first = await alice
      .post('/api/v1/markers', { home: { last_read_id: '200' }, notifications: { last_read_id: '7' } })
      .expect(200)
    expect(first.body).toEqual({
      home: { last_read_id: '200', version: 0, updated_at: expect.any(String) },
      notifications: { last_read_id: '7', version: 0, updated_at: expect.any(String) },
    })
    const moved = await alice.post('/api/v1/markers', { notifications: { last_read_id: '9' } }).expect(200)
    expect(moved.body).toEqual({
      notifications: { last_read_id: '9', version: 1, updated_at: expect.any(String) },
    })
    // No monotonic check, as Mastodon: a marker may go back.
    const back = await alice.post('/api/v1/markers', { notifications: { last_read_id: '3' } }).expect(200)
    expect(back.body.notifications).toMatchObject({ last_read_id: '3', version: 2 })
    const same = await alice.post('/api/v1/markers', { notifications: { last_read_id: '3' } }).expect(200)
    expect(same.body.notifications).toEqual(back.body.notifications)

    const both = await alice.get('/api/v1/markers?timeline[]=home&timeline[]=notifications').expect(200)
    expect(both.body).toEqual({ home: first.body.home, notifications: back.body.notifications })
  })

  it('takes form and multipart posts (the web app saves with sendBeacon), and an empty post is {}', async () => {
    const form = await stack
      .api()
      .post('/api/v1/markers')
      .set('Authorization', `Bearer ${bob.token}`)
      .type('form')
      .send('home[last_read_id]=55')
      .expect(200)
    expect(form.body).toEqual({ home: { last_read_id: '55', version: 0, updated_at: expect.any(String) } })
    const multipart = await stack
      .api()
      .post('/api/v1/markers')
      .set('Authorization', `Bearer ${bob.token}`)
      .field('home[last_read_id]', '56')
      .expect(200)
    expect(multipart.body.home).toMatchObject({ last_read_id: '56', version: 1 })
    expect((await bob.post('/api/v1/markers', {}).expect(200)).body).toEqual({})
    expect((await bob.post('/api/v1/markers', { lists: { last_read_id: '1' } }).expect(200)).body).toEqual({})
  })

  it('refuses a missing or malformed last_read_id with 422, saving nothing', async () => {
    const dave = await signUp(stack, { username: 'dave' })
    for (const body of [
      { home: { last_read_id: 'abc' } },
      { home: {} },
      { home: { last_read_id: '1' }, notifications: {} },
    ]) {
      const res = await dave.post('/api/v1/markers', body).expect(422)
      expect(res.body).toEqual({ error: "Validation failed: Last read can't be blank" })
    }
    expect((await dave.get('/api/v1/markers?timeline[]=home').expect(200)).body).toEqual({})
  })

  it('answers 409 when two saves of one marker race', async () => {
    const erin = await signUp(stack, { username: 'erin' })
    const userId = erin.userId
    await erin.post('/api/v1/markers', { home: { last_read_id: '10' } }).expect(200)
    const db = stack.accounts.ctx.db
    // The first save holds its row lock; the second reads the same version, waits, then finds it stale.
    const first = await db.transaction()
    await saveMarkers(first, userId, { home: '11' })
    const second = erin.post('/api/v1/markers', { home: { last_read_id: '12' } }).then((r) => r)
    // Wait until the request's UPDATE is blocked on the row lock (no fixed sleep: it may be slow to get there).
    await eventually(async () => {
      const { rows } = await db.raw(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      )
      return rows[0].n > 0
    })
    await first.commit()
    const res = await second
    expect(res.status).toBe(409)
    expect(res.body).toEqual({ error: 'Conflict during update, please try again' })
    const now = await erin.get('/api/v1/markers?timeline[]=home').expect(200)
    expect(now.body.home).toMatchObject({ last_read_id: '11', version: 1 })
  })

  it('needs a user token with the statuses scopes', async () => {
    await stack.api().get('/api/v1/markers').expect(401)
    const app = await stack.appToken('read')
    await stack.api().get('/api/v1/markers').set('Authorization', `Bearer ${app}`).expect(422)
    const readOnly = await signUp(stack, { scope: 'read:accounts' })
    await readOnly.get('/api/v1/markers').expect(403)
    const writer = await signUp(stack, { scope: 'read:statuses' })
    await writer.post('/api/v1/markers', { home: { last_read_id: '1' } }).expect(403)
  })
})

describe('preferences', () => {
  it('answers every key, with the posting defaults the user set', async () => {
    const fresh = await signUp(stack, { scope: 'read write' })
    expect((await fresh.get('/api/v1/preferences').expect(200)).body).toEqual({
      'posting:default:visibility': 'public',
      'posting:default:sensitive': false,
      'posting:default:language': 'en',
      'posting:default:quote_policy': 'public',
      'reading:expand:media': 'default',
      'reading:expand:spoilers': false,
      'reading:autoplay:gifs': false,
    })
    await stack
      .api()
      .patch('/api/v1/accounts/update_credentials')
      .set('Authorization', `Bearer ${fresh.token}`)
      .send({ source: { privacy: 'private', sensitive: true, language: 'de' } })
      .expect(200)
    expect((await fresh.get('/api/v1/preferences').expect(200)).body).toMatchObject({
      'posting:default:visibility': 'private',
      'posting:default:sensitive': true,
      'posting:default:language': 'de',
    })
    const other = await signUp(stack, { scope: 'read:statuses' })
    await other.get('/api/v1/preferences').expect(403)
  })
})

describe('instance rules, extended description, translation languages', () => {
  it('lists the rules an admin adds with the CLI, in order, also in both instance documents', async () => {
    expect((await stack.api().get('/api/v1/instance/rules').expect(200)).body).toEqual([])
    const one = createdId((await roost(stack, 'rules', 'add', 'Be kind', '--hint', 'No harassment')).stdout)
    const two = createdId((await roost(stack, 'rules', 'add', 'No spam')).stdout)
    const first = createdId((await roost(stack, 'rules', 'add', 'Put first', '--priority=-1')).stdout)
    const expected = [
      { id: first, text: 'Put first', hint: '', translations: {} },
      { id: one, text: 'Be kind', hint: 'No harassment', translations: {} },
      { id: two, text: 'No spam', hint: '', translations: {} },
    ]
    // Public, and cacheable even with a token.
    const res = await alice.get('/api/v1/instance/rules').expect(200)
    expect(res.body).toEqual(expected)
    expect(res.headers['cache-control']).toMatch(/public/)
    expect((await stack.api().get('/api/v2/instance').expect(200)).body.rules).toEqual(expected)
    expect((await stack.api().get('/api/v1/instance').expect(200)).body.rules).toEqual(expected)

    expect((await roost(stack, 'rules', 'remove', first)).code).toBe(0)
    expect((await roost(stack, 'rules', 'remove', first)).code).toBe(1)
    expect((await roost(stack, 'rules', 'add')).code).toBe(2)
    expect((await stack.api().get('/api/v1/instance/rules').expect(200)).body).toEqual(expected.slice(1))
    expect((await roost(stack, 'rules', 'list')).stdout).toBe(
      `${one}\tBe kind (No harassment)\n${two}\tNo spam`,
    )
  })

  it('answers Mastodon’s unset extended description and no translation languages', async () => {
    expect((await stack.api().get('/api/v1/instance/extended_description').expect(200)).body).toEqual({
      updated_at: null,
      content: '',
    })
    expect((await stack.api().get('/api/v1/instance/translation_languages').expect(200)).body).toEqual({})
  })
})

describe('announcements', () => {
  it('lists published, current announcements in order, with read, mentions, tags and reactions', async () => {
    const carol = await signUp(stack, { username: 'carolann' })
    expect((await carol.get('/api/v1/announcements').expect(200)).body).toEqual([])
    const later = createdId(
      (
        await roost(
          stack,
          'announcements',
          'create',
          'Maintenance tonight',
          '--starts-at',
          '2030-01-02T00:00:00Z',
        )
      ).stdout,
    )
    const now = createdId((await roost(stack, 'announcements', 'create', 'Welcome @alice to #roost')).stdout)
    const draft = createdId((await roost(stack, 'announcements', 'create', 'Not yet', '--draft')).stdout)
    createdId(
      (await roost(stack, 'announcements', 'create', 'Over', '--ends-at', '2020-01-01T00:00:00Z')).stdout,
    )

    const list = (await carol.get('/api/v1/announcements').expect(200)).body
    expect(list.map((a: { id: string }) => a.id)).toEqual([now, later])
    expect(list[0]).toEqual({
      id: now,
      content: expect.stringContaining('#<span>roost</span>'),
      starts_at: null,
      ends_at: null,
      all_day: false,
      published_at: expect.any(String),
      updated_at: expect.any(String),
      read: false,
      mentions: [{ id: alice.id, username: 'alice', url: `${stack.url}/@alice`, acct: 'alice' }],
      statuses: [],
      tags: [{ name: 'roost', url: `${stack.url}/tags/roost` }],
      emojis: [],
      reactions: [],
    })
    expect(list[0].content).toContain(`href="${stack.url}/@alice"`)
    expect(list[1].starts_at).toBe('2030-01-02T00:00:00.000Z')

    // Dismissing marks it read for that user only, and is idempotent.
    for (let i = 0; i < 2; i++)
      expect((await carol.post(`/api/v1/announcements/${now}/dismiss`).expect(200)).body).toEqual({})
    expect((await carol.get('/api/v1/announcements').expect(200)).body[0].read).toBe(true)
    expect((await bob.get('/api/v1/announcements').expect(200)).body[0].read).toBe(false)
    await carol.post(`/api/v1/announcements/${draft}/dismiss`).expect(404, { error: 'Record not found' })

    // Reactions: Unicode emoji, counted per emoji, `me` for the viewer.
    await carol.post(`/api/v1/announcements/${now}/reactions/${encodeURIComponent('👍')}`).expect(404)
    const put = (user: TestUser, name: string) =>
      stack
        .api()
        .put(`/api/v1/announcements/${now}/reactions/${encodeURIComponent(name)}`)
        .set('Authorization', `Bearer ${user.token}`)
    expect((await put(carol, '👍').expect(200)).body).toEqual({})
    await put(carol, '👍').expect(200)
    await put(bob, '👍').expect(200)
    await put(bob, '🎉').expect(200)
    await put(bob, '👩🏽‍💻').expect(200)
    const rejected = await put(bob, 'thumbsup').expect(422)
    expect(rejected.body).toEqual({ error: 'Validation failed: Name is not a recognized emoji' })
    const seen = (await carol.get('/api/v1/announcements').expect(200)).body[0].reactions
    expect(seen).toEqual([
      { name: '👍', count: 2, me: true },
      { name: '🎉', count: 1, me: false },
      { name: '👩🏽‍💻', count: 1, me: false },
    ])
    await bob.delete(`/api/v1/announcements/${now}/reactions/${encodeURIComponent('🎉')}`).expect(200, {})
    await bob
      .delete(`/api/v1/announcements/${now}/reactions/${encodeURIComponent('🎉')}`)
      .expect(404, { error: 'Record not found' })
    expect((await bob.get('/api/v1/announcements').expect(200)).body[0].reactions).toEqual([
      { name: '👍', count: 2, me: true },
      { name: '👩🏽‍💻', count: 1, me: true },
    ])

    // Unpublished: gone from the list; the CLI lists it as a draft.
    expect((await roost(stack, 'announcements', 'unpublish', now)).code).toBe(0)
    expect(
      (await carol.get('/api/v1/announcements').expect(200)).body.map((a: { id: string }) => a.id),
    ).toEqual([later])
    expect((await roost(stack, 'announcements', 'list')).stdout).toContain(
      `${now}\tdraft\tWelcome @alice to #roost`,
    )
    expect((await roost(stack, 'announcements', 'delete', later)).code).toBe(0)
    expect((await roost(stack, 'announcements', 'delete', later)).code).toBe(1)
    expect((await roost(stack, 'announcements', 'create', 'x', '--starts-at', 'soon')).code).toBe(2)
  })

  it('allows at most eight different reactions', async () => {
    const id = createdId((await roost(stack, 'announcements', 'create', 'React away')).stdout)
    const emoji = ['😀', '😁', '😂', '🤣', '😃', '😄', '😅', '😆']
    for (const e of emoji)
      await stack
        .api()
        .put(`/api/v1/announcements/${id}/reactions/${encodeURIComponent(e)}`)
        .set('Authorization', `Bearer ${alice.token}`)
        .expect(200)
    const ninth = await stack
      .api()
      .put(`/api/v1/announcements/${id}/reactions/${encodeURIComponent('😇')}`)
      .set('Authorization', `Bearer ${bob.token}`)
      .expect(422)
    expect(ninth.body).toEqual({ error: 'Validation failed: Limit of different reactions reached' })
    // One of the eight again is fine.
    await stack
      .api()
      .put(`/api/v1/announcements/${id}/reactions/${encodeURIComponent('😀')}`)
      .set('Authorization', `Bearer ${bob.token}`)
      .expect(200)
    expect((await roost(stack, 'announcements', 'delete', id)).code).toBe(0)
  })

  it('records announcement events for the streaming service', async () => {
    await stack.drain()
    const before = await stack.accounts.ctx.db('outbox').max('id as max').first()
    const id = createdId((await roost(stack, 'announcements', 'create', 'Streamed')).stdout)
    await roost(stack, 'announcements', 'delete', id)
    const events = await stack.accounts.ctx
      .db('outbox')
      .where('id', '>', before!.max ?? 0)
      .whereLike('job_name', 'announcement.%')
      .orderBy('id')
      .pluck('payload')
    expect(events).toEqual([
      { event: 'announcement.published', announcementId: id },
      { event: 'announcement.deleted', announcementId: id },
    ])
    await stack.drain()
  })

  it('needs a user; dismissing needs write:accounts', async () => {
    await stack.api().get('/api/v1/announcements').expect(401)
    const app = await stack.appToken('read')
    await stack.api().get('/api/v1/announcements').set('Authorization', `Bearer ${app}`).expect(422)
    const reader = await signUp(stack, { scope: 'read' })
    await reader.get('/api/v1/announcements').expect(200)
    await reader.post('/api/v1/announcements/1/dismiss').expect(403)
  })
})
