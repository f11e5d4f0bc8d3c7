// The timelines of a Mastodon app, driven by masto.js 7 unchanged: home (paged with for await) and lists.
import { createRestAPIClient } from 'masto'
import { startStack } from '../stack'
import type { Stack } from '../stack'
import { SCOPES } from './helpers'

let stack: Stack
let alice: ReturnType<typeof client>
let bob: ReturnType<typeof client>
let bobId: string
beforeAll(async () => {
  stack = await startStack()
  alice = client(await stack.userToken(SCOPES, await stack.createUser({ username: 'alice' })))
  const bobUser = await stack.createUser({ username: 'bob' })
  bobId = bobUser.accountId
  bob = client(await stack.userToken(SCOPES, bobUser))
  // As an app does on start: the first read asks for the feeds to be built.
  await alice.v1.timelines.home.list()
  await stack.drain()
})
afterAll(() => stack.stop())

function client(accessToken: string) {
  return createRestAPIClient({ url: stack.url, accessToken, timeout: 10_000 })
}

describe('masto.js: timelines', () => {
  it('reads the home timeline page by page with for await', async () => {
    await alice.v1.accounts.$select(bobId).follow()
    const posted: string[] = []
    for (let i = 0; i < 7; i++) posted.unshift((await bob.v1.statuses.create({ status: `home ${i}` })).id)
    await stack.drain()
    const seen: string[] = []
    for await (const page of alice.v1.timelines.home.list({ limit: 3 })) seen.push(...page.map((s) => s.id))
    expect(seen).toEqual(posted)
    const [newest] = await alice.v1.timelines.home.list({ limit: 1 })
    expect(newest).toMatchObject({ id: posted[0], account: { username: 'bob' }, content: '<p>home 6</p>' })
  })

  it('creates a list, adds a followed account, reads the list timeline, renames and deletes the list', async () => {
    const list = await alice.v1.lists.create({ title: 'Close friends', exclusive: true })
    expect(list).toMatchObject({ title: 'Close friends', repliesPolicy: 'list', exclusive: true })
    await alice.v1.lists.$select(list.id).accounts.create({ accountIds: [bobId] })
    expect((await alice.v1.lists.$select(list.id).accounts.list()).map((a) => a.id)).toEqual([bobId])
    expect((await alice.v1.accounts.$select(bobId).lists.list()).map((l) => l.id)).toEqual([list.id])
    await alice.v1.timelines.list.$select(list.id).list() // the first read builds the list's feed
    await stack.drain()

    const status = await bob.v1.statuses.create({ status: 'for the list' })
    await stack.drain()
    const timeline = await alice.v1.timelines.list.$select(list.id).list({ limit: 5 })
    expect(timeline[0]).toMatchObject({ id: status.id, content: '<p>for the list</p>' })
    // Exclusive: bob's new post stays out of the home timeline.
    expect((await alice.v1.timelines.home.list({ limit: 40 })).map((s) => s.id)).not.toContain(status.id)

    const renamed = await alice.v1.lists.$select(list.id).update({ title: 'Friends' })
    expect(renamed.title).toBe('Friends')
    expect((await alice.v1.lists.list()).map((l) => l.title)).toEqual(['Friends'])
    await alice.v1.lists.$select(list.id).accounts.remove({ accountIds: [bobId] })
    expect(await alice.v1.lists.$select(list.id).accounts.list()).toEqual([])
    await alice.v1.lists.$select(list.id).remove()
    expect(await alice.v1.lists.list()).toEqual([])
  })

  it('reads a hashtag timeline, follows the tag and lists followed tags', async () => {
    const status = await bob.v1.statuses.create({ status: 'hello #MastoJS' })
    const tagged = await alice.v1.timelines.tag.$select('mastojs').list({ limit: 5 })
    expect(tagged.map((s) => s.id)).toEqual([status.id])
    expect(tagged[0]!.tags).toEqual([{ name: 'mastojs', url: `${stack.url}/tags/mastojs` }])
    const tag = await alice.v1.tags.$select('mastojs').follow()
    expect(tag).toMatchObject({ name: 'MastoJS', following: true })
    expect(tag.history).toHaveLength(7)
    expect((await alice.v1.followedTags.list()).map((t) => t.name)).toEqual(['MastoJS'])
    expect((await alice.v1.tags.$select('MASTOJS').unfollow()).following).toBe(false)
  })
})
