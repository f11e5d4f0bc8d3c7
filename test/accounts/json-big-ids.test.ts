import { channels } from '@roost/events'
import { eventually, startStack } from '../stack'
import type { Stack } from '../stack'
import { PNG, post, signUp } from './social/helpers'
import type { TestUser } from './social/helpers'
import { createdId, roost } from '../discovery/helpers'
import { openSocket } from '../streaming/helpers'

/**
 * Ids sent as JSON numbers (issue #31). Mastodon.py turns every id into an int, and ids are snowflakes of about
 * 1.2 × 10^17, beyond 2^53: a body parsed with JSON.parse would round them. Each id parameter of the route table
 * (one route per kind where several read it alike: page cursors, `account_id` filters), and the list of a
 * streaming subscribe message, gets one here as a bare JSON number, and the exact id must come back.
 */

let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
beforeAll(async () => {
  stack = await startStack()
  // Odd ids only (the low 16 bits of a snowflake come from this sequence): an odd number near 1.2 × 10^17 is
  // never a double, so every id below is one JSON.parse would change, whatever the clock says.
  await stack.accounts.ctx.db.raw('ALTER SEQUENCE snowflake_seq INCREMENT BY 16 RESTART WITH 1')
  alice = await signUp(stack, { username: 'alice', scope: 'read write follow' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
  await alice.post(`/api/v1/accounts/${bob.id}/follow`).expect(200)
  await bob.post(`/api/v1/accounts/${carol.id}/follow`).expect(200)
})
afterAll(() => stack.stop())

/** An id as it would be written in JSON by Mastodon.py: a bare number, after checking a double cannot hold it. */
function n(id: string): string {
  expect(id).toMatch(/^\d+$/)
  expect(BigInt(id) > BigInt(Number.MAX_SAFE_INTEGER)).toBe(true)
  expect(String(Number(id))).not.toBe(id)
  return id
}

/** A request through the gateway with `json` (text, so ids stay bare numbers) as its JSON body. */
const send = (user: TestUser, method: 'get' | 'post' | 'put' | 'delete', path: string, json: string) => {
  const api = stack.api()
  return api[method](path)
    .set('Authorization', `Bearer ${user.token}`)
    .set('Content-Type', 'application/json')
    .send(json)
}

const upload = async (user: TestUser) =>
  (await user.post('/api/v1/media').attach('file', PNG, 'x.png').expect(200)).body.id as string

const ids = (items: { id: string }[]) => items.map((item) => item.id)

describe('ids sent as JSON numbers come through exactly', () => {
  it('markers: last_read_id', async () => {
    const status = await post(bob, 'read up to here')
    const saved = await send(
      alice,
      'post',
      '/api/v1/markers',
      `{"home":{"last_read_id":${n(status)}},"notifications":{"last_read_id":${n(status)}}}`,
    ).expect(200)
    expect(saved.body.home.last_read_id).toBe(status)
    expect(saved.body.notifications.last_read_id).toBe(status)
    const read = await alice.get('/api/v1/markers?timeline[]=home&timeline[]=notifications').expect(200)
    expect([read.body.home.last_read_id, read.body.notifications.last_read_id]).toEqual([status, status])
    // A small id as a number is still an id.
    const small = await send(alice, 'post', '/api/v1/markers', '{"home":{"last_read_id":5}}').expect(200)
    expect(small.body.home.last_read_id).toBe('5')
  })

  it('familiar_followers, accounts, relationships and statuses: id[] in a JSON body on GET', async () => {
    const familiar = await send(
      alice,
      'get',
      '/api/v1/accounts/familiar_followers',
      `{"id":[${n(carol.id)}]}`,
    ).expect(200)
    expect(familiar.body).toEqual([{ id: carol.id, accounts: [expect.objectContaining({ id: bob.id })] }])

    const accounts = await send(
      alice,
      'get',
      '/api/v1/accounts',
      `{"id":[${n(bob.id)},${n(carol.id)}]}`,
    ).expect(200)
    expect(ids(accounts.body).sort()).toEqual([bob.id, carol.id].sort())

    const relationships = await send(
      alice,
      'get',
      '/api/v1/accounts/relationships',
      `{"id":[${n(bob.id)}]}`,
    ).expect(200)
    expect(relationships.body).toEqual([expect.objectContaining({ id: bob.id, following: true })])

    const status = await post(bob, 'listed')
    const statuses = await send(alice, 'get', '/api/v1/statuses', `{"id":[${n(status)}]}`).expect(200)
    expect(ids(statuses.body)).toEqual([status])
  })

  it('statuses: in_reply_to_id, media_ids, and media_ids and media_attributes[].id on edit', async () => {
    const parent = await post(bob, 'a question')
    const reply = await send(
      alice,
      'post',
      '/api/v1/statuses',
      `{"status":"an answer","in_reply_to_id":${n(parent)}}`,
    ).expect(200)
    expect(reply.body.in_reply_to_id).toBe(parent)
    expect(reply.body.in_reply_to_account_id).toBe(bob.id)

    const [first, second] = [await upload(alice), await upload(alice)]
    const pictured = await send(
      alice,
      'post',
      '/api/v1/statuses',
      `{"status":"a picture","media_ids":[${n(first)}]}`,
    ).expect(200)
    expect(ids(pictured.body.media_attachments)).toEqual([first])

    const edited = await send(
      alice,
      'put',
      `/api/v1/statuses/${pictured.body.id}`,
      `{"status":"two pictures","media_ids":[${n(second)},${n(first)}],` +
        `"media_attributes":[{"id":${n(first)},"description":"the first"}]}`,
    ).expect(200)
    expect(ids(edited.body.media_attachments)).toEqual([second, first])
    expect(edited.body.media_attachments[1].description).toBe('the first')
  })

  it('polls: choices are option indexes and stay numbers', async () => {
    const status = await send(
      bob,
      'post',
      '/api/v1/statuses',
      '{"status":"which?","poll":{"options":["a","b","c"],"expires_in":600,"multiple":true}}',
    ).expect(200)
    const voted = await send(
      alice,
      'post',
      `/api/v1/polls/${status.body.poll.id}/votes`,
      '{"choices":[0,2]}',
    ).expect(200)
    expect(voted.body).toMatchObject({ voted: true, own_votes: [0, 2] })
  })

  it('reports: account_id, status_ids and (small, serial) rule_ids', async () => {
    const rule = createdId((await roost(stack, 'rules', 'add', 'Be kind')).stdout)
    const status = await post(bob, 'rude')
    const report = await send(
      alice,
      'post',
      '/api/v1/reports',
      `{"account_id":${n(bob.id)},"status_ids":[${n(status)}],"rule_ids":[${rule}],"category":"violation"}`,
    ).expect(200)
    expect(report.body).toMatchObject({
      status_ids: [status],
      rule_ids: [rule],
      target_account: { id: bob.id },
    })
  })

  it('admin: reports by account_id and target_account_id, accounts by (small) role_ids', async () => {
    const boss = await signUp(stack, { username: 'boss' })
    expect((await roost(stack, 'accounts', 'role', 'boss', 'admin')).code).toBe(0)
    const admin = { ...boss, token: await stack.userToken('read admin:read', boss) }
    await alice.post('/api/v1/reports', { account_id: carol.id }).expect(200)
    const reports = await send(
      admin,
      'get',
      '/api/v1/admin/reports',
      `{"account_id":${n(alice.id)},"target_account_id":${n(carol.id)}}`,
    ).expect(200)
    expect(reports.body).toEqual([
      expect.objectContaining({
        account: expect.objectContaining({ id: alice.id }),
        target_account: expect.objectContaining({ id: carol.id }),
      }),
    ])
    const admins = await send(admin, 'get', '/api/v2/admin/accounts', '{"role_ids":[2]}').expect(200)
    expect(ids(admins.body)).toEqual([boss.id])
  })

  it('lists: account_ids to add and to remove members', async () => {
    const list = (await alice.post('/api/v1/lists', { title: 'friends' }).expect(200)).body.id as string
    await send(alice, 'post', `/api/v1/lists/${list}/accounts`, `{"account_ids":[${n(bob.id)}]}`).expect(200)
    expect(ids((await alice.get(`/api/v1/lists/${list}/accounts`).expect(200)).body)).toEqual([bob.id])
    await send(alice, 'delete', `/api/v1/lists/${list}/accounts`, `{"account_ids":[${n(bob.id)}]}`).expect(
      200,
    )
    expect((await alice.get(`/api/v1/lists/${list}/accounts`).expect(200)).body).toEqual([])
  })

  it('filters: keywords_attributes[].id and the filtered status_id', async () => {
    const filter = (
      await alice
        .post('/api/v2/filters', {
          title: 'tv',
          context: ['home'],
          keywords_attributes: [{ keyword: 'finale' }],
        })
        .expect(200)
    ).body
    const keyword = filter.keywords[0].id as string
    const updated = await send(
      alice,
      'put',
      `/api/v2/filters/${filter.id}`,
      `{"keywords_attributes":[{"id":${n(keyword)},"keyword":"season finale"}]}`,
    ).expect(200)
    expect(updated.body.keywords).toEqual([
      expect.objectContaining({ id: keyword, keyword: 'season finale' }),
    ])

    const status = await post(bob, 'spoilers')
    const rule = await send(
      alice,
      'post',
      `/api/v2/filters/${filter.id}/statuses`,
      `{"status_id":${n(status)}}`,
    ).expect(200)
    expect(rule.body).toMatchObject({ status_id: status })
  })

  it('notifications, search and page cursors: account_id, max_id and min_id in a JSON body on GET', async () => {
    const mention = await post(bob, '@alice hello')
    await post(carol, '@alice hi')
    await stack.drain()
    const fromBob = await send(
      alice,
      'get',
      '/api/v1/notifications',
      `{"account_id":${n(bob.id)},"types":["mention"]}`,
    ).expect(200)
    expect(fromBob.body.map((x: { status: { id: string } }) => x.status.id)).toEqual([mention])

    // Own statuses are always searchable.
    const older = await post(alice, 'needle one')
    const newer = await post(alice, 'needle two')
    await post(bob, 'needle elsewhere')
    const search = async (json: string) =>
      ids((await send(alice, 'get', '/api/v2/search', json).expect(200)).body.statuses)
    expect(await search(`{"q":"needle","type":"statuses","account_id":${n(alice.id)}}`)).toEqual([
      newer,
      older,
    ])
    expect(await search(`{"q":"needle","type":"statuses","max_id":${n(newer)}}`)).toEqual([older])

    const page = async (json: string) =>
      ids((await send(alice, 'get', `/api/v1/accounts/${alice.id}/statuses`, json).expect(200)).body)
    expect(await page(`{"max_id":${n(newer)},"limit":1}`)).toEqual([older])
    expect(await page(`{"min_id":${n(older)}}`)).toEqual([newer])
    // A small cursor as a number is a cursor too: nothing is older than id 1.
    expect(await page('{"max_id":1}')).toEqual([])
  })

  it('streaming: the list of a WebSocket subscribe message', async () => {
    const list = (await alice.post('/api/v1/lists', { title: 'streamed' }).expect(200)).body.id as string
    const socket = await openSocket(stack, `?access_token=${alice.token}`)
    try {
      socket.ws.send(`{"type":"subscribe","stream":"list","list":${n(list)}}`)
      await eventually(async () => stack.streaming.hub.isLive(channels.list(list)))
      expect(socket.inbox.items.filter((item) => item.error)).toEqual([])
    } finally {
      await socket.close()
    }
  })
})
