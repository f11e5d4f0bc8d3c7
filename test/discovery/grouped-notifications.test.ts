import { startStack } from '../stack'
import type { Stack } from '../stack'
import { links, onStack, post, signUp } from './helpers'
import type { TestUser } from './helpers'

let stack: Stack
let alice: TestUser
let bob: TestUser
let carol: TestUser
let dave: TestUser
let eve: TestUser
let liked: string
let mention: string

type Group = {
  group_key: string
  notifications_count: number
  type: string
  most_recent_notification_id: number
  page_min_id?: string
  page_max_id?: string
  latest_page_notification_at?: string
  sample_account_ids: string[]
  status_id?: string
}
type Results = {
  accounts: { id: string }[]
  partial_accounts?: { id: string; avatar: string }[]
  statuses: { id: string }[]
  notification_groups: Group[]
}

const grouped = async (user: TestUser, query = '') =>
  (await user.get(`/api/v2/notifications${query}`).expect(200)).body as Results

beforeAll(async () => {
  stack = await startStack()
  alice = await signUp(stack, { username: 'alice' })
  bob = await signUp(stack, { username: 'bob' })
  carol = await signUp(stack, { username: 'carol' })
  dave = await signUp(stack, { username: 'dave' })
  eve = await signUp(stack, { username: 'eve' })
  // Each step is drained so the notifications are made in this order.
  liked = await post(alice, 'like me')
  for (const user of [bob, carol, dave]) {
    await user.post(`/api/v1/statuses/${liked}/favourite`).expect(200)
    await stack.drain()
  }
  await eve.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
  await stack.drain()
  mention = await post(bob, '@alice hello')
  await stack.drain()
  for (const user of [carol, dave]) {
    await user.post(`/api/v1/accounts/${alice.id}/follow`).expect(200)
    await stack.drain()
  }
})
afterAll(() => stack.stop())

describe('GET /api/v2/notifications', () => {
  it('groups favourites of a status and follows, newest group first, with deduplicated accounts and statuses', async () => {
    const res = await alice.get('/api/v2/notifications').expect(200)
    const body = res.body as Results
    const groups = body.notification_groups
    expect(groups.map((g) => g.type)).toEqual(['follow', 'mention', 'favourite'])
    const [follows, mentioned, favourites] = groups as [Group, Group, Group]
    expect(follows.group_key).toMatch(/^follow-\d+$/)
    expect(follows).toMatchObject({
      notifications_count: 3,
      sample_account_ids: [dave.id, carol.id, eve.id],
    })
    expect(follows.status_id).toBeUndefined()
    expect(mentioned).toMatchObject({
      group_key: `ungrouped-${mentioned.most_recent_notification_id}`,
      notifications_count: 1,
      sample_account_ids: [bob.id],
      status_id: mention,
    })
    expect(favourites.group_key).toMatch(new RegExp(`^favourite-${liked}-\\d+$`))
    expect(favourites).toMatchObject({
      notifications_count: 3,
      sample_account_ids: [dave.id, carol.id, bob.id],
      status_id: liked,
    })
    expect(typeof favourites.most_recent_notification_id).toBe('number')
    expect(Number(favourites.page_max_id)).toBe(favourites.most_recent_notification_id)
    // The page's range runs from the last group's representative up: its oldest follow is on it, the
    // favourites older than their most recent one are not.
    expect(Number(follows.page_min_id)).toBeLessThan(follows.most_recent_notification_id)
    expect(Number(favourites.page_min_id)).toBe(favourites.most_recent_notification_id)
    expect(Date.parse(favourites.latest_page_notification_at!)).not.toBeNaN()

    expect(body.accounts.map((a) => a.id)).toEqual([dave.id, carol.id, eve.id, bob.id])
    expect(body.statuses.map((s) => s.id)).toEqual([mention, liked])
    expect(body.partial_accounts).toBeUndefined()

    // v1 shows the same group keys.
    const v1 = (await alice.get('/api/v1/notifications?types[]=favourite').expect(200)).body as {
      group_key: string
    }[]
    expect(v1.map((n) => n.group_key)).toEqual([
      favourites.group_key,
      favourites.group_key,
      favourites.group_key,
    ])
  })

  it('pages by groups with Link headers on notification ids', async () => {
    const first = await alice.get('/api/v2/notifications?limit=2').expect(200)
    expect(first.body.notification_groups.map((g: Group) => g.type)).toEqual(['follow', 'mention'])
    const { next, prev } = links(first.headers.link)
    expect(next).toContain(`max_id=${first.body.notification_groups[1].most_recent_notification_id}`)
    expect(next).toContain('limit=2')
    expect(prev).toContain(`min_id=${first.body.notification_groups[0].most_recent_notification_id}`)
    const second = (await alice.get(onStack(stack, next!)).expect(200)).body as Results
    // Follows older than the mention form their group again on the page after it, as Mastodon's.
    expect(second.notification_groups.map((g) => [g.type, g.notifications_count])).toEqual([
      ['follow', 1],
      ['favourite', 3],
    ])
    const newer = (await alice.get(onStack(stack, prev!)).expect(200)).body as Results
    expect(newer.notification_groups).toEqual([])
  })

  it('takes grouped_types, types, exclude_types and expand_accounts', async () => {
    const ungroupedFollows = await grouped(alice, '?grouped_types[]=favourite')
    expect(ungroupedFollows.notification_groups.map((g) => g.type)).toEqual([
      'follow',
      'follow',
      'mention',
      'follow',
      'favourite',
    ])
    expect(ungroupedFollows.notification_groups[0]!.group_key).toMatch(/^ungrouped-\d+$/)
    expect((await grouped(alice, '?types[]=mention')).notification_groups.map((g) => g.type)).toEqual([
      'mention',
    ])
    expect(
      (await grouped(alice, '?exclude_types[]=follow&exclude_types[]=mention')).notification_groups.map(
        (g) => g.type,
      ),
    ).toEqual(['favourite'])

    const partial = await grouped(alice, '?expand_accounts=partial_avatars')
    expect(partial.accounts.map((a) => a.id)).toEqual([dave.id, bob.id])
    expect(partial.partial_accounts!.map((a) => a.id)).toEqual([carol.id, eve.id])
    expect(Object.keys(partial.partial_accounts![0]!).sort()).toEqual(
      ['acct', 'avatar', 'avatar_static', 'bot', 'id', 'locked', 'url'].sort(),
    )
    await alice
      .get('/api/v2/notifications?expand_accounts=everything')
      .expect(400, { error: "Invalid value for 'expand_accounts'" })
    await stack.api().get('/api/v2/notifications').expect(401)
  })
})

