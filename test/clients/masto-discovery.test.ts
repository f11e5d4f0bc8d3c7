// Filters, grouped notifications and search as a Mastodon app drives them, with masto.js 7 unchanged.
import { createRestAPIClient } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { SCOPES } from './helpers'

let stack: Stack
let alice: ReturnType<typeof client>
let bob: ReturnType<typeof client>
let carol: ReturnType<typeof client>
beforeAll(async () => {
  stack = await startStack()
  alice = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' })))
  bob = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'bob' })))
  carol = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'carol' })))
})
afterAll(() => stack.stop())

function client(accessToken: string) {
  return createRestAPIClient({ url: stack.url, accessToken, timeout: 10_000 })
}

describe('masto.js: discovery', () => {
  it('saves and reads home and notifications markers, the version counting updates as lock_version does', async () => {
    const status = await bob.v1.statuses.create({ status: 'a marker to read up to' })
    expect(await alice.v1.markers.fetch({ timeline: ['home', 'notifications'] })).toEqual({})
    const saved = await alice.v1.markers.create({ home: { lastReadId: status.id } })
    expect(saved.home).toMatchObject({ lastReadId: status.id, version: 0 })
    const later = await bob.v1.statuses.create({ status: 'and on to this one' })
    await alice.v1.markers.create({ home: { lastReadId: later.id }, notifications: { lastReadId: '1' } })
    const read = await alice.v1.markers.fetch({ timeline: ['home', 'notifications'] })
    expect(read.home).toMatchObject({ lastReadId: later.id, version: 1 })
    expect(read.notifications).toMatchObject({ lastReadId: '1', version: 0 })
    expect(Date.parse(read.home!.updatedAt)).not.toBeNaN()
  })

  it('creates a v2 filter whose warn results mark statuses and whose hide action removes them', async () => {
    const filter = await alice.v2.filters.create({
      title: 'Spoilers',
      context: ['public'],
      filterAction: 'warn',
      keywordsAttributes: [{ keyword: 'finale', wholeWord: true }],
    })
    expect(filter).toMatchObject({
      title: 'Spoilers',
      filterAction: 'warn',
      keywords: [{ keyword: 'finale' }],
    })
    const spoiler = await bob.v1.statuses.create({ status: 'the finale was wild' })
    const [marked] = await alice.v1.timelines.public.list({ limit: 1 })
    expect(marked!.id).toBe(spoiler.id)
    expect(marked!.filtered).toEqual([
      expect.objectContaining({
        keywordMatches: ['finale'],
        filter: expect.objectContaining({ id: filter.id }),
      }),
    ])
    await alice.v2.filters.$select(filter.id).update({ filterAction: 'hide' })
    const after = await alice.v1.timelines.public.list({ limit: 5 })
    expect(after.map((s) => s.id)).not.toContain(spoiler.id)
    expect((await alice.v2.filters.list()).map((f) => f.id)).toEqual([filter.id])
    await alice.v2.filters.$select(filter.id).remove()
    expect(await alice.v2.filters.list()).toEqual([])
  })

  it('reads grouped notifications, a group, its accounts and the unread count, and dismisses the group', async () => {
    const status = await alice.v1.statuses.create({ status: 'like this' })
    await bob.v1.statuses.$select(status.id).favourite()
    await stack.drain()
    await carol.v1.statuses.$select(status.id).favourite()
    await stack.drain()
    const results = await alice.v2.notifications.list()
    const group = results.notificationGroups.find((g) => String(g.type) === 'favourite')!
    const key: string = group.groupKey
    expect(group).toMatchObject({ notificationsCount: 2, statusId: status.id })
    expect(results.statuses.map((s) => s.id)).toContain(status.id)
    expect(results.accounts.map((a) => a.username).sort()).toEqual(['bob', 'carol'])
    const one = await alice.v2.notifications.$select(key).fetch()
    expect(one.notificationGroups[0]!.groupKey).toBe(group.groupKey)
    const accounts = await alice.v2.notifications.$select(key).accounts.fetch()
    expect(accounts.map((a) => a.username)).toEqual(['carol', 'bob'])
    expect((await alice.v2.notifications.unreadCount.fetch()).count).toBe(1)
    await alice.v2.notifications.$select(key).dismiss()
    expect((await alice.v2.notifications.unreadCount.fetch()).count).toBe(0)
  })

  it('searches statuses by full text, hashtags and accounts', async () => {
    const mine = await alice.v1.statuses.create({
      status: 'walking in the mountains #hiking',
      language: 'en',
    })
    const found = await alice.v2.search.list({ q: 'mountain', type: 'statuses' })
    expect(found.statuses.map((s) => s.id)).toEqual([mine.id])
    const tags = await alice.v2.search.list({ q: '#hik', type: 'hashtags' })
    expect(tags.hashtags.map((t) => t.name)).toEqual(['hiking'])
    const accounts = await alice.v2.search.list({ q: 'car', type: 'accounts' })
    expect(accounts.accounts.map((a) => a.username)).toEqual(['carol'])
  })
})