describe('a group by its key', () => {
  it('shows it, lists its accounts, and dismisses it; another user cannot see it', async () => {
    const groups = (await grouped(alice)).notification_groups
    const favourites = groups.find((g) => g.type === 'favourite')!
    const shown = (await alice.get(`/api/v2/notifications/${favourites.group_key}`).expect(200))
      .body as Results
    expect(shown.notification_groups).toEqual([
      {
        group_key: favourites.group_key,
        notifications_count: 3,
        type: 'favourite',
        most_recent_notification_id: favourites.most_recent_notification_id,
        sample_account_ids: [dave.id, carol.id, bob.id],
        status_id: liked,
      },
    ])
    expect(shown.statuses.map((s) => s.id)).toEqual([liked])

    const accounts = await alice
      .get(`/api/v2/notifications/${favourites.group_key}/accounts?limit=2`)
      .expect(200)
    expect(accounts.body.map((a: { id: string }) => a.id)).toEqual([dave.id, carol.id])
    const rest = await alice.get(onStack(stack, links(accounts.headers.link).next!)).expect(200)
    expect(rest.body.map((a: { id: string }) => a.id)).toEqual([bob.id])

    const mentioned = groups.find((g) => g.type === 'mention')!
    expect(
      (await alice.get(`/api/v2/notifications/${mentioned.group_key}`).expect(200)).body
        .notification_groups[0].status_id,
    ).toBe(mention)

    await bob.get(`/api/v2/notifications/${favourites.group_key}`).expect(404, { error: 'Record not found' })
    await bob.post(`/api/v2/notifications/${favourites.group_key}/dismiss`).expect(404)
    await alice.get('/api/v2/notifications/nonsense').expect(404)

    await alice.post(`/api/v2/notifications/${favourites.group_key}/dismiss`).expect(200, {})
    await alice.get(`/api/v2/notifications/${favourites.group_key}`).expect(404)
    expect((await grouped(alice)).notification_groups.map((g) => g.type)).toEqual(['follow', 'mention'])
  })
})

describe('unread counts', () => {
  it('counts groups (v2) and notifications (v1) newer than the notifications marker', async () => {
    const user = await signUp(stack)
    const status = await post(user, 'count me')
    for (const fan of [bob, carol]) {
      await fan.post(`/api/v1/statuses/${status}/favourite`).expect(200)
      await stack.drain()
    }
    await post(dave, `@${user.username} hi`)
    await stack.drain()
    for (const fan of [eve, dave]) {
      await fan.post(`/api/v1/accounts/${user.id}/follow`).expect(200)
      await stack.drain()
    }
    expect((await user.get('/api/v2/notifications/unread_count').expect(200)).body).toEqual({ count: 3 })
    expect((await user.get('/api/v1/notifications/unread_count').expect(200)).body).toEqual({ count: 5 })
    expect((await user.get('/api/v2/notifications/unread_count?limit=2').expect(200)).body).toEqual({
      count: 2,
    })

    const v1 = (await user.get('/api/v1/notifications').expect(200)).body as { id: string; type: string }[]
    const mentionId = v1.find((n) => n.type === 'mention')!.id
    await user.post('/api/v1/markers', { notifications: { last_read_id: mentionId } }).expect(200)
    expect((await user.get('/api/v2/notifications/unread_count').expect(200)).body).toEqual({ count: 1 })
    expect((await user.get('/api/v1/notifications/unread_count').expect(200)).body).toEqual({ count: 2 })
    expect(
      (await user.get('/api/v2/notifications/unread_count?grouped_types[]=favourite').expect(200)).body,
    ).toEqual({ count: 2 })
  })
})

describe('instance', () => {
  it('advertises the API version with grouped notifications', async () => {
    const instance = (await stack.api().get('/api/v2/instance').expect(200)).body
    expect(instance.api_versions.mastodon).toBeGreaterThanOrEqual(2)
  })
})
